package smart

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compress/request"
	"github.com/ctxd/ctxd/tokens"
)

// Rollout modes, as telemetry names them.
const (
	RolloutExact     = "exact"
	RolloutShadow    = "shadow"
	RolloutCanaryOut = "canary_out"
	RolloutOptimize  = "optimize"
)

// Segment decisions, as reports name them.
const (
	// DecisionKept: the segment is in the output byte for byte.
	DecisionKept = "kept"
	// DecisionRewritten: the segment was transformed.
	DecisionRewritten = "rewritten"
	// DecisionRejected: a transform was possible but not worth it (or
	// not needed); the segment is kept.
	DecisionRejected = "rejected"
	// DecisionRolledBack: the transform failed validation; the segment is
	// kept as it was.
	DecisionRolledBack = "rolled_back"
	// DecisionUnresolved: the segment depends on an artifact that is
	// missing or does not verify; it is kept as it was.
	DecisionUnresolved = "unresolved"
)

// Optimizer rewrites model requests under the Smart Context safety
// envelope. It keeps caches by content (analyses, views, token counts)
// and a little state per session (turns seen, static context, tokens
// sent) in memory; artifacts are in its Store. It is safe for concurrent
// use.
type Optimizer struct {
	opts  Options
	log   *slog.Logger
	texts *textCache

	// estMu guards est.
	estMu sync.Mutex
	est   map[string]*request.Estimator

	// sessMu guards sessions.
	sessMu   sync.Mutex
	sessions map[string]*sessionState

	// refsMu guards refs: hash prefixes resolved per scope.
	refsMu sync.Mutex
	refs   map[string]string
}

// sessionState is what the optimizer remembers of a session between
// calls (shadow and canary-out calls change none of it).
type sessionState struct {
	turns      int
	staticHash string
	rewritten  bool
	totalInput int
}

// maxSessions bounds the session states kept; when full they start over
// (the state only feeds telemetry and the static-context delta).
const maxSessions = 4096

// New returns an optimizer.
func New(opts Options) *Optimizer {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Optimizer{opts: opts, log: log, texts: newTextCache(), est: map[string]*request.Estimator{}, sessions: map[string]*sessionState{}, refs: map[string]string{}}
}

// Result is what [Optimizer.Optimize] returns.
type Result struct {
	// Body is the request to send: the rewritten request, or the
	// original bytes (exact, shadow, canary-out, fallback, no savings).
	Body []byte
	// Report says what was decided and why.
	Report *Report
}

// Report is an optimize call's report: the telemetry record plus the
// decision on every payload segment. It never holds request text.
type Report struct {
	Format   request.Format `json:"format,omitempty"`
	Model    string         `json:"model,omitempty"`
	Encoding string         `json:"encoding,omitempty"`
	// Session is the artifact scope: the call's session id, or one
	// derived from the conversation (SessionDerived) when it gave none.
	Session        string `json:"session_id,omitempty"`
	SessionDerived bool   `json:"session_derived,omitempty"`
	// Applied reports that Body differs from the input.
	Applied bool `json:"applied"`
	// Fits reports estimated_tokens_after <= effective_usable_context_tokens.
	Fits bool `json:"fits"`
	// OverheadMicros is the call's wall time in microseconds.
	OverheadMicros int64 `json:"rewrite_overhead_us"`
	Telemetry
	// Classes counts every segment of the request by class.
	Classes map[request.Class]int `json:"classes,omitempty"`
	// Segments has one decision per payload segment (tool outputs,
	// injected notices), in request order.
	Segments []Decision `json:"segments,omitempty"`
	// Unresolved lists artifact references that did not resolve.
	Unresolved []Unresolved `json:"unresolved,omitempty"`
	// Artifacts lists the artifacts the output refers to.
	Artifacts []ArtifactUse `json:"artifacts,omitempty"`
}

// Decision is what happened to one payload segment.
type Decision struct {
	Item         int                 `json:"item"`
	Seg          int                 `json:"seg"`
	Kind         request.SegmentKind `json:"kind"`
	Class        request.Class       `json:"class"`
	Transform    string              `json:"transform,omitempty"`
	Decision     string              `json:"decision"`
	Reason       string              `json:"reason"`
	TokensBefore int                 `json:"tokens_before"`
	TokensAfter  int                 `json:"tokens_after"`
	// SHA256 is the full hash of the text a reference stands for.
	SHA256 string `json:"sha256,omitempty"`
}

// Unresolved is a reference that did not resolve.
type Unresolved struct {
	Item   int    `json:"item"`
	Seg    int    `json:"seg"`
	SHA256 string `json:"sha256"`
	Reason string `json:"reason"`
}

// ArtifactUse is an artifact the output refers to.
type ArtifactUse struct {
	artifacts.Ref
	// Status is created, exists or repaired; "planned" in shadow mode.
	Status string `json:"status"`
}

