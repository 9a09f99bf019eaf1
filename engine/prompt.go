package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/par"
	"github.com/ctxd/ctxd/prioritize"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/secrets"
	"github.com/ctxd/ctxd/tokens"
)

// PromptRequest is the input of ctx/buildPrompt, ctx/gather and
// `ctxd prompt`. Its JSON names are the wire params (docs/protocol.md).
type PromptRequest struct {
	UserRequest   string          `json:"user_request"`
	TaskType      string          `json:"task_type,omitempty"`
	Model         string          `json:"model,omitempty"`
	ContextWindow int             `json:"context_window,omitempty"`
	TokenBudget   *BudgetRequest  `json:"token_budget,omitempty"`
	OpenFiles     []ctxd.OpenFile `json:"open_files,omitempty"`
	Patterns      []string        `json:"patterns,omitempty"`
	MaxFiles      int             `json:"max_files,omitempty"`
	Format        ctxd.Format     `json:"format,omitempty"`
	SessionID     string          `json:"session_id,omitempty"`
	Tools         []ctxd.Tool     `json:"tools,omitempty"`
	// RefuseSecretFiles: a secret file named in OpenFiles or Patterns is
	// skipped with a warning (gather.Request.RefuseSecretFiles). Not a
	// wire param: the MCP server sets it.
	RefuseSecretFiles bool `json:"-"`
	// Scored, when set, receives every gathered chunk once scored, in
	// score order, before the fitter chooses views (eval recall's
	// --features: the ranker's training data). Not a wire param; the
	// chunks are the request's own and must not be kept or changed.
	Scored func([]ctxd.Chunk) `json:"-"`
	// Fitting, when set, receives the fitter's input just before it
	// runs: the chunks in score order and its options, Views included
	// (scripts/fitalloc records them to run the fitter again with other
	// value constants). Not a wire param; the chunks are the request's
	// own and must not be kept or changed.
	Fitting func([]ctxd.Chunk, compress.Options) `json:"-"`
	// recordedParts: TokenBudget's parts are a checkpoint's resolved
	// budget, not the caller's, so they plan as a budget the caller did
	// not split (the request's spare share still goes to the context):
	// a resumed session rebuilds the context its build had.
	recordedParts bool
}

// BudgetRequest sets a token budget. Total alone is split by the shares
// (configured, or Shares here); a part given alone sets that part and the
// total follows; a total given with parts must equal their sum.
type BudgetRequest struct {
	Total       int          `json:"total,omitempty"`
	System      int          `json:"system,omitempty"`
	Context     int          `json:"context,omitempty"`
	UserRequest int          `json:"user_request,omitempty"`
	Response    int          `json:"response,omitempty"`
	Shares      *ctxd.Shares `json:"shares,omitempty"`
}

// Progress receives the stage a long request is in ("gathering",
// "scoring", "fitting", "assembling"); nil ignores it.
type Progress func(stage string)

// BuildPrompt runs the whole pipeline and returns the prompt-ready
// envelope.
func (e *Engine) BuildPrompt(ctx context.Context, req PromptRequest, progress Progress) (*ctxd.Envelope, error) {
	return e.run(ctx, req, progress, true)
}

// Gather runs the pipeline up to the fitted context: the envelope has no
// prompt.
func (e *Engine) Gather(ctx context.Context, req PromptRequest, progress Progress) (*ctxd.Envelope, error) {
	return e.run(ctx, req, progress, false)
}

func (e *Engine) run(ctx context.Context, req PromptRequest, progress Progress, assemble bool) (*ctxd.Envelope, error) {
	start := time.Now()
	defer e.Busy()()
	if progress == nil {
		progress = func(string) {}
	}
	// A CLI run's walk and git read start now, while the request is
	// planned (the token counter and its stored counts load meanwhile).
	e.ws.Prefetch(ctx, commitsParam(e.cfg.Gather.Commits))
	p, err := e.plan(req)
	if err != nil {
		return nil, err
	}
	r := &pass{e: e, req: req, p: p, env: p.env}
	defer r.done()
	progress("gathering")
	if err := r.gather(ctx); err != nil {
		return nil, err
	}
	progress("scoring")
	if err := r.view(ctx); err != nil {
		return nil, err
	}
	r.rank()
	progress("fitting")
	if err := r.fit(ctx); err != nil {
		return nil, err
	}
	if err := r.render(assemble, progress); err != nil {
		return nil, err
	}
	return r.say(ctx, start, assemble)
}

