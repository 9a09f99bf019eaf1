// Package ctxd holds the core types every part of the context daemon
// exchanges: the task envelope, context chunks, priorities, task types and
// token budgets. It imports nothing else of ours, so every other package may
// import it (imports point down: see docs/architecture.md).
//
// The JSON form of these types is the wire format of ctx/buildPrompt and of
// `ctxd prompt --json`; field names are stable snake_case and documented in
// docs/protocol.md.
package ctxd

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TaskType classifies what the user wants done; gathering, scoring and the
// prompt's closing instructions all depend on it.
type TaskType string

// The task types of the design.
const (
	TaskImplement TaskType = "implement"
	TaskDebug     TaskType = "debug"
	TaskRefactor  TaskType = "refactor"
	TaskTest      TaskType = "test"
	TaskAnalyze   TaskType = "analyze"
)

// TaskTypes lists every [TaskType] in a stable order.
var TaskTypes = []TaskType{TaskImplement, TaskDebug, TaskRefactor, TaskTest, TaskAnalyze}

// ParseTaskType accepts a task type name in any case. The empty string and
// "auto" return "" and no error: the caller detects the type from the request.
func ParseTaskType(s string) (TaskType, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, t := range TaskTypes {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown task type %q (want one of implement, debug, refactor, test, analyze, auto): %w", s, ErrInvalidParams)
}

// Where a task type came from, reported as Envelope.TaskTypeSource.
const (
	SourceExplicit = "explicit" // given by the caller
	SourceDetected = "detected" // inferred from the request text
	SourceDefault  = "default"  // nothing matched; the default applies
)

// Priority is a chunk's base importance. Its numeric value is the base of
// the score formula.
type Priority int

// The priority levels of the design, with their base scores.
const (
	PriorityMinimal  Priority = 100
	PriorityLow      Priority = 200
	PriorityMedium   Priority = 500
	PriorityHigh     Priority = 800
	PriorityCritical Priority = 1000
)

var priorityNames = map[Priority]string{
	PriorityCritical: "critical",
	PriorityHigh:     "high",
	PriorityMedium:   "medium",
	PriorityLow:      "low",
	PriorityMinimal:  "minimal",
}

// String returns the level's name, or the number for a value between levels.
func (p Priority) String() string {
	if n, ok := priorityNames[p]; ok {
		return n
	}
	return strconv.Itoa(int(p))
}

// MarshalJSON writes a level's name ("high"), so envelopes read well (the
// numeric base is in the chunk's score breakdown), and a value between
// levels as its number.
func (p Priority) MarshalJSON() ([]byte, error) {
	if n, ok := priorityNames[p]; ok {
		return json.Marshal(n)
	}
	return json.Marshal(int(p))
}

// UnmarshalJSON accepts a level name in any case or a number.
func (p *Priority) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err == nil {
		*p = Priority(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("priority: want a name or a number, got %s", b)
	}
	// Older writers put a value between levels as its number in a string.
	if n, err := strconv.Atoi(s); err == nil {
		*p = Priority(n)
		return nil
	}
	for v, name := range priorityNames {
		if strings.EqualFold(name, s) {
			*p = v
			return nil
		}
	}
	return fmt.Errorf("priority: unknown level %q", s)
}

// ChunkType says what a chunk holds.
type ChunkType string

// The chunk types.
const (
	ChunkFile       ChunkType = "file"
	ChunkStructure  ChunkType = "structure"
	ChunkDependency ChunkType = "dependency"
	ChunkHistory    ChunkType = "history"
	ChunkDiff       ChunkType = "diff"
)

// View is how much of a file a chunk, an outline or a pack shows: one
// name set for the envelope, ctx/outline, the CLI, MCP and session
// listings. A chunk shown whole has no truncation (its field is empty);
// where a view is named, it is ViewFull.
type View string

// The views, from whole to smallest. ViewMiddle is the
// language-agnostic head-and-tail cut.
const (
	ViewFull       View = "full"
	ViewBodies     View = "bodies"
	ViewSignatures View = "signatures"
	ViewOutline    View = "outline"
	// ViewFocus is the outline with the focused functions (at the cursor,
	// the selection, stack frames, named in the request) whole;
	// ViewFocusOnly is those functions with the outline lines of what
	// they use.
	ViewFocus     View = "focus"
	ViewFocusOnly View = "focus-only"
	ViewMiddle    View = "middle"
)

// viewAliases are the names a whole view had before there was one name
// set: ctx/outline's truncation said "none", --explain and eval "whole".
// They are accepted as input.
var viewAliases = map[string]View{"none": ViewFull, "whole": ViewFull}

// ParseView accepts a view name in any case, or an old alias of full
// ("none", "whole").
func ParseView(s string) (View, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if v, ok := viewAliases[s]; ok {
		return v, nil
	}
	for _, v := range []View{ViewFull, ViewBodies, ViewSignatures, ViewOutline, ViewFocus, ViewFocusOnly, ViewMiddle} {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown view %q (want full, bodies, signatures, outline, focus, focus-only or middle): %w", s, ErrInvalidParams)
}

// Shown names the view a chunk is shown at: its truncation, or ViewFull.
func (c Chunk) Shown() View {
	if c.Truncation == "" {
		return ViewFull
	}
	return c.Truncation
}

// DefScore is a definition's rank for a request: its first line, its
// score (BM25 of the request's words over the definitions of its file)
// and why (the request's words it holds).
type DefScore struct {
	Line  int      `json:"line"`
	Score float64  `json:"score"`
	Why   []string `json:"why,omitempty"`
	// Global is the definition's score among the definitions of every
	// file the request looked into (one term weighting over all of
	// them), over the best such score of the request: 1 for the
	// request's best definition, whatever its file. The fitter values a
	// focus step by it.
	Global float64 `json:"global,omitempty"`
}

// LineRange is an inclusive, 1-based range of lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// InRanges reports whether line l is in one of rs (a chunk's Elided: the
// line is hidden).
func InRanges(rs []LineRange, l int) bool {
	return slices.ContainsFunc(rs, func(r LineRange) bool { return r.Start <= l && l <= r.End })
}

// ScoreTerm is one term of a chunk's score, with the reason it applies.
type ScoreTerm struct {
	Term  string  `json:"term"`
	Value float64 `json:"value"`
	// Share is the term's part of the score: Value over the sum of the
	// terms' absolute values (so shares of a breakdown add up to 1 in
	// absolute value, penalties counting negative).
	Share  float64 `json:"share,omitempty"`
	Reason string  `json:"reason,omitempty"`
}

// Score term names, stable for clients that display breakdowns.
const (
	TermPriority  = "priority_base"
	TermTask      = "task_relevance"
	TermRecency   = "recency"
	TermMention   = "mention"
	TermRelevance = "relevance"
	TermRank      = "lexical_rank"
	TermGraph     = "graph_rank"
	TermCoChange  = "cochange_rank"
	TermMessage   = "message_rank"
	TermSize      = "size_penalty"
	TermCustom    = "custom"
)

// Facts are what the gatherer learned about a chunk's source; the
// prioritizer turns them into a score. They travel in the envelope so a
// client can see why a chunk was gathered.
type Facts struct {
	// Reasons says why the chunk was gathered ("open file", "pattern src/**",
	// "named in stack trace", "test of foo.go", "imports foo", "lexical match").
	Reasons []string `json:"reasons,omitempty"`
	// Role is the chunk's part in the task: target, error, test, dependent,
	// related; empty when none applies.
	Role     string `json:"role,omitempty"`
	Language string `json:"language,omitempty"`
	Size     int64  `json:"size,omitempty"`
	Lines    int    `json:"lines,omitempty"`
	// ModTime is the file's modification time (disk), zero for buffers.
	ModTime time.Time `json:"mod_time,omitzero"`
	// CommitRank is the position, among the recent commits gathered, of the
	// newest commit that changed the file: 1 = the latest commit, 2 = the one
	// before; 0 when the file did not change in the recent history.
	CommitRank int `json:"commit_rank,omitempty"`
	// Dirty reports uncommitted changes to the file.
	Dirty bool `json:"dirty,omitempty"`
	// Open reports a file open in the editor; Unsaved that its text came
	// from the editor rather than disk.
	Open    bool `json:"open,omitempty"`
	Unsaved bool `json:"unsaved,omitempty"`
	// Redacted counts the secrets replaced by "[REDACTED rule]" markers
	// in Content (listed in the envelope's redactions).
	Redacted int `json:"redacted,omitempty"`
	// InvalidUTF8 reports that the text was not valid UTF-8: each invalid
	// byte sequence was replaced by U+FFFD.
	InvalidUTF8 bool `json:"invalid_utf8,omitempty"`
	// Minified reports minified or very-long-line text (a bundled
	// .min.js, a one-line JSON blob): Content is a one-line stub saying
	// so, and Size and Lines are the file's.
	Minified bool `json:"minified,omitempty"`
	// Cursor is the open file's cursor line (1-based), 0 when unknown.
	Cursor int `json:"cursor,omitempty"`
	// Selection is the selected range of an open file, and SelectedText
	// its text (at most 80 lines), which the prompt shows beside a view
	// that may have cut it.
	Selection    *LineRange `json:"selection,omitempty"`
	SelectedText string     `json:"selected_text,omitempty"`
	// Mentioned reports that the request names this source (path or base
	// name); MentionedSymbols lists identifiers of the request found in it
	// (that it defines, once its symbols are read). UsedSymbols lists
	// those it only uses, which no gathered file defines (a library's or
	// the language's: ValueError).
	Mentioned        bool     `json:"mentioned,omitempty"`
	MentionedSymbols []string `json:"mentioned_symbols,omitempty"`
	UsedSymbols      []string `json:"used_symbols,omitempty"`
	// InnermostFrame marks the file of the innermost stack frame inside
	// the workspace: where the error was raised.
	InnermostFrame bool `json:"innermost_frame,omitempty"`
	// ErrorLines are lines a stack trace or error text points at.
	ErrorLines []int `json:"error_lines,omitempty"`
	// FocusLines are the first lines of the functions of a large file
	// whose text matches the request's words best, when nothing else
	// (cursor, selection, error lines, named symbols) says which of its
	// functions matter: the focused views keep them whole.
	FocusLines []int `json:"focus_lines,omitempty"`
	// FocusDefs explains FocusLines, one per line in the same order (best
	// first): each definition's score against the request and the
	// request's words it holds. The fitter values a focus view by the
	// scores of the definitions it shows whole.
	FocusDefs []DefScore `json:"focus_defs,omitempty"`
	// DocSections reports a Markdown document whose focus lines are the
	// headings of the sections that answer a question about how to use
	// the project (query.Query.HowTo): its views show those sections.
	DocSections bool `json:"doc_sections,omitempty"`
	// RefLines are lines that use a name a refactoring request is about
	// (the call sites of a function being renamed): the focus views show
	// each in place, the bodies view keeps the function around it whole.
	RefLines []int `json:"ref_lines,omitempty"`
	// MatchLines are lines holding an identifier the request names (its
	// code words: snake_case, camelCase, calls, backquoted names): no
	// view elides them. The bodies and signatures views keep the function
	// around each whole, the focus views show each in place.
	MatchLines []int `json:"match_lines,omitempty"`
	// DeclLines are module-level lines (outside every function) holding a
	// word of the request: the focus views show each with the short
	// declaration, import group or statement it belongs to.
	DeclLines []int `json:"decl_lines,omitempty"`
	// Relevance is the lexical match of the source against the request,
	// normalized to 0..1 across the candidates of one request.
	Relevance float64 `json:"relevance,omitempty"`
	// LexicalShare is the source's lexical score over the best file's in
	// the same ranking (0..1; 1 for the best match). Relevance is capped
	// at 1 and many strong matches reach it; the share keeps BM25's
	// distances between them: a file matching several of the request's
	// rare words stays ahead of one matching a common word.
	LexicalShare float64 `json:"lexical_share,omitempty"`
	// LexicalRank is the source's 1-based place in the lexical ranking of
	// the whole workspace against the request (BM25 over path, content and
	// defined names, times the role prior); 0 when it did not match.
	LexicalRank int `json:"lexical_rank,omitempty"`
	// Lexical splits the lexical match by signal, when the source matched.
	Lexical *LexicalMatch `json:"lexical,omitempty"`
	// GraphRank is the source's 1-based place in a personalized PageRank
	// over the workspace's import and reference graph, seeded by the
	// request's files (best lexical matches, open files, stack frames,
	// uncommitted changes); 0 when the walk did not reach it.
	GraphRank int `json:"graph_rank,omitempty"`
	// CoChangeRank is the source's 1-based place among the files that
	// changed together with those seeds in recent commits; 0 when none.
	CoChangeRank int `json:"cochange_rank,omitempty"`
	// MessageRank is the source's 1-based place among the files that the
	// recent commits whose subjects share the request's words changed;
	// 0 when none.
	MessageRank int `json:"message_rank,omitempty"`
	// Test reports a test file or fixture.
	Test bool `json:"test,omitempty"`
	// Explicit reports a source the user named directly (open file or a
	// pattern that names it). Explicit chunks are never skipped for being
	// secret-like, since the user asked for them.
	Explicit bool `json:"explicit,omitempty"`
}

// Roles a gathered chunk can play in a task (Facts.Role).
const (
	RoleTarget    = "target"
	RoleError     = "error"
	RoleTest      = "test"
	RoleDependent = "dependent"
	RoleRelated   = "related"
)

// Chunk is one discrete unit of context: a file or part of one, the
// workspace structure, the dependency summary, git history or a diff.
type Chunk struct {
	// Source is a repo-relative slash path for files, or a name such as
	// "structure", "git:log", "git:diff", "deps".
	Source    string    `json:"source"`
	ChunkType ChunkType `json:"chunk_type"`
	Priority  Priority  `json:"priority"`
	// Score is the sum of ScoreBreakdown's values.
	Score          float64     `json:"score"`
	ScoreBreakdown []ScoreTerm `json:"score_breakdown,omitempty"`
	// Tokens is the count of Content with the envelope's encoding.
	Tokens int `json:"tokens"`
	// Truncated reports that Content is not the whole source; Truncation
	// names the level and Elided the original line ranges left out.
	Truncated  bool        `json:"truncated"`
	Truncation View        `json:"truncation,omitempty"`
	Elided     []LineRange `json:"elided,omitempty"`
	// OriginalTokens is the whole source's count when Truncated.
	OriginalTokens int `json:"original_tokens,omitempty"`
	// Hash is the SHA-256 (hex) of the whole source text, so a session can
	// tell whether a file changed since.
	Hash    string `json:"hash,omitempty"`
	Facts   Facts  `json:"facts"`
	Content string `json:"content"`
}

// Skipped records a chunk left out of the context and why.
type Skipped struct {
	Source string  `json:"source"`
	Reason string  `json:"reason"`
	Tokens int     `json:"tokens,omitempty"`
	Score  float64 `json:"score,omitempty"`
	// ScoreBreakdown is the chunk's score breakdown, as an included
	// chunk's, so a client can see why it ranked where it did.
	ScoreBreakdown []ScoreTerm `json:"score_breakdown,omitempty"`
}

// CompressedContext is the gathered context fitted into its budget.
type CompressedContext struct {
	Chunks     []Chunk `json:"chunks"`
	TokensUsed int     `json:"tokens_used"`
	Budget     int     `json:"budget"`
	// Utilization is TokensUsed / Budget (0 when Budget is 0).
	Utilization float64   `json:"utilization"`
	Skipped     []Skipped `json:"skipped"`
}

// Model describes the model a prompt is built for, and where that
// description came from.
type Model struct {
	Name          string `json:"name"`
	Provider      string `json:"provider,omitempty"`
	ContextWindow int    `json:"context_window"`
	MaxOutput     int    `json:"max_output,omitempty"`
	Encoding      string `json:"encoding"`
	// Source is where ContextWindow came from: "explicit", "registry" or
	// "fallback".
	Source string `json:"source"`
	// EstimatorConfidence is "exact" when Encoding is the model's real BPE,
	// "low" when counts are a calibrated estimate.
	EstimatorConfidence string `json:"estimator_confidence"`
	// CalibrationError is the measured relative error of the estimate, for
	// models without a public tokenizer (0 when exact).
	CalibrationError float64 `json:"calibration_error,omitempty"`
}

// Artifact is an output a task produced or touched (a file, a patch).
type Artifact struct {
	Type string `json:"type"`
	Path string `json:"path,omitempty"`
	Hash string `json:"hash,omitempty"`
}

// Tool describes a tool available to the model, passed through as given.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Stats are timings and counts of one pipeline run.
type Stats struct {
	ChunksGathered int   `json:"chunks_gathered"`
	ChunksIncluded int   `json:"chunks_included"`
	FilesScanned   int   `json:"files_scanned"`
	DurationMS     int64 `json:"duration_ms"`
}

// Envelope is the prompt-ready result of ctx/buildPrompt (TaskEnvelope in
// the design).
type Envelope struct {
	TaskType       TaskType          `json:"task_type"`
	TaskTypeSource string            `json:"task_type_source"`
	UserRequest    string            `json:"user_request"`
	OriginalInput  string            `json:"original_input,omitempty"`
	SessionID      string            `json:"session_id,omitempty"` // empty when nothing was recorded (ctxd prompt without --session)
	CreatedAt      time.Time         `json:"created_at"`
	Root           string            `json:"root"`
	Model          Model             `json:"model"`
	TokenBudget    Budget            `json:"token_budget"`
	Context        CompressedContext `json:"context"`
	Tools          []Tool            `json:"tools,omitempty"`
	Artifacts      []Artifact        `json:"artifacts,omitempty"`
	// Format is the prompt's format: markdown or xml.
	Format       Format   `json:"format"`
	Prompt       string   `json:"prompt"`
	PromptTokens int      `json:"prompt_tokens"`
	Warnings     []string `json:"warnings,omitempty"`
	// Redactions lists each secret found inside gathered text and
	// replaced by a marker; never the secret itself.
	Redactions []Redaction `json:"redactions,omitempty"`
	Stats      Stats       `json:"stats"`
}

// Redaction is one secret replaced in a chunk or the prompt: where (the
// chunk's source, "prompt" or a message; line 1-based within that text)
// and the rule that matched. It never holds the secret.
type Redaction struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Rule   string `json:"rule"`
}

// Format is the format a prompt is rendered in: [FormatMarkdown] or
// [FormatXML] (a pack adds json: pack.FormatJSON).
type Format string

// Prompt formats.
const (
	FormatMarkdown Format = "markdown"
	FormatXML      Format = "xml"
)

// ParseFormat validates a prompt format, in any case and with spaces
// around; "" means markdown. It is the one table of prompt formats: a
// pack's formats are these and json (pack.ParseFormat). The wire formats
// of model requests (compact/request.ParseFormat: chat, anthropic,
// responses) are another fact.
func ParseFormat(s string) (Format, error) {
	switch Format(strings.ToLower(strings.TrimSpace(s))) {
	case "", FormatMarkdown, "md":
		return FormatMarkdown, nil
	case FormatXML:
		return FormatXML, nil
	}
	return "", fmt.Errorf("unknown format %q (want markdown or xml): %w", s, ErrInvalidParams)
}

// OpenFile is a file open in the editor. Text, when set, is the buffer's
// unsaved content and wins over the file on disk.
type OpenFile struct {
	Path      string     `json:"path"`
	Line      int        `json:"line,omitempty"`
	Selection *LineRange `json:"selection,omitempty"`
	Text      *string    `json:"text,omitempty"`
}

// CheckPosition reports a cursor line or selection that names no line of
// any file: a negative line (0 is no cursor), a selection starting before
// line 1 or ending before it starts. A position past the file's end is a
// stale one, not a malformed one: gathering drops it with a warning.
func (o OpenFile) CheckPosition() error {
	if o.Line < 0 {
		return fmt.Errorf("line %d: line numbers start at 1; 0 or absent is no cursor: %w", o.Line, ErrInvalidParams)
	}
	if s := o.Selection; s != nil && (s.Start < 1 || s.End < s.Start) {
		return fmt.Errorf("selection start %d, end %d: want 1 <= start <= end, 1-based lines, end included: %w", s.Start, s.End, ErrInvalidParams)
	}
	return nil
}

// LexicalMatch is how a source matched a request lexically: the shares of
// its BM25 score from its path, its content and the names it defines, and
// the prior of its role (code 1; docs, changelogs, meta, generated and
// vendored files less) that multiplied the score.
type LexicalMatch struct {
	Path        float64 `json:"path"`
	Content     float64 `json:"content"`
	Definitions float64 `json:"definitions"`
	Role        string  `json:"role"`
	Prior       float64 `json:"prior"`
}

// Sentinel errors that callers branch on; server/ maps them to JSON-RPC
// codes in one table.
var (
	// ErrOutsideRoot: a path resolves outside the workspace root.
	ErrOutsideRoot = errors.New("path is outside the workspace")
	// ErrInvalidParams: a parameter has a bad value.
	ErrInvalidParams = errors.New("invalid params")
	// ErrNotFound: a named thing (file, session, checkpoint) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrOverBudget: something cannot fit the token budget even at its floor.
	ErrOverBudget = errors.New("over token budget")
)

// WholeMessage is an error whose own text says all a person needs (what
// is wrong, where, what was expected): [Message] prints it alone, without
// the operations it passed through ("compress messages: parse request:
// …"), which say nothing to the person who sent a malformed body.
type WholeMessage interface {
	error
	WholeMessage()
}

// Message returns err's text for a person: without the trailing sentinel
// text (": invalid params", ": over token budget") that marks the error's
// class for code, since the message before it already says what is wrong.
func Message(err error) string {
	m := err.Error()
	var whole WholeMessage
	if errors.As(err, &whole) {
		m = whole.Error()
	}
	for _, s := range []error{ErrInvalidParams, ErrOverBudget} {
		m = strings.TrimSuffix(m, ": "+s.Error())
	}
	return m
}

// MessageOf is Message without a leading "op: ": the engine's errors
// often start with the operation, and a door that names it already (the
// command, the method, the tool) would say it twice ("ctxd rehydrate:
// rehydrate: …").
func MessageOf(op string, err error) string {
	return strings.TrimPrefix(Message(err), op+": ")
}