// Optimize rewrites a request (Chat, Anthropic or Responses) under the
// Smart Context safety envelope and returns the request to send with a
// report; one telemetry record is logged per call.
//
// Exact mode returns body itself, untouched. Otherwise the request is
// parsed (a body that is not a request is an error), every segment is
// classified, and payload segments (tool outputs, injected notices) get
// candidate transforms under the budget's policy; shadow and canary-out
// calls stop before writing anything and return body. Live calls store
// the artifacts their references need, emit the rewrite and validate it
// against the original; a failing segment is rolled back alone, a
// failure that touches protocol, continuation or structure returns the
// original bytes, and so does a rewrite that saves nothing.
func (o *Optimizer) Optimize(ctx context.Context, body []byte, c Call) (*Result, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("optimize request: %w", err)
	}
	mode := c.Mode
	if mode == "" {
		mode = ModeOptimize
	}
	if _, err := ParseMode(string(mode)); err != nil {
		return nil, fmt.Errorf("optimize request: %w", err)
	}
	pct := -1
	if o.opts.Rollout.Canary {
		pct = min(max(o.opts.Rollout.CanaryPercent, 0), 100)
	}
	rep := &Report{Telemetry: Telemetry{
		BodyBytesBefore: len(body), BodyBytesAfter: len(body), RewriteRatioPercent: 100,
		RolloutCanaryPercent: 100, TaskCompleted: "unknown", PolicyReasons: []string{},
		TransformedSegmentCounts: map[string]int{},
	}}
	if pct >= 0 {
		rep.RolloutCanaryPercent = pct
	}
	applyFeedback(&rep.Telemetry, c.Feedback)
	res := &Result{Body: body, Report: rep}
	if mode == ModeExact {
		rep.RolloutMode, rep.RolloutReason = RolloutExact, "exact_mode_requested"
		rep.RolloutCanaryBucket = -1
		o.finish(ctx, rep, start)
		return res, nil
	}
	req, err := request.Parse(body, c.Format)
	if err != nil {
		return nil, fmt.Errorf("optimize request: %w", err)
	}
	scope := c.Session
	if scope == "" {
		scope, rep.SessionDerived = deriveScope(req), true
	}
	rep.Session, rep.Format = scope, req.Format
	rep.RolloutCanaryBucket = canaryBucket(scope)
	live := true
	switch {
	case mode == ModeShadow:
		live = false
		rep.RolloutMode, rep.RolloutReason = RolloutShadow, "shadow_requested"
	case o.opts.Rollout.Shadow:
		live = false
		rep.RolloutMode, rep.RolloutReason = RolloutShadow, "shadow_env"
	case pct >= 0 && rep.RolloutCanaryBucket >= pct:
		rep.RolloutMode, rep.RolloutReason = RolloutCanaryOut, "rollout_canary_out"
	case pct >= 0:
		rep.RolloutMode, rep.RolloutReason = RolloutOptimize, "rollout_canary_in"
	default:
		rep.RolloutMode, rep.RolloutReason = RolloutOptimize, "optimize"
	}
	name := c.Model
	if name == "" {
		name = req.Model
	}
	if name == "" {
		name = o.opts.DefaultModel
	}
	b, err := resolveBudget(name, c)
	if err != nil {
		return nil, fmt.Errorf("optimize request: %w", err)
	}
	r := &run{o: o, ctx: ctx, c: c, req: req, scope: scope, live: live, b: b, rep: rep, est: o.estimator(b, req.Format),
		hashFails: map[string]bool{}, missingReq: map[string]bool{}}
	r.before = r.est.Request(req)
	b.setPressure(r.before, c.ObservedInputTokens)
	r.b = b
	rep.Model, rep.Encoding = b.model.Name, b.counter.Encoding()
	r.setBudgetTelemetry()
	rep.EstimatedTokensBefore, rep.EstimatedTokensAfter = r.before, r.before
	if rep.RolloutMode == RolloutCanaryOut {
		rep.Fits = r.before <= b.usable
		o.finish(ctx, rep, start)
		return res, nil
	}
	out, err := r.optimize()
	if err != nil {
		return nil, err
	}
	if live && out != nil {
		res.Body, rep.Applied = out, true
	}
	o.finish(ctx, rep, start)
	return res, nil
}

// finish stamps the overhead and logs the record.
func (o *Optimizer) finish(ctx context.Context, rep *Report, start time.Time) {
	rep.OverheadMicros = time.Since(start).Microseconds()
	rep.Telemetry.log(ctx, o.log, slog.String("session_id", rep.Session), slog.String("format", string(rep.Format)), slog.Int64("rewrite_overhead_us", rep.OverheadMicros))
}