// pass is one request on its way through the stages of run: gather
// (candidates, redacted, their symbols matched), view (token counts, the
// lines in focus and the using lines), rank (scores), fit (views within
// the budget), render (the prompt, redacted again) and say (stats, log,
// checkpoint).
type pass struct {
	e   *Engine
	req PromptRequest
	p   *plan
	env *ctxd.Envelope

	res    *gather.Result
	chunks []ctxd.Chunk
	// sums carries the chunks' content hashes and symbol-index entries
	// through the stages.
	sums contentSums
	// sc redacts secrets; reds are the gathered chunks' redactions.
	sc     *secrets.Scanner
	reds   []ctxd.Redaction
	fitted ctxd.CompressedContext
	// docs are the documents a how-to shows by their sections
	// (docSections), by source.
	docs map[string]docFocus
	// gathered: the stages ran analyses whose facts the store keeps.
	gathered bool
}

// done ends a pass: what its analyses learned is saved (in the
// background, at most every Store.SaveEvery).
func (r *pass) done() {
	if r.gathered {
		r.e.store.Save()
	}
}

// gather collects the candidate chunks, redacts their secrets and matches
// the request's code names against their definitions.
func (r *pass) gather(ctx context.Context) error {
	e, p, env := r.e, r.p, r.env
	res, err := gather.Gather(ctx, e.ws, gather.Request{
		Query:             p.query,
		Task:              env.TaskType,
		Patterns:          r.req.Patterns,
		MaxFiles:          p.maxFiles,
		OpenFiles:         r.req.OpenFiles,
		Overlay:           e.buffers.Snapshot(),
		StructureDepth:    e.cfg.Gather.StructureDepth,
		Commits:           commitsParam(e.cfg.Gather.Commits),
		Depth:             max(e.cfg.Gather.Depth[string(env.TaskType)], p.contextBudget/depthTokens),
		ContextBudget:     p.contextBudget,
		RefuseSecretFiles: r.req.RefuseSecretFiles,
		Fusion:            e.fusion,
	})
	if err != nil {
		return err // the gather package's errors say "gather: …"
	}
	r.res, r.chunks, r.gathered = res, res.Chunks, true
	env.Warnings = append(env.Warnings, res.Warnings...)
	if r.sc, err = e.store.Secrets(); err != nil {
		return err
	}
	// Gathering hashed each file (its chunk's Hash): the stages below
	// take that hash instead of their own.
	r.sums = sumsOf(r.chunks)
	reds, warns, err := sanitizeChunks(r.sc, r.chunks, r.sums)
	if err != nil {
		return err
	}
	r.reds = reds
	env.Warnings = append(env.Warnings, warns...)
	e.matchSymbols(ctx, p.query, r.chunks, r.sums)
	return nil
}

// view counts each chunk's tokens and marks the lines a view keeps: the
// request's focus and the lines that use a name it asks about.
func (r *pass) view(ctx context.Context) error {
	if err := countChunks(ctx, r.p.counter, r.chunks); err != nil {
		return err
	}
	r.e.focusLines(ctx, r.p.query, r.env.TaskType, r.chunks, r.sums, r.res.Diff, r.p.contextBudget)
	refLines(r.env.TaskType, r.p.query, r.chunks)
	matchLines(r.p.query, r.chunks)
	r.e.declLines(ctx, r.p.query, r.chunks, r.sums)
	r.docs = docSections(r.p.query, r.chunks, r.p.counter)
	return nil
}

