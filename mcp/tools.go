package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/treesitter"
)

// The tools' arguments and structured results. Descriptions (the
// jsonschema tags) are written for a model choosing a tool and filling
// its arguments.

// OpenFile is a file the agent is looking at.
type OpenFile struct {
	Path string `json:"path" jsonschema:"file path, relative to the repository root (or absolute inside it)"`
	Line int    `json:"line,omitempty" jsonschema:"1-based cursor line; the function around it is kept whole"`
}

// BuildContextIn are build_context's arguments.
type BuildContextIn struct {
	Request   string     `json:"request" jsonschema:"the user's request in their own words, e.g. 'fix the panic in Store.Put when the disk is full'"`
	Task      string     `json:"task,omitempty" jsonschema:"task type: implement, debug, refactor, test or analyze; detected from the request when omitted"`
	Budget    int        `json:"budget,omitempty" jsonschema:"most tokens the gathered context may take (default: the configured share of the model window)"`
	OpenFiles []OpenFile `json:"open_files,omitempty" jsonschema:"files the agent has open or is editing, with the cursor line; they rank first"`
	Patterns  []string   `json:"patterns,omitempty" jsonschema:"glob patterns (e.g. 'server/*.go') or literal paths to include"`
	Format    string     `json:"format,omitempty" jsonschema:"prompt format: markdown (default) or xml"`
}

// ChunkSummary is one chunk of a built context.
type ChunkSummary struct {
	Source string  `json:"source" jsonschema:"where the chunk comes from: a path, or a name such as 'structure' or 'git diff'"`
	Type   string  `json:"type"`
	View   string  `json:"view" jsonschema:"how much of it is shown: full, bodies, signatures, focus, focus-only, outline or middle"`
	Tokens int     `json:"tokens"`
	Score  float64 `json:"score"`
}

// BuildContextOut is build_context's structured result: the envelope
// summary (the prompt itself is the text content).
type BuildContextOut struct {
	TaskType     string         `json:"task_type"`
	Model        string         `json:"model"`
	Budget       int            `json:"context_budget"`
	TokensUsed   int            `json:"context_tokens"`
	PromptTokens int            `json:"prompt_tokens"`
	Chunks       []ChunkSummary `json:"chunks"`
	Skipped      int            `json:"skipped"`
	Warnings     []string       `json:"warnings,omitempty"`
}

// FindSymbolIn are find_symbol's arguments.
type FindSymbolIn struct {
	Name          string `json:"name" jsonschema:"identifier or qualified name: 'Open', 'open()', 'Store.Open' or 'Store#open' (type.member) or 'artifacts.Open' (package.name), at most three parts ('store.Store.Put'), or a computed member as the outline lists it: 'app[method]'"`
	MaxReferences int    `json:"max_references,omitempty" jsonschema:"most references to return (default 50)"`
	IncludeDocs   bool   `json:"include_docs,omitempty" jsonschema:"also list the lines of documentation files (Markdown, reST, text) that name it; code only by default"`
}

// OutlineIn are outline's arguments.
type OutlineIn struct {
	Path  string `json:"path" jsonschema:"file path, relative to the repository root"`
	Level string `json:"level,omitempty" jsonschema:"also render the file at this level: full, bodies (function bodies elided), signatures or outline; omit for the symbol list only"`
	// Language is ctx/outline's param and the command line's --language:
	// the unknown-language error names it.
	Language string `json:"language,omitempty" jsonschema:"the file's language when its name does not say it (go, python, javascript, typescript, rust, ...); detected by default"`
}