func applyFeedback(t *Telemetry, f Feedback) {
	t.UpstreamContextErrors = f.UpstreamContextErrors
	t.PreviousResponseNotFound = f.PreviousResponseNotFound
	t.AdditionalTurnsBefore = f.AdditionalTurnsBeforeCompletion
	if f.TaskCompleted != "" {
		t.TaskCompleted = f.TaskCompleted
	}
}

// deriveScope names the scope of a request that gives no session: a hash
// of its format and first two items (the system prompt and the first
// request), which stay the same across the turns of one conversation.
func deriveScope(req *request.Request) string {
	h := sha256.New()
	h.Write([]byte(req.Format))
	for i, it := range req.Items {
		if i == 2 {
			break
		}
		h.Write([]byte{0})
		h.Write(it.Raw)
	}
	for _, f := range req.Fixed {
		if f.Kind == request.SegText {
			h.Write([]byte{1})
			h.Write([]byte(f.Text))
		}
	}
	return "conv-" + hex.EncodeToString(h.Sum(nil)[:12])
}

// canaryBucket places a session in one of 100 buckets by a stable hash
// of its id; a canary of N% rewrites buckets 0..N-1.
func canaryBucket(session string) int {
	sum := sha256.Sum256([]byte("ctxd canary\x00" + session))
	return int(binary.BigEndian.Uint64(sum[:8]) % 100)
}

// CanaryBucket returns the canary bucket (0-99) of a session id.
func CanaryBucket(session string) int { return canaryBucket(session) }

func (o *Optimizer) estimator(b budget, f request.Format) *request.Estimator {
	rule := imageRule(b.model, f)
	key := b.counter.Encoding() + "|" + string(rule)
	o.estMu.Lock()
	defer o.estMu.Unlock()
	e := o.est[key]
	if e == nil {
		e = request.NewEstimator(b.counter, rule)
		o.est[key] = e
	}
	return e
}

// imageRule picks the provider's image rule (as the pruner does).
func imageRule(m ctxd.Model, f request.Format) request.ImageRule {
	switch m.Provider {
	case tokens.ProviderAnthropic:
		return request.ImageAnthropic
	case tokens.ProviderGoogle:
		return request.ImageGemini
	case tokens.ProviderOpenAI:
		return request.ImageOpenAI
	}
	if f == request.FormatAnthropic {
		return request.ImageAnthropic
	}
	return request.ImageOpenAI
}

// session returns a copy of a session's state.
func (o *Optimizer) session(scope string) sessionState {
	o.sessMu.Lock()
	defer o.sessMu.Unlock()
	if s := o.sessions[scope]; s != nil {
		return *s
	}
	return sessionState{}
}

func (o *Optimizer) setSession(scope string, s sessionState) {
	o.sessMu.Lock()
	defer o.sessMu.Unlock()
	if _, ok := o.sessions[scope]; !ok && len(o.sessions) >= maxSessions {
		clear(o.sessions)
	}
	o.sessions[scope] = &s
}

// resolveRef expands a marker's hash prefix in a scope, caching what it
// finds (artifacts are immutable; eviction is caught by Verify).
func (o *Optimizer) resolveRef(ctx context.Context, scope, prefix string) (string, error) {
	if o.opts.Store == nil {
		return "", fmt.Errorf("no artifact store: %w", ctxd.ErrNotFound)
	}
	key := scope + "/" + prefix
	o.refsMu.Lock()
	full, ok := o.refs[key]
	o.refsMu.Unlock()
	if ok {
		return full, nil
	}
	full, err := o.opts.Store.Resolve(ctx, scope, prefix)
	if err != nil {
		return "", err
	}
	o.refsMu.Lock()
	if len(o.refs) >= maxCached {
		clear(o.refs)
	}
	o.refs[key] = full
	o.refsMu.Unlock()
	return full, nil
}

// Rehydrate returns lines start..end (1-based, inclusive; 0, 0 for all)
// of the artifact a reference names, from the session's scope, verified
// against its hash: ctx/rehydrate and `ctxd rehydrate`.
func Rehydrate(ctx context.Context, store *artifacts.Store, session, hash string, start, end int) (*artifacts.Lines, error) {
	if err := artifacts.ValidSession(session); err != nil {
		return nil, fmt.Errorf("rehydrate: %w", err)
	}
	l, err := store.Lines(ctx, session, hash, start, end)
	if err != nil {
		return nil, fmt.Errorf("rehydrate: %w", err)
	}
	return l, nil
}