// rank scores the chunks, every term with its reason.
func (r *pass) rank() {
	prioritize.Score(r.chunks, prioritize.Options{
		Task:    r.env.TaskType,
		Boosts:  prioritize.BoostsFromMap(r.e.cfg.Priority),
		Commits: r.e.cfg.Gather.Commits,
		Fusion:  r.e.fusion,
		HowTo:   r.p.query.HowTo,
	})
	if r.req.Scored != nil {
		r.req.Scored(r.chunks)
	}
}

// fit chooses each chunk's view within the context budget.
func (r *pass) fit(ctx context.Context) error {
	env := r.env
	format := env.Format
	opts := compress.Options{
		Budget:  r.p.contextBudget,
		Counter: r.p.counter,
		Render:  func(c ctxd.Chunk) string { return prompt.Section(c, format) },
		AppendRender: func(dst []byte, c ctxd.Chunk) []byte {
			return prompt.AppendSection(dst, c, format)
		},
		Views: func(ctx context.Context, c *ctxd.Chunk) []compress.View {
			if d, ok := r.docs[c.Source]; ok {
				// A how-to's document: fewer of its sections.
				return d.views
			}
			return r.e.viewsSum(ctx, c, r.sums.of(c))
		},
		Task: env.TaskType,
	}
	if r.req.Fitting != nil {
		r.req.Fitting(r.chunks, opts)
	}
	fitted, err := compress.Fit(ctx, r.chunks, opts)
	if err != nil {
		return err
	}
	for i := range fitted.Chunks {
		if d, ok := r.docs[fitted.Chunks[i].Source]; ok {
			d.fixCut(&fitted.Chunks[i])
		}
	}
	r.fitted = fitted
	env.Context = fitted
	if len(fitted.Chunks) == 0 && len(fitted.Skipped) > 0 {
		// A prompt with no context at all is rarely what was meant: say
		// so where the person or agent looks (stderr for the CLI).
		env.Warnings = append(env.Warnings, fmt.Sprintf("no context fits the context budget of %d tokens: all %d gathered chunks were skipped; raise the budget", fitted.Budget, len(fitted.Skipped)))
	}
	for _, rel := range namedSecrets(r.p.query, r.e.root, fitted.Chunks) {
		env.Warnings = append(env.Warnings, namedSecretWarning(rel, r.req.RefuseSecretFiles))
	}
	return nil
}

// render redacts the fitted views and, when assemble, renders the prompt
// and redacts it.
func (r *pass) render(assemble bool, progress Progress) error {
	env, fitted := r.env, r.fitted
	// Views (truncation levels) render from the source text: redact the
	// fitted chunks again (a cache hit for unchanged content).
	more, _, err := sanitizeChunks(r.sc, fitted.Chunks, r.sums)
	if err != nil {
		return err
	}
	included := make(map[string]bool, len(fitted.Chunks))
	for _, c := range fitted.Chunks {
		included[c.Source] = true
	}
	for _, red := range r.reds {
		if included[red.Source] {
			env.Redactions = append(env.Redactions, red)
		}
	}
	env.Redactions = mergeRedactions(env.Redactions, more)
	sanitizeEnvelope(env)
	if !assemble {
		return nil
	}
	progress("assembling")
	env.Prompt = prompt.Build(env, r.p.query.AsksChange)
	var prs []ctxd.Redaction
	if env.Prompt, prs, err = redactText("prompt", env.Prompt); err != nil {
		return err
	}
	env.Redactions = mergeRedactions(env.Redactions, prs)
	env.PromptTokens = r.p.counter.Count(env.Prompt)
	return nil
}

// say fills the stats, logs the outcome and records the checkpoint of a
// session.
func (r *pass) say(ctx context.Context, start time.Time, assemble bool) (*ctxd.Envelope, error) {
	env, fitted := r.env, r.fitted
	env.Stats = ctxd.Stats{
		ChunksGathered: len(r.chunks),
		ChunksIncluded: len(fitted.Chunks),
		FilesScanned:   r.res.FilesScanned,
		DurationMS:     time.Since(start).Milliseconds(),
	}
	r.e.log.Info("context built",
		"task", env.TaskType, "model", env.Model.Name,
		"chunks_in", len(r.chunks), "chunks_out", len(fitted.Chunks),
		"tokens_used", fitted.TokensUsed, "budget", fitted.Budget,
		"utilization", fmt.Sprintf("%.3f", fitted.Utilization),
		"prompt_tokens", env.PromptTokens,
		"duration_ms", env.Stats.DurationMS)
	if err := r.e.recordCheckpoint(ctx, r.req, env, assemble); err != nil {
		return nil, err
	}
	return env, nil
}