// OutlineOut is outline's structured result.
type OutlineOut struct {
	Path     string              `json:"path"`
	Language string              `json:"language"`
	Symbols  []treesitter.Symbol `json:"symbols"`
	Imports  []string            `json:"imports"`
	Level    string              `json:"level,omitempty"`
	View     string              `json:"view,omitempty"`
	// Redactions lists the secrets the file's text lost before it was
	// outlined (never the secret).
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

// CountTokensIn are count_tokens's arguments.
type CountTokensIn struct {
	Text  string `json:"text" jsonschema:"the text to count"`
	Model string `json:"model,omitempty" jsonschema:"model name, e.g. gpt-4o, claude-sonnet-4 (default: the configured model)"`
}

// CountTokensOut is count_tokens's structured result.
type CountTokensOut struct {
	Tokens   int    `json:"tokens"`
	Exact    bool   `json:"exact" jsonschema:"true when counted with the model's own tokenizer, false for a calibrated estimate"`
	Encoding string `json:"encoding"`
	Model    string `json:"model"`
}

// CompactHistoryIn are compact_history's arguments.
type CompactHistoryIn struct {
	Request       any    `json:"request" jsonschema:"the model request body as a JSON object (OpenAI Chat Completions, Anthropic Messages or OpenAI Responses), or that JSON as a string (then kept byte for byte; an object is re-encoded with sorted keys)"`
	ContextWindow int    `json:"context_window,omitempty" jsonschema:"context window in tokens to fit into (default: the model's, from the request's model); window is the older name"`
	Window        int    `json:"window,omitempty" jsonschema:"the older name of context_window"`
	Budget        int    `json:"budget,omitempty" jsonschema:"token budget of the whole request, if smaller than the window minus the reply reserve"`
	Model         string `json:"model,omitempty" jsonschema:"model, when the request names none"`
	SessionID     string `json:"session_id,omitempty" jsonschema:"session id that scopes the stored originals (default: derived from the conversation); rehydrate needs it; session is the older name"`
	Session       string `json:"session,omitempty" jsonschema:"the older name of session_id"`
	Smart         bool   `json:"smart,omitempty" jsonschema:"use Smart Context (condense old tool outputs behind references, keep protocol data exact) instead of fitting the window by pruning"`
}

// CompactHistoryOut is compact_history's structured result.
type CompactHistoryOut struct {
	Session string `json:"session" jsonschema:"the session id to pass to rehydrate for references in the compacted request"`
	Report  any    `json:"report" jsonschema:"tokens before and after and each decision"`
}

// RehydrateIn are rehydrate's arguments.
type RehydrateIn struct {
	SessionID string `json:"session_id,omitempty" jsonschema:"session id the reference belongs to (compact_history's session, or the proxy's X-Ctxd-Session); required; session is the older name"`
	Session   string `json:"session,omitempty" jsonschema:"the older name of session_id"`
	Reference string `json:"reference" jsonschema:"the sha256 (at least 12 hex digits) or the whole [ctxd:ref sha256=...] marker"`
	Lines     string `json:"lines,omitempty" jsonschema:"line range a-b, a- (to the end) or a; default all"`
}

// RehydrateOut is rehydrate's structured result (the text is the text
// content).
type RehydrateOut struct {
	SHA256     string `json:"sha256"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line"`
	TotalLines int    `json:"total_lines"`
	Bytes      int    `json:"bytes"`
}

// addTools registers each tool's handler under its name in tools.json,
// which holds what clients are told of it (title, description,
// annotations, schemas).
func (s *Server) addTools() {
	addTool(s, "build_context", s.buildContext)
	addTool(s, "find_symbol", s.findSymbol)
	addTool(s, "outline", s.outline)
	addTool(s, "count_tokens", s.countTokens)
	addTool(s, "compact_history", s.compactHistory)
	addTool(s, "rehydrate", s.rehydrate)
}

// content is a tool result's content item; ctxd's tools answer text.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolResult is a tools/call result: text content for the model,
// structured content for programs, or a tool error (isError) whose text
// says what to change.
type toolResult struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

func textResult(text string) *toolResult {
	return &toolResult{Content: []content{{Type: "text", Text: text}}}
}

func toolError(msg string) *toolResult {
	return &toolResult{Content: []content{{Type: "text", Text: msg}}, IsError: true}
}

// toolHandler is a tool: its decoded arguments in, its text result and
// structured result out.
type toolHandler[In, Out any] func(ctx context.Context, c *call, in In) (*toolResult, Out, error)

// addTool registers h as the tool name. Its arguments are validated
// against the tool's published input schema (the SDK's servers do the
// same: a wrong type, a member the schema does not have and a missing
// required member are "validating \"arguments\"" tool errors), decoded
// once into In, and h's error becomes a tool error a model can act on.
// Each call is logged (name, duration, outcome; never arguments).
func addTool[In, Out any](s *Server, name string, h toolHandler[In, Out]) {
	sch := s.schemas[name]
	if sch == nil {
		panic(fmt.Sprintf("mcp: tool %s is not in tools.json", name))
	}
	s.tools[name] = func(ctx context.Context, c *call, args raw) *toolResult {
		if args.IsNull() {
			args = raw("{}")
		}
		if err := sch.validate(args, ""); err != nil {
			return toolError(`validating "arguments": ` + err.Error())
		}
		var in In
		if err := json.Unmarshal(args, &in); err != nil {
			return toolError(`validating "arguments": ` + err.Error())
		}
		start := time.Now()
		res, out, err := h(ctx, c, in)
		if err != nil {
			s.log.Debug("tool call failed", "tool", name, "took", time.Since(start), "err", err)
			return toolError(toolMessage(name, err))
		}
		s.log.Debug("tool call", "tool", name, "took", time.Since(start))
		if res == nil {
			res = &toolResult{Content: []content{}}
		}
		res.StructuredContent = out
		return res
	}
}

// toolMessage is the text of a tool error: the cause without Go's
// sentinel suffixes, and a hint when the fix is a known one.
func toolMessage(tool string, err error) string {
	msg := tool + ": " + ctxd.MessageOf(tool, err)
	switch {
	case errors.Is(err, ctxd.ErrNotFound) && tool == "rehydrate":
		msg += " (check the session id and the hash: compact_history's session, or the proxy's X-Ctxd-Session)"
	case errors.Is(err, ctxd.ErrOutsideRoot):
		msg += " (give a path inside the repository root, relative to it)"
	case errors.Is(err, artifacts.ErrCorrupt):
		msg += " (the stored copy does not verify against its hash; it cannot be read back)"
	case errors.As(err, new(*request.SyntaxError)):
		// Its message says where the body stops being JSON and what
		// was expected.
	case errors.Is(err, request.ErrNotRequest):
		// The message names the formats; what to send is one line.
		msg += ` (send its "messages" array, or "input" for Responses)`
	case errors.As(err, new(*treesitter.TimeoutError)):
		// A parse's own time limit, which the message explains: not the
		// call's cancellation.
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		msg += " (the call was cancelled)"
	}
	return msg
}

// progress sends progress notifications for a call whose client asked
// for them (a progress token); it is a no-op otherwise.
type progress struct {
	c     *call
	n     float64
	total float64
}

func newProgress(c *call, total float64) *progress {
	return &progress{c: c, total: total}
}

// progressParams are notifications/progress's params.
type progressParams struct {
	ProgressToken raw     `json:"progressToken"`
	Progress      float64 `json:"progress"`
	Total         float64 `json:"total,omitempty"`
	Message       string  `json:"message,omitempty"`
}

func (p *progress) step(msg string) {
	if p.c == nil || p.c.token.IsNull() {
		return
	}
	p.n++
	// A failed notification (a client gone) does not fail the call.
	_ = p.c.ss.w.send(notification{JSONRPC: "2.0", Method: "notifications/progress", Params: progressParams{ProgressToken: p.c.token, Progress: p.n, Total: p.total, Message: msg}})
}

func (s *Server) buildContext(ctx context.Context, c *call, in BuildContextIn) (*toolResult, BuildContextOut, error) {
	var out BuildContextOut
	if strings.TrimSpace(in.Request) == "" {
		return nil, out, fmt.Errorf("request is empty: say what the user asked: %w", ctxd.ErrInvalidParams)
	}
	if in.Budget < 0 {
		return nil, out, fmt.Errorf("budget must be positive or omitted: %w", ctxd.ErrInvalidParams)
	}
	for _, f := range in.OpenFiles {
		if err := s.inRoot(f.Path); err != nil {
			return nil, out, err
		}
	}
	p := newProgress(c, 4)
	env, err := s.prompt(ctx, in, p.step)
	if err != nil {
		return nil, out, err
	}
	out = BuildContextOut{
		TaskType: string(env.TaskType), Model: env.Model.Name, Budget: env.Context.Budget, TokensUsed: env.Context.TokensUsed,
		PromptTokens: env.PromptTokens, Chunks: []ChunkSummary{}, Skipped: len(env.Context.Skipped), Warnings: env.Warnings,
	}
	for _, c := range env.Context.Chunks {
		view := string(c.Shown())
		out.Chunks = append(out.Chunks, ChunkSummary{Source: c.Source, Type: string(c.ChunkType), View: view, Tokens: c.Tokens, Score: c.Score})
	}
	res := textResult(env.Prompt)
	// The warnings in a text block of their own, after the prompt: an
	// agent whose client shows it the text only never learned that a file
	// it named was skipped (missing, binary, secret).
	var notes []string
	for _, w := range env.Warnings {
		if !engine.IsEstimateNotice(w) {
			notes = append(notes, "- "+w)
		}
	}
	if len(notes) > 0 {
		res.Content = append(res.Content, content{Type: "text", Text: "ctxd warnings:\n" + strings.Join(notes, "\n") + "\n"})
	}
	return res, out, nil
}

func (s *Server) findSymbol(ctx context.Context, c *call, in FindSymbolIn) (*toolResult, *engine.SymbolResult, error) {
	p := newProgress(c, 2)
	p.step("searching the workspace")
	res, err := s.symbols(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	p.step("done")
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: %d definition(s), %d reference(s)", in.Name, len(res.Definitions), len(res.References))
	if res.Truncated {
		sb.WriteString(" (more references left out; raise max_references)")
	}
	if note := res.ReceiverNote(); note != "" {
		sb.WriteString(" (" + note + ")")
	}
	sb.WriteString("\n")
	for _, d := range res.Definitions {
		fmt.Fprintln(&sb, d)
	}
	for _, r := range res.References {
		fmt.Fprintln(&sb, r)
	}
	if len(res.Definitions) == 0 && len(res.References) == 0 {
		sb.WriteString("nothing found: check the spelling, or try the bare name without a qualifier\n")
	}
	return textResult(sb.String()), res, nil
}

func (s *Server) outline(ctx context.Context, _ *call, in OutlineIn) (*toolResult, OutlineOut, error) {
	var out OutlineOut
	if err := s.inRoot(in.Path); err != nil {
		return nil, out, err
	}
	res, err := s.outlineFile(ctx, in)
	if err != nil {
		return nil, out, err
	}
	out = OutlineOut{Path: res.Path, Language: res.Language, Symbols: res.Symbols, Imports: res.Imports, Redactions: res.Redactions}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s (%s): %d symbols\n", res.Path, res.Language, len(res.Symbols))
	for _, sym := range res.Symbols {
		fmt.Fprintf(&sb, "%s%d-%d %s %s\n", strings.Repeat("  ", sym.Depth), sym.Start, sym.End, sym.Kind, sym.Signature)
	}
	if res.View != nil {
		out.Level, out.View = string(res.View.Level), res.View.Text
		fmt.Fprintf(&sb, "\n--- view at level %s ---\n%s", res.View.Level, res.View.Text)
	}
	return textResult(sb.String()), out, nil
}

func (s *Server) countTokens(ctx context.Context, _ *call, in CountTokensIn) (*toolResult, CountTokensOut, error) {
	res, err := s.count(ctx, in)
	if err != nil {
		return nil, CountTokensOut{}, err
	}
	out := CountTokensOut{Tokens: res.Tokens, Exact: res.Exact, Encoding: res.Encoding, Model: res.Model.Name}
	how := "exact"
	if !res.Exact {
		how = "estimated"
	}
	text := fmt.Sprintf("%s (%s, %s encoding, model %s)", ctxd.Plural(res.Tokens, "token", "tokens"), how, res.Encoding, res.Model.Name)
	return textResult(text), out, nil
}

func (s *Server) compactHistory(ctx context.Context, c *call, in CompactHistoryIn) (*toolResult, CompactHistoryOut, error) {
	var out CompactHistoryOut
	if err := ctxd.OneName("context_window", "window", in.ContextWindow, &in.Window); err != nil {
		return nil, out, err
	}
	if err := ctxd.OneName("session_id", "session", in.SessionID, &in.Session); err != nil {
		return nil, out, err
	}
	var body []byte
	switch r := in.Request.(type) {
	case nil:
		return nil, out, fmt.Errorf("request is required: the model request body as a JSON object: %w", ctxd.ErrInvalidParams)
	case string:
		body = []byte(r)
	default:
		b, err := json.Marshal(r)
		if err != nil {
			return nil, out, fmt.Errorf("encode request: %w", err)
		}
		body = b
	}
	if err := request.CheckJSON(body); err != nil {
		return nil, out, err
	}
	if err := checkItems(body); err != nil {
		return nil, out, err
	}
	if in.Window < 0 || in.Budget < 0 {
		return nil, out, fmt.Errorf("context_window and budget must be positive or omitted: %w", ctxd.ErrInvalidParams)
	}
	if in.Session != "" {
		if err := ctxd.ValidSessionID(in.Session); err != nil {
			return nil, out, err
		}
	}
	p := newProgress(c, 2)
	p.step("compacting")
	compacted, session, report, err := s.compact(ctx, body, in)
	if err != nil {
		return nil, out, err
	}
	p.step("done")
	out = CompactHistoryOut{Session: session, Report: report}
	return textResult(string(compacted)), out, nil
}

func (s *Server) rehydrate(ctx context.Context, _ *call, in RehydrateIn) (*toolResult, RehydrateOut, error) {
	var out RehydrateOut
	if err := ctxd.OneName("session_id", "session", in.SessionID, &in.Session); err != nil {
		return nil, out, err
	}
	if strings.TrimSpace(in.Session) == "" {
		return nil, out, fmt.Errorf("session_id is required: compact_history's session, or the proxy's X-Ctxd-Session: %w", ctxd.ErrInvalidParams)
	}
	hash := strings.TrimSpace(in.Reference)
	if strings.Contains(hash, request.MarkerOpen) {
		ms := request.ParseMarkers(hash)
		if len(ms) == 0 {
			return nil, out, fmt.Errorf("reference %q has no sha256: %w", in.Reference, ctxd.ErrInvalidParams)
		}
		hash = ms[0].Hash
	}
	hash = strings.TrimPrefix(hash, "sha256=")
	var start, end int
	if in.Lines != "" {
		var err error
		if start, end, err = artifacts.ParseLines(in.Lines); err != nil {
			return nil, out, err
		}
	}
	l, err := s.rehydrateRef(ctx, in.Session, hash, start, end)
	if err != nil {
		return nil, out, err
	}
	out = RehydrateOut{SHA256: l.Hash, StartLine: l.StartLine, EndLine: l.EndLine, TotalLines: l.TotalLines, Bytes: l.Bytes}
	return textResult(l.Text), out, nil
}

// checkItems refuses a request whose messages (or Responses input) are
// not message objects ({"messages":[1,2]}): the proxy passes such items
// through for the provider to judge, but compact_history is asked to
// compact and would answer success for a request it could not read.
func checkItems(body []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return fmt.Errorf("request must be a JSON object (a model request body): %w", ctxd.ErrInvalidParams)
	}
	for _, key := range []string{"messages", "input"} {
		raw, ok := top[key]
		if !ok {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			if key == "input" && bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
				return nil // Responses: input may be one string
			}
			return fmt.Errorf("request %q must be an array of message objects: %w", key, ctxd.ErrInvalidParams)
		}
		for i, it := range items {
			if t := bytes.TrimSpace(it); len(t) == 0 || t[0] != '{' {
				return fmt.Errorf("request %s[%d] is %.40s, not a message object ({\"role\": ..., \"content\": ...}): %w", key, i, t, ctxd.ErrInvalidParams)
			}
		}
		return nil
	}
	return fmt.Errorf("request has no \"messages\" (Chat Completions, Anthropic Messages) or \"input\" (Responses): %w", ctxd.ErrInvalidParams)
}