// cand is one payload segment and what the run decided for it.
type cand struct {
	ref   request.SegRef
	seg   *request.Segment
	in    *info
	key   textKey
	class request.Class
	// transform and text are the candidate rewrite ("" when none).
	transform string
	text      string
	after     int
	alloc     int
	// artifact is the full hash of the text the rewrite refers to ("" for
	// lossless rewrites).
	artifact string
	decision string
	reason   string
	// dupOf is the item a duplicate points at (-1 for cross-turn).
	dupOf     int
	repeat    bool // the duplicate answers the same call as its anchor
	rehydrate []byte
	repo      int // repository-state lines a view kept
	status    string
}

func (c *cand) selected() bool { return c.decision == DecisionRewritten }

// run is one optimize call.
type run struct {
	o      *Optimizer
	ctx    context.Context
	c      Call
	req    *request.Request
	scope  string
	live   bool
	b      budget
	rep    *Report
	est    *request.Estimator
	before int

	calls      map[string]callInfo
	latestText string
	exact      map[int]bool
	cands      []*cand
	unresolved []Unresolved
	stored     map[string]ArtifactUse
	hashFails  map[string]bool // artifacts found corrupt
	missingReq map[string]bool // asked-for artifacts that did not resolve
	keptStored int             // outputs kept whole but stored (continued requests)
}

type callInfo struct {
	item int
	name string
	args string
}

func (r *run) setBudgetTelemetry() {
	b, t := r.b, &r.rep.Telemetry
	t.ModelContextWindowTokens = b.window
	t.ModelContextWindowSource = b.windowSource
	t.ObservedContextTokens = r.c.ObservedInputTokens
	t.PressureBasisPoints = b.pressureBP
	t.PressureBand = b.band
	t.EstimatorConfidence = b.model.EstimatorConfidence
	t.EffectiveUsableTokens = b.usable
	t.AbsoluteSafetyFloor = b.safetyFloor
	t.BudgetMode = b.mode
	t.PolicyReasons = append([]string{}, b.reasons...)
	t.AvailableTokens = max(0, b.usable-r.before)
}

// optimize runs the pipeline: index, select, store, emit and validate.
// A nil output means the original request stands.
func (r *run) optimize() ([]byte, error) {
	r.index()
	r.quality()
	sess := r.o.session(r.scope)
	static := r.staticHash()
	if sess.staticHash != "" && sess.staticHash != static {
		r.rep.StaticContextDeltas++
	}

	pol := policies[r.b.mode]
	r.selectAll(pol)
	if r.estimateAfter() > r.b.usable && r.b.mode != ModeEmergency {
		r.rep.PolicyReasons = append(r.rep.PolicyReasons, "escalated_to_emergency_over_usable_window")
		r.rep.BudgetMode = ModeEmergency
		r.selectAll(policies[ModeEmergency])
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	if r.live && r.o.opts.Store != nil {
		r.storeArtifacts()
	} else {
		r.planArtifacts()
	}
	out, after := r.emitValidated()
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	r.finishCounts(out, after)
	if r.live {
		sess.turns++
		sess.staticHash = static
		sess.totalInput += r.rep.EstimatedTokensAfter
		if r.rep.SelectedCandidateCount > 0 && r.rep.FullRequestFallbackCount == 0 {
			sess.rewritten = true
		}
		r.o.setSession(r.scope, sess)
		r.rep.FinalTotalInputTokens = sess.totalInput
	} else {
		r.rep.FinalTotalInputTokens = sess.totalInput + r.rep.EstimatedTokensAfter
	}
	return out, nil
}

// staticHash hashes what every turn sends as instructions: the fixed
// parts and the first system or developer message.
func (r *run) staticHash() string {
	h := sha256.New()
	for _, f := range r.req.Fixed {
		h.Write([]byte(f.Text))
		h.Write([]byte{0})
	}
	for _, it := range r.req.Items {
		if it.Role == "system" || it.Role == "developer" {
			h.Write(it.Raw)
			break
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// index finds the calls, the latest turn's text and the caller's exact
// items.
func (r *run) index() {
	req := r.req
	r.calls = map[string]callInfo{}
	r.exact = map[int]bool{}
	for _, i := range r.c.ExactItems {
		r.exact[i] = true
	}
	latestUser := -1
	for i, it := range req.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind == request.SegToolCall && s.CallID != "" {
				if _, dup := r.calls[s.CallID]; !dup {
					r.calls[s.CallID] = callInfo{item: i, name: s.Name, args: s.Text}
				}
			}
		}
		if it.Role == "user" && !it.Notice && it.Kind != request.KindSummary && hasUserText(it) {
			latestUser = i
		}
	}
	// The latest turn: the latest user request, what the assistant said
	// and called since, and the assistant message just before it.
	var sb strings.Builder
	from := max(latestUser, 0)
	for i := from - 1; i >= 0; i-- {
		if req.Items[i].Role == "assistant" {
			from = i
			break
		}
	}
	for _, it := range req.Items[from:] {
		if it.Role != "user" && it.Role != "assistant" && it.Kind != request.KindToolCall {
			continue
		}
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind == request.SegText || s.Kind == request.SegToolCall {
				sb.WriteString(s.Text)
				sb.WriteByte('\n')
			}
		}
	}
	r.latestText = sb.String()
}

func hasUserText(it *request.Item) bool {
	for i := range it.Segments {
		if k := it.Segments[i].Kind; k == request.SegText || k == request.SegImage {
			return true
		}
	}
	return false
}

// Sizes below which a text is not worth a transform.
const (
	minPayloadTokens = 48
	minNoticeTokens  = 64
)

// payloadValue reports a segment value a rewrite may replace with a
// string: a string, or an array of text parts only (an array with images,
// files or anything else is left alone).
func (r *run) payloadValue(s *request.Segment) bool {
	if s.Value.Len() == 0 || len(s.Images) > 0 {
		return false
	}
	v := r.req.Body[s.Value.Start:s.Value.End]
	switch v[0] {
	case '"':
		return true
	case '[':
		var parts []map[string]json.RawMessage
		if json.Unmarshal(v, &parts) != nil {
			return false
		}
		for _, p := range parts {
			var t string
			if json.Unmarshal(p["type"], &t) != nil {
				return false
			}
			switch t {
			case "text", "input_text", "output_text":
			default:
				return false
			}
		}
		return true
	}
	return false
}

// selectAll classifies every payload segment and chooses its transform
// under pol.
func (r *run) selectAll(pol policy) {
	req := r.req
	r.cands = r.cands[:0]
	var outputs []*cand
	for i, it := range req.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			switch {
			case s.Kind == request.SegToolResult:
			case s.Kind == request.SegText && it.Notice:
			default:
				continue
			}
			c := &cand{ref: request.SegRef{Item: i, Seg: j}, seg: s, class: s.Class, dupOf: -1, decision: DecisionKept}
			c.key = r.o.texts.key(s.Text)
			c.in = r.o.texts.info(c.key, s.Text)
			r.cands = append(r.cands, c)
			if s.Kind == request.SegToolResult {
				outputs = append(outputs, c)
			}
		}
	}
	r.selectOutputs(outputs, pol)
	r.selectNotices(pol)
}