// depthTokens scales how many related files gathering looks at with the
// budget: one per depthTokens of context, at least the configured depth. A
// 16k context has room for 20 files at a cheap view, and the fitter makes
// them present before upgrading any.
const depthTokens = 800

// plan is a validated request: the envelope's frame, the counter and the
// context budget.
type plan struct {
	env *ctxd.Envelope
	// query is the request, read once: every stage asks it.
	query         *query.Query
	counter       tokens.Counter
	contextBudget int
	maxFiles      int
}

// settings are a request's resolved model, counter, budget and format.
type settings struct {
	model   ctxd.Model
	counter tokens.Counter
	budget  ctxd.Budget
	// partsSet: the caller set the budget's parts, which are then kept
	// as set (no share moves between them).
	partsSet bool
	// shares split the budget's total (configured, or the request's).
	shares   ctxd.Shares
	format   ctxd.Format
	warnings []string
}

// resolve validates the request-independent params (model, window,
// budget, format) against the configuration.
func (e *Engine) resolve(req PromptRequest) (*settings, error) {
	format := req.Format
	if format == "" {
		format = e.cfg.Format
	}
	format, err := ctxd.ParseFormat(string(format))
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	if req.ContextWindow < 0 {
		return nil, fmt.Errorf("context_window must not be negative, got %d: %w", req.ContextWindow, ctxd.ErrInvalidParams)
	}
	modelName := req.Model
	if modelName == "" {
		modelName = e.cfg.Model
	}
	window := req.ContextWindow
	if window == 0 {
		window = e.cfg.ContextWindow
	}
	counter, model := tokens.ForModel(modelName, window)
	budget, partsSet, err := e.budget(req.TokenBudget, model)
	if err != nil {
		return nil, err
	}
	shares := e.cfg.Budget.Shares
	if req.TokenBudget != nil && req.TokenBudget.Shares != nil {
		shares = *req.TokenBudget.Shares
	}
	s := &settings{model: model, counter: counter, budget: budget, partsSet: partsSet && !req.recordedParts, shares: shares, format: format}
	if f := e.configChanged(); f != "" {
		s.warnings = append(s.warnings, fmt.Sprintf("%s changed after this daemon read its configuration: restart the daemon to apply it (this request used the configuration it started with)", f))
	}
	if model.Source == tokens.SourceFallback {
		w := fmt.Sprintf("unknown model %q: fell back to the default window of %d tokens and the %s encoding (set context_window or --context-window for the real one; ctxd models lists the known names)", modelName, model.ContextWindow, tokens.FallbackEncoding)
		if names := tokens.Suggest(modelName, 4); len(names) > 0 {
			w += "; did you mean " + strings.Join(names, ", ") + "?"
		}
		s.warnings = append(s.warnings, w)
	} else if rest := tokens.PrefixRest(modelName); !tokens.SnapshotSuffix(rest) {
		// A dated snapshot (gpt-4o-2024-08-06) is the model; another
		// suffix may be a typo the prefix match would hide.
		w := fmt.Sprintf("model %q is not in the registry: read as %s, whose name it starts with (%d-token window)", modelName, model.Name, model.ContextWindow)
		s.warnings = append(s.warnings, w)
	}
	if model.EstimatorConfidence != tokens.ConfidenceExact && model.CalibrationError >= estimateWarnError {
		s.warnings = append(s.warnings, fmt.Sprintf("token counts for %s %s (its tokenizer is not public): on ctxd's calibration texts they never under-count but over-count by up to %.0f%%, so the context may fill less of the budget than it could", model.Name, estimateNoticeWords, 100*model.CalibrationError))
	}
	if model.ContextWindow > 0 && budget.Total > model.ContextWindow {
		s.warnings = append(s.warnings, fmt.Sprintf("token budget %d exceeds the %s context window of %d tokens; budget reduced to the window", budget.Total, model.Name, model.ContextWindow))
		s.budget = capResponse(ctxd.NewBudget(model.ContextWindow, shares), model.MaxOutput)
	}
	return s, nil
}

