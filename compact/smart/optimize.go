package smart

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/compact/request"
)

// Rollout modes, as telemetry names them.
const (
	RolloutExact     = "exact"
	RolloutShadow    = "shadow"
	RolloutCanaryOut = "canary_out"
	RolloutOptimize  = "optimize"
)

// Optimizer rewrites model requests under the Smart Context safety
// envelope. It keeps caches by content (analyses, views, token counts)
// and a little state per session (turns seen, static context, tokens
// sent) in memory; artifacts are in its Store. It is safe for concurrent
// use.
type Optimizer struct {
	opts  Options
	log   *slog.Logger
	cache *request.Cache

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
	// cut is the stepped eviction of the last request: the items before
	// it (but the protected ones) were evicted; cutHash is the hash of
	// the item just before it, so a later request of another history
	// does not inherit it. Eviction is sticky: the next request evicts
	// the same items while it fits (ledger.go).
	cut     int
	cutHash string
	// inline are the outputs brought back whole (namedOutputs): their
	// hashes, comma-separated (the state stays comparable).
	inline string
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
	cache := opts.Cache
	if cache == nil {
		cache = request.NewCache()
	}
	return &Optimizer{opts: opts, log: log, cache: cache, sessions: map[string]*sessionState{}, refs: map[string]string{}}
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
	req := c.Parsed
	if !parseOf(req, body, c.Format) {
		var err error
		if req, err = request.ParseContext(ctx, body, c.Format); err != nil {
			return nil, fmt.Errorf("optimize request: %w", err)
		}
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
		name = c.DefaultModel
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
	r.rt = c.Retrieval
	r.rt.Session = scope
	r.hintCost = hintCost(b, r.rt)
	if r.before, err = r.est.RequestContext(ctx, req); err != nil {
		return nil, err
	}
	b.setPressure(r.before, c.ObservedInputTokens)
	r.b = b
	rep.Model, rep.Encoding = b.model.Name, b.counter.Encoding()
	r.setBudgetTelemetry()
	if b.windowSource == WindowNone && c.Budget <= 0 {
		// Nothing bounds the request (an explicit budget would).
		rep.Warnings = append(rep.Warnings, request.UnknownWindow(b.model.Name))
	}
	rep.EstimatedTokensBefore, rep.EstimatedTokensAfter = r.before, r.before
	if rep.RolloutMode == RolloutCanaryOut {
		rep.Fits = r.before <= b.usable
		o.finish(ctx, rep, start)
		return res, nil
	}
	if c.Feedback.UpstreamInvalidContinuation > 0 {
		// The provider refused the session's previous request for its
		// tool-call continuation: whatever caused it, this request goes
		// as the agent sent it (whole-request fallback is for failures
		// that touch continuation).
		rep.FullRequestFallbackCount = 1
		rep.PolicyReasons = append(rep.PolicyReasons, "full_request_fallback_upstream_invalid_continuation")
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

// parseOf reports that req is the parse of body itself (the same bytes
// in memory, not a copy) in format f ("" any): one parse per body.
func parseOf(req *request.Request, body []byte, f request.Format) bool {
	return req != nil && len(req.Body) == len(body) && len(body) > 0 && &req.Body[0] == &body[0] && (f == "" || req.Format == f)
}

// finish stamps the overhead and logs the record.
func (o *Optimizer) finish(ctx context.Context, rep *Report, start time.Time) {
	rep.OverheadMicros = time.Since(start).Microseconds()
	rep.Telemetry.log(ctx, o.log, slog.String("session_id", rep.Session), slog.String("format", string(rep.Format)), slog.Int64("rewrite_overhead_us", rep.OverheadMicros))
}

func applyFeedback(t *Telemetry, f Feedback) {
	t.UpstreamContextErrors = f.UpstreamContextErrors
	t.PreviousResponseNotFound = f.PreviousResponseNotFound
	t.InvalidToolCallContinuaton = f.UpstreamInvalidContinuation
	t.AdditionalTurnsBefore = f.AdditionalTurnsBeforeCompletion
	if f.TaskCompleted != "" {
		t.TaskCompleted = f.TaskCompleted
	}
}

// deriveScope names the scope of a request that gives no session
// (request.DeriveScope, shared with the pruner).
func deriveScope(req *request.Request) string { return request.DeriveScope(req) }

// canaryBucket places a session in one of 100 buckets by a stable hash
// of its id; a canary of N% rewrites buckets 0..N-1.
func canaryBucket(session string) int {
	sum := sha256.Sum256([]byte("ctxd canary\x00" + session))
	return int(binary.BigEndian.Uint64(sum[:8]) % 100)
}

func (o *Optimizer) estimator(b budget, f request.Format) *request.Estimator {
	return o.cache.Estimator(b.counter, request.ImageRuleFor(b.model, f))
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

// cand is one payload segment and what the run decided for it.
type cand struct {
	ref   request.SegRef
	seg   *request.Segment
	in    *info
	key   request.TextKey
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
	o     *Optimizer
	ctx   context.Context
	c     Call
	req   *request.Request
	scope string
	rt    request.Retrieval // how references say to read them back
	// hintCost is the tokens rt's hint adds to a marker: a view's
	// allocation grows by as much, so the hint never costs a view its
	// content (the estimate counts it all the same).
	hintCost int
	// maskHinted: a masked output of this selection already carries the
	// retrieval hint.
	maskHinted bool
	// maskStepped: the masking plan of the selection has taken a step.
	maskStepped bool
	live        bool
	b           budget
	rep         *Report
	est         *request.Estimator
	before      int

	calls map[string]callInfo
	// sup are the superseded file reads by call id (index; the rule both
	// compactors share, request.Superseded).
	sup    map[string]request.Supersession
	latest []string // the texts of the latest turn (index)
	// lastTurn is the texts of the user messages after the last
	// assistant message (index).
	lastTurn []string
	// turnStart is the index of the first item after the last assistant
	// message or call: the latest turn's items are Items[turnStart:].
	turnStart int
	// sticky are the outputs earlier turns of the session brought back
	// whole beyond the masking horizon; inlined those this turn does.
	sticky     map[string]bool
	inlined    []string
	exact      map[int]bool
	protected  map[int]bool // system messages and the latest user-role item
	cands      []*cand
	unresolved []Unresolved
	refErrs    []error // input references that do not resolve
	stored     map[string]ArtifactUse
	hashFails  map[string]bool // artifacts found corrupt
	missingReq map[string]bool // asked-for artifacts that did not resolve
	keptStored int             // outputs kept whole but stored (continued requests)
	continued  int             // previous_response_id: 0 not looked at, 1 yes, -1 no
	pair       *request.Pairing
}

// pairing is the request's tool-call graph, built once per run (read
// only: the quality proxies and the eviction plan share it).
func (r *run) pairing() *request.Pairing {
	if r.pair == nil {
		r.pair = r.req.Pair()
	}
	return r.pair
}

type callInfo struct {
	item int
	name string
	args string
	// read is the file the call reads when isRead (request.ReadOf,
	// parsed once per call through the cache).
	read   request.FileRead
	isRead bool
}

func (r *run) setBudgetTelemetry() {
	b, t := r.b, &r.rep.Telemetry
	t.ModelContextWindowTokens = b.window
	if b.windowSource == WindowNone {
		t.ModelContextWindowTokens = 0 // request.NoWindow is no window to show
	}
	t.ModelContextWindowSource = b.windowSource
	t.ObservedContextTokens = r.c.ObservedInputTokens
	t.EstimateRatio = r.c.EstimateRatio
	t.PressureBasisPoints = b.pressureBP
	t.PressureBand = b.band
	t.EstimatorConfidence = b.model.EstimatorConfidence
	if b.bounded() {
		t.EffectiveUsableTokens = known(b.usable)
		t.AbsoluteSafetyFloor = known(b.safetyFloor)
		t.AvailableTokens = known(max(0, b.usable-r.before))
	}
	t.BudgetMode = b.mode
	t.PolicyReasons = append([]string{}, b.reasons...)
}

// optimize runs the pipeline: index, select, store, emit and validate.
// A nil output means the original request stands.
func (r *run) optimize() ([]byte, error) {
	// Each pass walks every item: the context is looked at between them,
	// so the work stops soon after the client leaves (issue 28; at 300,000
	// and 1,000,000 messages within 0.1 s, BENCHMARKS.md "h28cancel").
	r.index()
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	r.quality()
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	sess := r.o.session(r.scope)
	r.sticky = map[string]bool{}
	for _, h := range strings.Split(sess.inline, ",") {
		r.sticky[h] = h != ""
	}
	static := r.staticHash()
	if sess.staticHash != "" && sess.staticHash != static {
		r.rep.StaticContextDeltas++
	}

	pol := policies[r.b.mode]
	var ev *eviction
	if r.c.MaskHorizon > 0 && r.b.band != BandLow {
		// Masking comes before any pressure, so the pressure is that of
		// the masked request (what goes upstream): a session masking
		// keeps small is not cut deeper because its raw history grew.
		full, b := r.b, r.b
		b.reasons = slices.Clone(full.reasons) // setPressure reuses the slice
		r.b.band, r.b.mode = BandLow, ModeRelaxed
		r.selectAll(policies[ModeRelaxed])
		b.setPressure(r.estimateAfter(), r.c.ObservedInputTokens)
		masked := r.estimateAfter()
		switch {
		case b.band == BandLow || masked <= full.usable && sess.cut == 0 && r.maskStepped:
			// Low once masked, or within the window once masked by a
			// step before any eviction: forwarded masked. A deeper step
			// here would condense the outputs masking keeps whole or
			// with their locations, every turn the pressure moves (chat
			// 32k replay: pertinent signals visible 90.6% with it, 96.0%
			// without; BENCHMARKS.md, "h26mask"); the session steps when
			// the masked request no longer fits. Before masking's first
			// step, pressure alone decides.
			b.reasons = append(b.reasons, "pressure_after_masking")
			r.b = b
			r.setBudgetTelemetry()
		case (masked > full.usable || sess.cut > 0) && r.planStep(&ev, sess):
			// Over the window once masked: whole older rounds leave in a
			// rare step, with the ledger in their place (ledger.go).
			b.reasons = append(b.reasons, "stepped_eviction")
			r.b = b
			r.setBudgetTelemetry()
		default:
			// Over the window once masked with no step to take, or
			// after an eviction with none due: the deeper step the
			// whole history's pressure calls for.
			r.b = full
			r.selectAll(pol)
		}
	} else {
		r.selectAll(pol)
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	r.textRefs()
	if len(r.refErrs) > 0 && r.live {
		// Fail closed: a request whose references cannot be followed is
		// never sent on (docs/smart-context.md, safety model).
		return nil, fmt.Errorf("optimize request: %w: %w", request.ErrUnresolvedReference, errors.Join(r.refErrs...))
	}
	if ev == nil && r.estimateAfter() > r.b.usable && r.b.mode != ModeEmergency {
		r.rep.PolicyReasons = append(r.rep.PolicyReasons, "escalated_to_emergency_over_usable_window")
		r.rep.BudgetMode = ModeEmergency
		r.selectAll(policies[ModeEmergency])
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	fits := ev != nil || r.fit()
	if fits && ev == nil {
		r.refill()
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
	cut := 0
	if ev != nil && r.live {
		if o, n := r.applyEviction(out, ev); o != nil && n <= r.b.usable {
			out, after, cut = o, n, ev.cut
		}
	}
	if r.live && (!fits || after > r.b.usable) {
		// Still over with every output and older text behind its
		// reference (or a rewrite the validation rolled back, a store
		// that failed): evict, or never send an oversize request.
		var err error
		if out, after, err = r.evict(out, after); err != nil {
			return nil, err
		}
	}
	r.finishCounts(out, after)
	if r.live {
		sess.turns++
		sess.staticHash = static
		sess.totalInput += r.rep.EstimatedTokensAfter
		sess.cut, sess.cutHash = cut, ""
		sess.inline = strings.Join(r.inlined, ",")
		if cut > 0 {
			sess.cutHash = r.req.Items[cut-1].Hash()
		}
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

// planStep plans a stepped eviction into *ev and reports whether there
// is one.
func (r *run) planStep(ev **eviction, sess sessionState) bool {
	*ev = r.planEviction(sess)
	// The pairing's last reader was the plan (quality ran before): the
	// collector may have it before the step writes its ledger and checks
	// its output, the request's peak (issue 28: 17 bytes a message).
	r.pair = nil
	return *ev != nil
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
		if it.Role() == "system" || it.Role() == "developer" {
			h.Write(it.Raw())
			break
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// hintCost is the tokens the retrieval hint adds to a marker.
func hintCost(b budget, rt request.Retrieval) int {
	h := strings.Repeat("0", 64)
	plain := request.NewMarker(request.MarkerRef, h, 1, 1, "")
	return max(0, b.counter.Count(rt.Marker(request.MarkerRef, h, 1, 1, ""))-b.counter.Count(plain))
}

// DeriveSession is the session a request that names none is scoped to
// (what [Optimizer.Optimize] derives): a hash of its format, its first two
// items and its instructions, stable across the turns of a conversation.
// A front end that keeps per-session state before calling Optimize (the
// proxy's observed token counts) uses it to key that state.
func DeriveSession(req *request.Request) string { return deriveScope(req) }