// selectOutputs decides the tool outputs, oldest first (a duplicate's
// anchor is decided before it).
func (r *run) selectOutputs(outputs []*cand, pol policy) {
	first := map[string]*cand{}
	continuation := r.continuation()
	for k, c := range outputs {
		s := c.seg
		fromEnd := len(outputs) - 1 - k
		switch {
		case r.exact[c.ref.Item]:
			c.class, c.reason = request.ClassProtocolExact, "marked exact by the caller"
			continue
		case hasMarker(s.Text):
			r.inputRefs(c)
			continue
		case s.Class == request.ClassRehydratableExact:
			c.reason = "carries a condensed-content marker"
			continue
		case !r.payloadValue(s):
			c.class, c.reason = request.ClassLosslessTransformable, "not a plain text value (images or other parts)"
			continue
		case s.Tokens < minPayloadTokens:
			c.reason = "small"
			continue
		}
		if a, ok := first[c.in.hash]; ok {
			if verbatim(a) || fromEnd >= pol.keepRecent {
				r.duplicate(c, a)
				r.choose(c, pol)
				continue
			}
		} else {
			first[c.in.hash] = c
		}
		if continuation && r.o.opts.Store != nil {
			if _, err := r.o.opts.Store.Verify(r.ctx, r.scope, c.in.hash); err == nil {
				r.crossTurn(c)
				r.choose(c, pol)
				continue
			}
		}
		isErr := s.IsError || c.in.isError
		switch {
		case fromEnd < pol.criticalRecent && isErr:
			c.class, c.reason = request.ClassCriticalExact, "error output of the latest turns"
			continue
		case c.in.isDiff && r.referred(c.in.paths):
			c.class, c.reason = request.ClassCriticalExact, "diff the latest turn refers to"
			continue
		case c.in.hasBlob:
			c.class = request.ClassLosslessTransformable
			r.setView(c, TransformBlob, func() (string, bool) { return blobView(s.Text, c.in.hash) }, view{}, s.Tokens)
			if c.transform != "" {
				c.artifact = c.in.hash
				r.choose(c, pol)
				continue
			}
		}
		switch {
		case fromEnd < pol.keepRecent && s.Tokens > pol.largeRecent:
			c.class = request.ClassRehydratableExact
			v := view{head: 30, tail: 15, chars: pol.refAlloc * 3}
			r.setView(c, TransformReference, func() (string, bool) { return condensedView(s.Text, c.in.hash, v) }, v, pol.refAlloc)
			c.artifact = c.in.hash
			c.reason = "large recent output: preview and reference"
		case fromEnd < pol.keepRecent:
			c.class = request.ClassLosslessTransformable
			if c.in.noisy {
				r.setView(c, TransformLossless, func() (string, bool) { return losslessView(s.Text) }, view{}, s.Tokens)
				c.reason = "recent output: terminal noise removed"
			} else {
				c.reason = "recent output"
			}
		case r.readLike(s):
			c.class = request.ClassRehydratableExact
			v := view{head: 6, tail: 0, chars: pol.condenseAlloc * 3}
			r.setView(c, TransformReference, func() (string, bool) { return condensedView(s.Text, c.in.hash, v) }, v, pol.condenseAlloc)
			c.artifact = c.in.hash
			c.reason = "older file read: head and reference"
		default:
			c.class = request.ClassCondensable
			v := view{head: 8, tail: 6, chars: pol.condenseAlloc * 3}
			r.setView(c, TransformCondense, func() (string, bool) { return condensedView(s.Text, c.in.hash, v) }, v, pol.condenseAlloc)
			c.artifact = c.in.hash
			c.reason = "older output: head, critical lines, tail and reference"
		}
		if c.artifact != "" && r.o.opts.Store == nil {
			// No store to keep the whole text: only a lossless rewrite.
			c.transform, c.text, c.artifact = "", "", ""
			c.reason += "; no artifact store"
		}
		if c.transform == "" && c.in.noisy {
			r.setView(c, TransformLossless, func() (string, bool) { return losslessView(s.Text) }, view{}, s.Tokens)
			c.artifact = ""
		}
		if c.transform != TransformLossless && c.transform != "" {
			c.repo = c.in.repo
		}
		r.choose(c, pol)
	}
}