// capResponse gives the context what a budget's shares reserve for the
// response beyond the model's output limit (a 128k gpt-4o budget's 30% is
// 38,400 tokens; the model writes at most 16,384): reserved, it would only
// be wasted. A budget whose parts the caller set is left as set.
func capResponse(b ctxd.Budget, maxOutput int) ctxd.Budget {
	if maxOutput > 0 && b.Response > maxOutput {
		b.Context += b.Response - maxOutput
		b.Response = maxOutput
	}
	return b
}

// estimateWarnError is the calibration error from which a prompt warns
// that its counts are loose estimates.
const estimateWarnError = 0.2

// Describe returns the model, budget and format a request would get,
// without gathering (initialize reports the connection's defaults so).
func (e *Engine) Describe(req PromptRequest) (*ctxd.Envelope, error) {
	s, err := e.resolve(req)
	if err != nil {
		return nil, err
	}
	return &ctxd.Envelope{Model: s.model, TokenBudget: s.budget, Format: s.format, Root: e.root, Warnings: s.warnings}, nil
}

// estimateNoticeWords mark the warning that a model's token counts are
// estimates (IsEstimateNotice).
const estimateNoticeWords = "are estimates"

// IsEstimateNotice reports the warning that a model's token counts are
// estimates: the same on every request for the model, so the CLI shows it
// with --explain only (it stays in the envelope's warnings).
func IsEstimateNotice(w string) bool {
	return strings.HasPrefix(w, "token counts for ") && strings.Contains(w, " "+estimateNoticeWords+" ")
}

// plan validates req and resolves the task, the model, the budget and the
// request's own share, before gathering (its only I/O is the first load of
// the persisted token counts).
// MaxUserRequestBytes bounds a request's text (the user's words, at every
// door: CLI, daemon, MCP build_context): reading it is linear, but every
// identifier and path in it becomes a lookup, and an 8 MB request cost
// 26 s of CPU (BENCHMARKS.md, "h28bounds"). Long text belongs in a file
// the request names.
const MaxUserRequestBytes = 256 << 10

// RequestTailRatio is the share of a cut request kept from its tail (the
// rest is its head), at every cut: the CLI's byte cut of a piped log over
// [MaxUserRequestBytes] and the token cut of a request longer than its
// share and half the context's. A log's head says what ran and its tail
// how it ended (the failure and the summary): half each.
const RequestTailRatio = 0.5