// verbatim reports an anchor whose content stays readable in the output.
func verbatim(a *cand) bool {
	return !a.selected() || a.transform == TransformLossless
}

// continuation reports a request that continues server-side state
// (previous_response_id): the model has seen the earlier turns, so an
// output identical to one it saw there can be a reference.
func (r *run) continuation() bool {
	return r.req.Format == request.FormatResponses && strings.Contains(string(r.topLevel()), `"previous_response_id"`)
}

// topLevel returns the body outside the items array.
func (r *run) topLevel() []byte {
	if len(r.req.Items) == 0 {
		return r.req.Body
	}
	b := r.req.Body
	first, last := r.req.Items[0].Span, r.req.Items[len(r.req.Items)-1].Span
	out := make([]byte, 0, first.Start+len(b)-last.End)
	out = append(out, b[:first.Start]...)
	return append(out, b[last.End:]...)
}

func (r *run) duplicate(c, anchor *cand) {
	c.class, c.transform, c.dupOf = request.ClassDroppableDuplicate, TransformDuplicate, anchor.ref.Item
	where := fmt.Sprintf("message %d", anchor.ref.Item)
	if id := anchor.seg.CallID; id != "" {
		where = fmt.Sprintf("call %s (message %d)", id, anchor.ref.Item)
		if a, b := r.calls[id], r.calls[c.seg.CallID]; a.name != "" && a.name == b.name && a.args == b.args {
			c.repeat = true
		}
	}
	c.text = marker(MarkerDup, c.in.hash, c.in.bytes, c.in.lines, "identical to the output of "+where)
	c.after = r.segTokens(c.seg, c.text)
	c.alloc = c.after
	c.artifact = c.in.hash
	c.reason = "same output as earlier in the request"
}

func (r *run) crossTurn(c *cand) {
	c.class, c.transform = request.ClassDroppableDuplicate, TransformDuplicate
	c.text = marker(MarkerDup, c.in.hash, c.in.bytes, c.in.lines, "identical to an output of an earlier turn of this conversation")
	c.after = r.segTokens(c.seg, c.text)
	c.alloc = c.after
	c.artifact = c.in.hash
	c.reason = "same output as in an earlier turn (continued with previous_response_id)"
}

// setView builds (or finds cached) a view of c's text and sets it as the
// candidate when it builds.
func (r *run) setView(c *cand, transform string, build func() (string, bool), v view, alloc int) {
	k := viewKey{text: c.key, transform: transform, v: v, encoding: r.b.counter.Encoding()}
	res := r.o.texts.view(k, build, func(t string) int { return r.segTokens(c.seg, t) })
	if !res.ok {
		return
	}
	c.transform, c.text, c.after, c.alloc = transform, res.text, res.tokens, alloc
}

// segTokens counts a segment as it would be with text.
func (r *run) segTokens(s *request.Segment, text string) int {
	return r.est.Segment(&request.Segment{Kind: s.Kind, Name: s.Name, Text: text})
}

// choose accepts a candidate that saves enough and fits its allocation.
func (r *run) choose(c *cand, pol policy) {
	switch {
	case c.transform == "":
		return
	case c.transform == TransformRehydrate:
		c.decision = DecisionRewritten
		return
	case r.o.opts.Store == nil && c.artifact != "":
		c.decision, c.reason = DecisionRejected, "no artifact store for the reference"
	case c.seg.Tokens-c.after < pol.minSaving:
		c.decision, c.reason = DecisionRejected, fmt.Sprintf("saves %d tokens, under the %d-token minimum", c.seg.Tokens-c.after, pol.minSaving)
	case c.after > c.alloc:
		c.decision, c.reason = DecisionRejected, fmt.Sprintf("view needs %d tokens, over its %d allocation", c.after, c.alloc)
	default:
		c.decision = DecisionRewritten
	}
}

// referred reports whether the latest turn mentions one of paths (or its
// file name).
func (r *run) referred(paths []string) bool {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if strings.Contains(r.latestText, p) {
			return true
		}
		if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p)-i > 4 && strings.Contains(r.latestText, p[i+1:]) {
			return true
		}
	}
	return false
}

// readWords name tools that read files.
var readWords = []string{"read", "view", "cat", "open", "get_file", "show_file", "fetch_file"}

// readLike reports a tool output answering a file-reading call.
func (r *run) readLike(s *request.Segment) bool {
	ci, ok := r.calls[s.CallID]
	if !ok {
		return false
	}
	n := strings.ToLower(ci.name)
	for _, w := range readWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// selectNotices replaces injected notices that a later notice repeats
// (identical) or supersedes (same opening, new content).
func (r *run) selectNotices(pol policy) {
	var notices []*cand
	for _, c := range r.cands {
		if c.seg.Kind == request.SegText {
			notices = append(notices, c)
		}
	}
	for k, c := range notices {
		s := c.seg
		c.class = request.ClassCriticalExact
		switch {
		case r.exact[c.ref.Item]:
			c.class, c.reason = request.ClassProtocolExact, "marked exact by the caller"
			continue
		case hasMarker(s.Text):
			r.inputRefs(c)
			continue
		case !r.payloadValue(s) || s.Tokens < minNoticeTokens:
			c.reason = "injected notice"
			continue
		}
		key := noticeKey(s.Text)
		for _, later := range notices[k+1:] {
			if later.in.hash == c.in.hash {
				c.class, c.transform = request.ClassDroppableDuplicate, TransformSuperseded
				c.text = noticeMarker(s.Text, c.in, fmt.Sprintf("identical to the notice at message %d", later.ref.Item))
				c.reason = "notice repeated later"
				break
			}
			if key != "" && noticeKey(later.seg.Text) == key {
				add, del := lineDelta(s.Text, later.seg.Text)
				c.class, c.transform = request.ClassCondensable, TransformSuperseded
				c.text = noticeMarker(s.Text, c.in, fmt.Sprintf("superseded by the notice at message %d (+%d -%d lines)", later.ref.Item, add, del))
				c.reason = "notice superseded by a later version"
				break
			}
		}
		if c.transform == "" {
			c.reason = "latest version of an injected notice"
			continue
		}
		c.after = r.segTokens(s, c.text)
		c.alloc = c.after
		c.artifact = c.in.hash
		r.choose(c, pol)
	}
}

// noticeKey is a notice's opening: its first line that is not a bare tag
// ("<system-reminder>"), when long enough to tell notices apart.
func noticeKey(text string) string {
	for _, l := range splitLines(text) {
		t := strings.TrimSpace(l)
		if t == "" || (strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && !strings.Contains(t, " ")) {
			continue
		}
		if len(t) < 12 {
			return ""
		}
		return t
	}
	return ""
}

// noticeMarker keeps a notice's opening tag and puts a reference after it.
func noticeMarker(text string, in *info, detail string) string {
	m := marker(MarkerRef, in.hash, in.bytes, in.lines, detail)
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<") {
		if end := strings.IndexByte(t, '>'); end > 0 && !strings.Contains(t[:end], " ") {
			tag := t[:end+1]
			return tag + "\n" + m + "\n</" + strings.TrimPrefix(tag[1:], "/")
		}
	}
	return m
}

// lineDelta counts lines of b not in a and lines of a not in b.
func lineDelta(a, b string) (add, del int) {
	count := map[string]int{}
	for _, l := range splitLines(a) {
		count[l]++
	}
	for _, l := range splitLines(b) {
		if count[l] > 0 {
			count[l]--
		} else {
			add++
		}
	}
	for _, n := range count {
		del += n
	}
	return add, del
}