func (e *Engine) plan(req PromptRequest) (*plan, error) {
	if strings.TrimSpace(req.UserRequest) == "" {
		return nil, fmt.Errorf("user_request is required: say what the task is: %w", ctxd.ErrInvalidParams)
	}
	if n := len(req.UserRequest); n > MaxUserRequestBytes {
		return nil, fmt.Errorf("user_request is %d bytes, over the %d a request may be: say the task in words and name long text (a log, a file) with open files or patterns: %w", n, MaxUserRequestBytes, ctxd.ErrInvalidParams)
	}
	explicit, err := ctxd.ParseTaskType(req.TaskType)
	if err != nil {
		return nil, fmt.Errorf("task_type: %w", err)
	}
	if req.MaxFiles < 0 {
		return nil, fmt.Errorf("max_files must not be negative, got %d: %w", req.MaxFiles, ctxd.ErrInvalidParams)
	}
	for i, of := range req.OpenFiles {
		if err := of.CheckPosition(); err != nil {
			return nil, fmt.Errorf("open_files[%d] %s: %w", i, of.Path, err)
		}
	}
	maxFiles := req.MaxFiles
	if maxFiles == 0 {
		maxFiles = e.cfg.Gather.MaxFiles
	}
	s, err := e.resolve(req)
	if err != nil {
		return nil, err
	}
	counter, model, budget, format := s.counter, s.model, s.budget, s.format
	counter = tokens.Stored(counter, e.store.Counts())
	warnings := s.warnings

	q := query.Parse(req.UserRequest)
	task, taskSource := q.ResolveTask(explicit)
	sessionID := req.SessionID
	if sessionID == "" {
		sessionID = newSessionID()
	}
	env := &ctxd.Envelope{
		TaskType:       task,
		TaskTypeSource: taskSource,
		UserRequest:    req.UserRequest,
		SessionID:      sessionID,
		CreatedAt:      time.Now().UTC(),
		Root:           e.root,
		Model:          model,
		TokenBudget:    budget,
		Tools:          req.Tools,
		Format:         format,
		Warnings:       warnings,
	}

	// The request and its instructions take the request share; a request
	// longer than its share borrows from the context share, at most half
	// of it, and one longer than that is cut in the middle to fit (the
	// original stays in original_input): a pasted log took the whole
	// context before, and the prompt held the log and no code. The query
	// was read from the whole request, so its frames and paths still
	// gather their files.
	//
	// A request shorter than its share leaves the rest to the context
	// (a commit-sized request takes 50 of an 8,000 budget's 800), as the
	// response's share beyond the model's output limit does: reserved, it
	// would only be wasted. The prompt (request and context) still fits
	// the request and context shares together. A budget whose parts the
	// caller set is kept as set.
	contextBudget := budget.Context
	reqTokens := counter.Count(prompt.Request(req.UserRequest, task, q.AsksChange, format))
	if spare := budget.UserRequest - reqTokens - counter.Count(prompt.Frame(format)); spare > 0 && !s.partsSet {
		contextBudget += spare
	}
	if over := reqTokens - budget.UserRequest; over > 0 {
		if over <= contextBudget/2 {
			contextBudget -= over
			env.Warnings = append(env.Warnings, fmt.Sprintf("the request takes %d tokens, %d over its share; the context budget shrinks to %d", reqTokens, over, contextBudget))
		} else {
			own := counter.Count(req.UserRequest)
			borrow := contextBudget / 2
			room := budget.UserRequest + borrow - (reqTokens - own)
			if room < min(own, minRequestTokens) {
				// Half the context is too little for even a cut of the
				// request: it borrows what the whole request needs, up to
				// the whole context share.
				borrow = min(contextBudget, over)
				room = budget.UserRequest + borrow - (reqTokens - own)
			}
			if room < min(own, minRequestTokens) {
				// Too small for even a cut of the request: an empty or
				// near-empty request is no prompt.
				return nil, fmt.Errorf("token budget too small for the request: it takes %d tokens with its heading, and the request and context parts hold %d of the total %d; %s: %w",
					reqTokens, budget.UserRequest+budget.Context, budget.Total, minBudgetHint(s, reqTokens-own+min(own, minRequestTokens)), ctxd.ErrOverBudget)
			}
			cut := tokens.Middle(counter, req.UserRequest, max(room, 0), tokens.MiddleOptions{TailRatio: RequestTailRatio})
			contextBudget -= borrow
			switch {
			case !cut.Truncated:
				// A short request at a tiny total: whole, on the
				// context's tokens.
				env.Warnings = append(env.Warnings, fmt.Sprintf("the request takes %d tokens, %d over its share; the context budget shrinks to %d", reqTokens, over, contextBudget))
			case contextBudget == 0:
				env.OriginalInput, env.UserRequest = req.UserRequest, cut.Text
				env.Warnings = append(env.Warnings, fmt.Sprintf("the request takes %d tokens, more than the request and context shares together (%d); its middle was cut and no context fits", reqTokens, budget.UserRequest+budget.Context))
			default:
				env.OriginalInput, env.UserRequest = req.UserRequest, cut.Text
				env.Warnings = append(env.Warnings, fmt.Sprintf("the request takes %d tokens, more than its share and half the context's (%d); its middle was cut to fit, and the context keeps %d", reqTokens, budget.UserRequest+borrow, contextBudget))
			}
		}
	}
	return &plan{env: env, query: q, counter: counter, contextBudget: contextBudget, maxFiles: maxFiles}, nil
}