// inputRefs checks the references a segment of the input carries: each
// must resolve and verify; when the latest turn asks for one, the text it
// stands for is put back. A reference that does not resolve leaves the
// segment as it is and is recorded.
func (r *run) inputRefs(c *cand) {
	c.class, c.reason = request.ClassRehydratableExact, "carries ctxd references"
	ms := ParseMarkers(c.seg.Text)
	requested := false
	full := ""
	ok := true
	for _, m := range ms {
		asked := strings.Contains(r.latestText, m.Hash[:12])
		requested = requested || asked
		h, err := r.o.resolveRef(r.ctx, r.scope, m.Hash)
		if err == nil {
			_, err = r.o.opts.Store.Verify(r.ctx, r.scope, h)
		}
		if err != nil {
			ok = false
			reason := "artifact missing"
			if errors.Is(err, artifacts.ErrCorrupt) {
				reason = "artifact does not verify against its sha256"
				r.hashFails[m.Hash] = true
			}
			if asked {
				r.missingReq[m.Hash] = true
			}
			r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: m.Hash, Reason: reason})
			c.decision, c.reason = DecisionUnresolved, reason+"; segment kept as it was"
			continue
		}
		if full == "" {
			full = h
		} else if full != h {
			ok = false // references to two texts: not one text to put back
		}
	}
	if !requested || !ok || full == "" || !r.payloadValue(c.seg) {
		return
	}
	content, _, err := r.o.opts.Store.Get(r.ctx, r.scope, full)
	if err != nil {
		if errors.Is(err, artifacts.ErrCorrupt) {
			r.hashFails[full] = true
		}
		r.missingReq[full] = true
		r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: full, Reason: err.Error()})
		c.decision, c.reason = DecisionUnresolved, "artifact could not be read; segment kept as it was"
		return
	}
	c.transform, c.text, c.rehydrate, c.artifact = TransformRehydrate, string(content), content, full
	c.after = r.segTokens(c.seg, c.text)
	c.alloc = c.after
	c.decision, c.reason = DecisionRewritten, "the latest turn asks for the referenced text"
}

// estimateAfter is the request's tokens with the selected rewrites.
func (r *run) estimateAfter() int {
	n := r.before
	for _, c := range r.cands {
		if c.selected() {
			n += c.after - c.seg.Tokens
		}
	}
	return n
}

// storeArtifacts writes the texts the selected references stand for. A
// write that fails leaves its segment as it was.
func (r *run) storeArtifacts() {
	r.stored = map[string]ArtifactUse{}
	for _, c := range r.cands {
		if !c.selected() || c.artifact == "" || c.transform == TransformRehydrate {
			continue
		}
		if use, ok := r.stored[c.artifact]; ok {
			c.status = use.Status
			continue
		}
		ref, status, err := r.o.opts.Store.Put(r.ctx, r.scope, []byte(c.seg.Text))
		if err == nil && ref.Hash != c.artifact {
			err = fmt.Errorf("stored hash %s differs from the text's %s", ref.Hash[:12], c.artifact[:12])
		}
		if err != nil {
			c.decision, c.reason = DecisionUnresolved, "artifact could not be stored; segment kept as it was"
			r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: c.artifact, Reason: err.Error()})
			r.rep.SegmentRollbackCount++
			r.o.log.Warn("artifact store failed; segment kept", "sha256", c.artifact[:12], "error", err)
			continue
		}
		if status == artifacts.StatusRepaired {
			r.hashFails[c.artifact] = true
		}
		c.status = status
		r.stored[c.artifact] = ArtifactUse{Ref: ref, Status: status}
	}
	if !r.continuation() {
		return
	}
	// A request that continues server-side state carries each output once:
	// the next turns can only recognize a repeat of it, and rehydrate it,
	// from the store.
	for _, c := range r.cands {
		if c.selected() || c.seg.Kind != request.SegToolResult || c.seg.Tokens < minPayloadTokens || c.decision == DecisionUnresolved || hasMarker(c.seg.Text) {
			continue
		}
		if _, ok := r.stored[c.in.hash]; ok {
			continue
		}
		_, status, err := r.o.opts.Store.Put(r.ctx, r.scope, []byte(c.seg.Text))
		if err != nil {
			r.o.log.Warn("artifact store failed for a continued output", "sha256", c.in.hash[:12], "error", err)
			continue
		}
		if status == artifacts.StatusRepaired {
			r.hashFails[c.in.hash] = true
		}
		if status != artifacts.StatusExists {
			r.keptStored++
		}
	}
}

// planArtifacts records, in shadow mode, the artifacts a live call would
// store, without writing them.
func (r *run) planArtifacts() {
	r.stored = map[string]ArtifactUse{}
	for _, c := range r.cands {
		if c.selected() && c.artifact != "" && c.transform != TransformRehydrate {
			c.status = "planned"
			r.stored[c.artifact] = ArtifactUse{Ref: artifacts.Ref{Hash: c.artifact, Bytes: c.in.bytes, Lines: c.in.lines}, Status: "planned"}
		}
	}
}