// minRequestTokens is the least of a request a prompt keeps when the
// request is longer than its budget: below it (and below the whole
// request) the request is refused with ctxd.ErrOverBudget, not cut to
// nothing.
const minRequestTokens = 32

// minBudgetHint says the smallest total budget whose request and
// context parts hold need tokens at the request's shares (parts the
// caller set are not split by shares: it names the sum they need).
func minBudgetHint(s *settings, need int) string {
	frac := s.shares.Request + s.shares.Context
	if s.partsSet || frac <= 0 {
		return fmt.Sprintf("give the request and context parts at least %d tokens together", need)
	}
	t := max(int(float64(need-4)/frac), 1)
	for b := ctxd.NewBudget(t, s.shares); b.UserRequest+b.Context < need; b = ctxd.NewBudget(t, s.shares) {
		t++
	}
	return fmt.Sprintf("the minimum total budget for it at these shares is %d", t)
}

// budget resolves the request's budget against the configuration. When
// neither sets a total, it is relative to the model's context window
// (ctxd.DefaultBudgetFor).
func (e *Engine) budget(br *BudgetRequest, model ctxd.Model) (b ctxd.Budget, parts bool, err error) {
	shares := e.cfg.Budget.Shares
	total := e.cfg.BudgetTotal(model.ContextWindow)
	if br == nil {
		return capResponse(ctxd.NewBudget(total, shares), model.MaxOutput), false, nil
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"total", br.Total}, {"system", br.System}, {"context", br.Context}, {"user_request", br.UserRequest}, {"response", br.Response}} {
		if f.v < 0 {
			return ctxd.Budget{}, false, fmt.Errorf("token_budget.%s must not be negative, got %d: %w", f.name, f.v, ctxd.ErrInvalidParams)
		}
	}
	if br.Shares != nil {
		if err := br.Shares.Validate(); err != nil {
			return ctxd.Budget{}, false, fmt.Errorf("token_budget.shares: %w", err)
		}
		shares = *br.Shares
	}
	if br.Total > 0 {
		total = br.Total
	}
	b = ctxd.NewBudget(total, shares)
	for _, p := range []struct {
		dst *int
		v   int
	}{{&b.System, br.System}, {&b.Context, br.Context}, {&b.UserRequest, br.UserRequest}, {&b.Response, br.Response}} {
		if p.v > 0 {
			*p.dst = p.v
			parts = true
		}
	}
	if !parts {
		b = capResponse(b, model.MaxOutput)
	}
	if parts {
		sum := b.System + b.Context + b.UserRequest + b.Response
		if br.Total > 0 && sum != br.Total {
			return ctxd.Budget{}, false, fmt.Errorf("token_budget parts sum to %d but total is %d: give the total or the parts, or make them agree: %w", sum, br.Total, ctxd.ErrInvalidParams)
		}
		b.Total = sum
	}
	if err := b.Validate(); err != nil {
		return ctxd.Budget{}, false, fmt.Errorf("token_budget: %w", err)
	}
	return b, parts, nil
}

// countChunks sets each chunk's Tokens to its content's count, on all
// cores: counting is most of the CPU time of a cold request.
func countChunks(ctx context.Context, c tokens.Counter, cs []ctxd.Chunk) error {
	if err := par.Each(ctx, len(cs), func(i int) { cs[i].Tokens = c.Count(cs[i].Content) }); err != nil {
		return fmt.Errorf("count tokens: %w", err)
	}
	return nil
}

// commitsParam maps the configured commit count to gather's: configured 0
// means no history, which gather spells as a negative count (its 0 is the
// default).
func commitsParam(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func newSessionID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "s-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
