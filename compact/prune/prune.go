package prune

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/internal/vsort"
	"github.com/ctxd/ctxd/tokens"
)

// Log attribute keys.
const (
	keyFormat    = "format"
	keyModel     = "model"
	keyItems     = "items"
	keyKept      = "kept"
	keyCondensed = "condensed"
	keySummized  = "summarized"
	keyEvicted   = "evicted"
	keyBefore    = "tokens_before"
	keyAfter     = "tokens_after"
	keyBudget    = "budget"
	keyFits      = "fits"
)

// Pruner compacts conversation histories for one configuration. It is
// safe for concurrent use.
type Pruner struct {
	opts  Options
	log   *slog.Logger
	cache *Cache
}

// New returns a pruner for opts.
func New(opts Options) (*Pruner, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("new pruner: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := opts.Cache
	if c == nil {
		c = NewCache()
	}
	return &Pruner{opts: opts, log: log, cache: c}, nil
}

// Compress is [Pruner.Compress] with a pruner made for opts.
func Compress(ctx context.Context, body []byte, opts Options) ([]byte, *Report, error) {
	p, err := New(opts)
	if err != nil {
		return nil, nil, err
	}
	return p.Compress(ctx, body)
}

// ForRetry is [Pruner.ForRetry] with a pruner made for opts.
func ForRetry(ctx context.Context, body []byte, errText string, opts Options) ([]byte, *Report, error) {
	p, err := New(opts)
	if err != nil {
		return nil, nil, err
	}
	return p.ForRetry(ctx, body, errText)
}

// Compress rewrites a request (Chat, Anthropic or Responses; detected) so
// that it fits the token budget, and reports each decision:
//
//   - tool calls and results without a partner (by exact id) are removed;
//   - older tool outputs above MaxToolOutput characters, outside the last
//     2*WindowSize messages, are condensed to a preview and a marker;
//   - if the request is still over budget, whole units (a call with all
//     its results) are evicted, lowest score first, outside the
//     always-keep set, and one summary takes the place of the first;
//   - if the always-keep set alone is over budget, working memory is
//     condensed and then evicted, never the first system message, the
//     first user message or the latest user turn; the summary is left
//     out if it would overflow.
//
// The output is in the input's format; everything not rewritten is copied
// byte for byte. When even the floor does not fit, the output is the floor
// and the report says Fits false with the reason.
func (p *Pruner) Compress(ctx context.Context, body []byte) ([]byte, *Report, error) {
	return p.run(ctx, body, "")
}

// CompressParsed is [Pruner.Compress] of a request the caller parsed
// already (in the pruner's format), so a large request is not decoded a
// second time. It sets the Tokens of req's items and segments (as
// [request.Estimator.Item] does) and changes nothing else of req. It also
// returns the plan of req the output was emitted from, so the caller can
// prove and count the output against it ([request.Plan.Verify]) rather
// than parse it whole beside req (issue 28).
func (p *Pruner) CompressParsed(ctx context.Context, req *request.Request) ([]byte, *request.Plan, *Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if req.Format != p.opts.Format && p.opts.Format != "" {
		return nil, nil, nil, fmt.Errorf("compress messages: a %s request given to a %s pruner: %w", req.Format, p.opts.Format, ctxd.ErrInvalidParams)
	}
	var plan *request.Plan
	out, rep, err := p.runParsed(ctx, req, "", &plan)
	return out, plan, rep, err
}

// ForRetry prunes a history for an agent's retry after a failure: the
// history compressed as by [Pruner.Compress], within the budget less the
// note, then the lesson-learned note (opening with [RetryPrefix] and
// quoting the error's head and tail) appended as the last user message.
func (p *Pruner) ForRetry(ctx context.Context, body []byte, errText string) ([]byte, *Report, error) {
	if strings.TrimSpace(errText) == "" {
		return nil, nil, fmt.Errorf("prune for retry: the error text is empty: %w", ctxd.ErrInvalidParams)
	}
	return p.run(ctx, body, errText)
}

// CountMessages returns the estimated tokens of a request: every item with
// its role overhead, tool calls, reasoning and images, the fixed parts and
// the reply priming.
func (p *Pruner) CountMessages(ctx context.Context, body []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	req, err := request.ParseContext(ctx, body, p.opts.Format)
	if err != nil {
		return 0, fmt.Errorf("count messages: %w", err)
	}
	s, err := p.opts.resolve(req.Model)
	if err != nil {
		return 0, fmt.Errorf("count messages: %w", err)
	}
	return p.estimator(s, req.Format).RequestContext(ctx, req)
}

func (p *Pruner) estimator(s settings, f request.Format) *request.Estimator {
	return p.cache.Estimator(s.counter, request.ImageRuleFor(s.model, f))
}

// Tiers of the always-keep rules.
const (
	tierFloor   = 0 // first system, first user, latest user turn, their pairs
	tierWorking = 1 // working memory and system messages
	tierArchive = 2 // the rest
)

var tierNames = [...]string{tierFloor: "always-keep floor", tierWorking: "working memory", tierArchive: "archive"}

// itemState is what the run decided for one item. A request of many
// small messages holds one per message for the whole run (issue 28):
// what few items have is out of line (run.condensed), a reason a tier's
// eviction gives is formatted only when a report asks (evictReason), and
// the counts are as small as what they count.
type itemState struct {
	score float64
	// evictScore is the unit's score when a tier's eviction took it
	// (evictWhy > 0): its reason's number.
	evictScore float64
	tokens     int // as it will be emitted
	before     int
	// pieceLen measures the item's part of the evicted-messages
	// artifact (pieceSize), measured once; the part itself is written
	// only into the artifact (evictedText).
	pieceLen int
	// reason says why the item was removed or condensed; a tier's
	// eviction clears it and what is added after is joined behind the
	// eviction's reason (evictReason).
	reason string
	keep   string // why kept
	// notes is what the item adds to the digest (itemNotes), once looked
	// up (notesDone).
	notes      []note
	pieceLines int32
	orphans    int32
	// dups counts the condensed segments that are duplicates.
	dups int32
	tier int8
	// evictWhy is the index in evictReasons of the tier eviction that
	// took the item; 0 when none did.
	evictWhy  uint8
	gone      bool // removed
	summed    bool // removed and in the summary
	pieceDone bool
	notesDone bool
	// protected items are never modified (system messages, the latest
	// user turn, open tool pairs).
	protected bool
}

// The reasons of the tiers' evictions (evictTier), each with the unit's
// score.
const (
	evictArchive uint8 = iota + 1
	evictWorking
	evictFloor
)

var evictReasons = [...]string{
	evictArchive: "over budget: lowest score (%.1f) outside the always-keep set",
	evictWorking: "always-keep set over budget: working memory evicted, lowest score (%.1f) first",
	evictFloor:   "the protocol-exact minimum alone nearly fills the budget: evicted, lowest score (%.1f) first",
}

// evictReason is why item st was removed: a tier eviction's reason
// (with the unit's score) joined with what was added after, or the
// reason recorded.
func evictReason(st *itemState) string {
	if st.evictWhy == 0 {
		return st.reason
	}
	why := fmt.Sprintf(evictReasons[st.evictWhy], st.evictScore)
	if st.reason == "" {
		return why
	}
	return joinReason(why, st.reason)
}

// pairedKeep is the keep reason of an item kept because its unit's tier
// is t ("paired with ...").
var pairedKeep = func() [len(tierNames)]string {
	var out [len(tierNames)]string
	for t, n := range tierNames {
		out[t] = "paired with a tool call or result kept as " + n
	}
	return out
}()

type run struct {
	p     *Pruner
	scope string
	rt    request.Retrieval // retrieval hints of the references it writes
	// stashed are the texts references in the output stand for, by
	// SHA-256; evictedHash names the evicted items' text, evicted.
	stashed     map[string]string
	evictedHash string
	evicted     string
	req         *request.Request
	est         *request.Estimator
	s           settings
	plan        *request.Plan
	pair        *request.Pairing
	st          []itemState
	total       int
	keys        map[*request.Segment]request.TextKey // memo of text hashes
	// condensed are the segments of item i cut to a preview or a
	// reference (few items have any).
	condensed map[int][]Condensed
	// laddered are the segments the degrade ladder condensed (not
	// duplicates or superseded reads), in the order it condensed them:
	// refill's candidates.
	laddered []request.SegRef
	// latestUser is the latest user turn with user content (text or an
	// image; -1 when none): never modified, not even its tool results.
	latestUser int
	// ctx is the request's: degradation stops when it ends.
	ctx context.Context
	// summed counts the items evicted into the summary (anySummarized
	// without a pass over the items); removed, those removed with nothing
	// standing for them.
	summed, removed int
}

// key returns the cache key of a segment's text.
func (r *run) key(s *request.Segment) request.TextKey {
	k, ok := r.keys[s]
	if !ok {
		k = r.p.cache.Key(s.Text)
		r.keys[s] = k
	}
	return k
}

// isError reports a tool result flagged as an error or reading as one.
func (r *run) isError(s *request.Segment) bool {
	if s.IsError {
		return true
	}
	return r.p.cache.Info(r.key(s), s.Text).IsError
}

func (p *Pruner) run(ctx context.Context, body []byte, errText string) ([]byte, *Report, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	req, err := request.ParseContext(ctx, body, p.opts.Format)
	if err != nil {
		return nil, nil, fmt.Errorf("compress messages: %w", err)
	}
	return p.runParsed(ctx, req, errText, nil)
}

// runParsed prunes req; plan, when not nil, receives the plan the output
// was emitted from.
func (p *Pruner) runParsed(ctx context.Context, req *request.Request, errText string, plan **request.Plan) ([]byte, *Report, error) {
	s, err := p.opts.resolve(req.Model)
	if err != nil {
		return nil, nil, fmt.Errorf("compress messages: %w", err)
	}
	r := &run{ctx: ctx, p: p, req: req, s: s, est: p.estimator(s, req.Format), plan: req.NewPlan(), st: make([]itemState, len(req.Items)), keys: map[*request.Segment]request.TextKey{}, condensed: map[int][]Condensed{}}
	r.scope = p.opts.Session
	if r.scope == "" {
		r.scope = request.DeriveScope(req)
	}
	if p.opts.Store != nil {
		r.rt = p.opts.Retrieval
		r.rt.Session = r.scope
	}
	if err := r.checkRefs(ctx); err != nil {
		return nil, nil, err
	}
	before, err := r.est.RequestContext(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	fixed := before // the reply priming and the fixed parts
	for i, it := range req.Items {
		r.st[i].before, r.st[i].tokens = int(it.Tokens), int(it.Tokens)
		fixed -= int(it.Tokens)
	}
	r.pair = req.Pair()
	r.dropOrphans()
	r.assignTiers()
	r.score()
	r.dedupe()
	r.supersede()

	budget := s.budget
	var note []byte
	noteTokens := 0
	if errText != "" {
		quoted := tokens.Middle(s.counter, strings.TrimSpace(errText), retryErrorTokens, tokens.MiddleOptions{TailRatio: 0.7}).Text
		note = userItem(req.Format, retryNote(quoted))
		it, err := request.ParseItem(req.Format, note)
		if err != nil {
			return nil, nil, fmt.Errorf("prune for retry: build note: %w", err)
		}
		noteTokens = r.est.Item(it)
	}
	avail := budget - noteTokens

	// r.total is what the output costs as the plan stands; condensing and
	// evicting keep it current.
	r.total = fixed
	floor, minimum := fixed+noteTokens, fixed+noteTokens
	for i := range r.st {
		if !r.st[i].gone {
			r.total += r.st[i].tokens
			if r.st[i].tier == tierFloor {
				floor += r.st[i].tokens
			}
			if r.st[i].protected {
				minimum += r.st[i].tokens
			}
		}
	}
	rep := &Report{
		Format: req.Format, Model: s.model.Name, Encoding: s.counter.Encoding(),
		EstimatorConfidence: s.model.EstimatorConfidence, CalibrationError: s.model.CalibrationError,
		ContextWindow: s.model.ContextWindow, ContextWindowSource: s.model.Source, OutputReserve: s.outputReserve, Budget: budget, BudgetSource: s.budgetSource,
		WindowSize: s.windowSize, MaxToolOutput: s.maxToolOutput, Session: r.scope,
		FixedTokens: fixed, FloorTokens: floor, MinimumTokens: minimum, TokensBefore: before,
	}
	if s.model.Source == request.WindowNone {
		// The run assumes request.NoWindow: no number to show. Unless
		// an explicit budget bounds the request, nothing does: say so.
		rep.ContextWindow = 0
		if s.budgetSource == BudgetWindow {
			rep.Budget, rep.BudgetSource = 0, BudgetNone
			rep.Warnings = append(rep.Warnings, request.UnknownWindow(s.model.Name))
		}
	}
	// At low pressure nothing lossy happens: only unpaired calls and
	// results go (the protocol requires it). From the medium band on
	// (half the budget), the archive's long tool outputs are condensed
	// behind references, as optimize does from the same band. Over the
	// budget, the steps degrade in order until the request fits; each
	// keeps what it removes behind a reference.
	rep.PressureBP, rep.PressureBand = request.Pressure(before, avail)
	var summary []byte
	summaryTokens := 0
	if r.total > avail {
		summary, summaryTokens = r.degrade(avail, rep)
		if err := ctx.Err(); err != nil {
			return nil, nil, err // the client left: degrade stopped early
		}
		if r.total+summaryTokens <= avail {
			r.refill(avail - r.total - summaryTokens)
		}
	} else if rep.PressureBand != request.BandLow {
		r.condenseTier(tierArchive, r.s.maxToolOutput)
	}
	if r.total+summaryTokens > avail {
		rep.TokensAfter = r.total + summaryTokens
		of := fmt.Sprintf("context window %d less %d reserved for the reply", s.model.ContextWindow, s.outputReserve)
		if s.budgetSource == BudgetExplicit {
			of = "given"
		}
		rep.Reason = fmt.Sprintf("the protocol-exact minimum (fixed parts and tools, system messages, latest user turn, open tool pairs) needs %d tokens and the request still needs %d after condensing, referencing and evicting everything else; the budget is %d (%s)",
			minimum, r.total+summaryTokens, avail, of)
		return nil, nil, &OverBudgetError{Report: rep}
	}
	if len(req.Items) > 0 && r.keptBefore(len(req.Items)) == 0 && summary == nil && note == nil {
		// Nothing would be left (unpaired calls and results dropped as
		// the protocol requires, the rest evicted): an empty conversation
		// is no request a provider answers, so it does not fit. Smart
		// Context's eviction, which runs this pruner, fails the same way
		// (a proxy forwards the original; the provider's error reaches
		// the agent).
		rep.TokensAfter = r.total
		rep.Reason = fmt.Sprintf("no message would be left: each of the %d messages was an unpaired tool call or result (which the protocol requires removing) or was evicted; an empty conversation is no request a provider answers", len(req.Items))
		return nil, nil, &OverBudgetError{Report: rep}
	}
	if summary != nil {
		r.stash(r.evictedHash, r.evicted)
		at := r.summaryPosition()
		r.plan.Insert(at, summary)
		r.total += summaryTokens
		rep.Inserted = append(rep.Inserted, Inserted{Kind: "summary", Index: r.keptBefore(at), Tokens: summaryTokens, Replaces: r.countSummarized(), SHA256: r.evictedHash})
	}
	if note != nil {
		r.plan.Insert(len(req.Items), note)
		r.total += noteTokens
		rep.Inserted = append(rep.Inserted, Inserted{Kind: "retry_note", Index: r.keptBefore(len(req.Items)) + len(rep.Inserted), Tokens: noteTokens})
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := r.storeStashed(ctx); err != nil {
		return nil, nil, err
	}
	out, err := r.plan.Emit()
	if err != nil {
		return nil, nil, fmt.Errorf("compress messages: %w", err)
	}
	rep.TokensAfter = r.total
	rep.Ratio = 1
	if r.total > 0 {
		rep.Ratio = float64(before) / float64(r.total)
	}
	rep.Fits = r.total <= budget
	if !p.opts.NoMessages {
		rep.Messages = r.decisions()
	}
	rep.Removed = r.summed + r.removed
	p.logRun(rep, r)
	if plan != nil {
		*plan = r.plan
	}
	return out, rep, nil
}

// OverBudgetError is the error of a request that cannot fit its budget
// even after every step of degradation: its protocol-exact minimum (and
// what cannot be removed without breaking the protocol) is over it, or
// no message would be left (an empty conversation fits no provider).
// Report holds the budget and the counts, Reason the explanation. It
// wraps ctxd.ErrOverBudget (JSON-RPC code -31003, a non-zero exit).
type OverBudgetError struct {
	Report *Report
}

func (e *OverBudgetError) Error() string {
	return "compress messages: " + ctxd.ErrOverBudget.Error() + ": " + e.Report.Reason
}

func (e *OverBudgetError) Unwrap() error { return ctxd.ErrOverBudget }

// degrade brings an over-budget request under avail, in order, stopping
// as soon as it fits: condense archive outputs; evict archive units
// (lowest score first) into the summary; condense working memory; evict
// it; reduce every output left outside the protected items to its
// reference; evict the first user turn. The protected items (system
// messages, the latest user turn, open tool pairs) are never touched. It
// returns the summary of what was evicted.
func (r *run) degrade(avail int, rep *Report) ([]byte, int) {
	var summary []byte
	summaryTokens := 0
	// deficit is, after fits() said no, a lower bound of the tokens the
	// request is still over the budget (at least 1).
	deficit := 0
	fits := func() bool {
		summary, summaryTokens, deficit = nil, 0, 1
		if !r.anySummarized() {
			deficit = max(1, r.total-avail)
			return r.total <= avail
		}
		if r.total >= avail && !hashEverySummary {
			// A summary costs tokens: it cannot fit (no need to build it).
			deficit = r.total - avail + 1
			return false
		}
		room := avail - r.total
		d := r.digest()
		// Until the summary might fit, a placeholder hash stands in for
		// the evicted text's: hashing that text (which grows with each
		// eviction) was most of a long session's compress time.
		might, least := r.summaryMightFit(d, room)
		if !might {
			deficit = max(1, least-room)
			return false
		}
		summary, summaryTokens = r.summary(d, room)
		return summary != nil && r.total+summaryTokens <= avail
	}
	order := r.unitOrder()
	// evictTier evicts the tier's units in order until the request fits.
	// Checking the fit builds the summary of everything evicted, so
	// checking after every eviction made a long history quadratic (30,000
	// small messages: minutes). After a failed check the deficit bounds
	// how many evictions cannot be enough: each frees its own tokens and
	// shrinks the summary by at most maxSummaryShrink (its range may join
	// two in the list of evicted messages; the digest only grows), so the
	// check is skipped until they add up to the deficit. The outcome is
	// the one of checking every time (TestHashEverySummary compares).
	evictTier := func(tier int, why uint8) bool {
		credit := 0
		for _, u := range order {
			if r.ctx.Err() != nil {
				return false
			}
			if credit <= 0 {
				if fits() {
					return true
				}
				if !hashEverySummary {
					credit = deficit
				}
			}
			if r.unitTier(u) == tier && r.unitLive(u) && !r.unitProtected(u) {
				credit -= r.unitLiveTokens(u) + maxSummaryShrink
				r.evict(u, why, r.unitScore(u))
			}
		}
		return fits()
	}
	condense := func(maxChars int, pick func(i int) bool) bool {
		return r.condenseUntil(maxChars, pick, fits)
	}
	condenseTier := func(tier, maxChars int) bool { return condense(maxChars, r.inTier(tier)) }
	// condenseOpen is the last step before the request is refused: the
	// open tool pair's outputs (the ones the model answers next) are
	// condensed and then referenced like any other output, their critical
	// lines verbatim and the whole behind its reference, as optimize's
	// hard budget does. The pairs stay whole; system messages (which
	// carry no tool output) and the latest user turn are never touched.
	// In Anthropic Messages the outputs travel in a user-role item; one
	// that carries only tool results is not a user turn, and its outputs
	// are condensed like Chat's tool messages (format parity).
	condenseOpen := func(maxChars int) bool {
		return condense(maxChars, func(i int) bool { return r.st[i].protected && i != r.latestUser })
	}
	switch {
	case condenseTier(tierArchive, r.s.maxToolOutput):
	case condenseTier(tierArchive, 0):
	case evictTier(tierArchive, evictArchive):
	case condenseTier(tierWorking, r.s.maxToolOutput):
		rep.Degraded = true
	case condenseTier(tierWorking, 0):
		rep.Degraded = true
	case evictTier(tierWorking, evictWorking):
		rep.Degraded = true
	case condenseTier(tierFloor, 0):
		rep.Degraded = true
	case evictTier(tierFloor, evictFloor):
		rep.Degraded = true
	case condenseOpen(r.s.maxToolOutput):
		rep.Degraded = true
	case condenseOpen(0):
		rep.Degraded = true
	default:
		rep.Degraded = true
	}
	if summary == nil && r.anySummarized() {
		// Nothing fits: the summary the refusal counts is the real one.
		summary, summaryTokens = r.summary(r.digest(), avail-r.total)
	}
	return summary, summaryTokens
}

// condenseTier condenses the long tool outputs of a tier's live,
// unprotected items to maxChars characters (0: to their references).
func (r *run) condenseTier(tier, maxChars int) { r.condenseUntil(maxChars, r.inTier(tier), nil) }

// inTier selects the unprotected items of a tier.
func (r *run) inTier(tier int) func(i int) bool {
	return func(i int) bool { return int(r.st[i].tier) == tier && !r.st[i].protected }
}

// condenseUntil condenses the tool outputs of the live items pick selects
// (condenseItem touches nothing else), one item at a time, lowest score
// first (oldest first on ties), until done reports true: an output that
// fits stays whole when condensing others is enough. With done nil it
// condenses them all and reports false.
func (r *run) condenseUntil(maxChars int, pick func(i int) bool, done func() bool) bool {
	var items []int
	for i := range r.st {
		if !r.st[i].gone && pick(i) {
			items = append(items, i)
		}
	}
	slices.SortStableFunc(items, func(a, b int) int { return cmp.Compare(r.st[a].score, r.st[b].score) })
	for _, i := range items {
		if r.condenseItem(i, maxChars) && done != nil && done() {
			return true
		}
	}
	return done != nil && done()
}

func (p *Pruner) logRun(rep *Report, r *run) {
	condensed := 0
	for i := range r.st {
		if st := &r.st[i]; !st.gone && (len(r.condensed[i]) > 0 || st.orphans > 0) {
			condensed++
		}
	}
	p.log.Debug("messages compressed", keyFormat, rep.Format, keyModel, rep.Model, keyItems, len(r.st),
		keyKept, len(r.st)-condensed-rep.Removed, keyCondensed, condensed, keySummized, r.summed,
		keyEvicted, r.removed, keyBefore, rep.TokensBefore, keyAfter, rep.TokensAfter, keyBudget, rep.Budget, keyFits, rep.Fits)
}

// dropOrphans removes calls without results and results without calls: a
// block or tool_calls entry alone when the item says something else, the
// whole item otherwise.
func (r *run) dropOrphans() {
	for _, o := range r.pair.Orphans {
		st := &r.st[o.Item]
		if st.gone {
			continue
		}
		it := r.req.Items[o.Item]
		seg := &it.Segments[o.Seg]
		what := "tool result without a call"
		if seg.Kind == request.SegToolCall {
			what = "tool call without a result"
		}
		if !r.pair.OrphanOnly[o.Item] && r.plan.DropSegment(o) {
			st.tokens -= int(seg.Tokens)
			st.orphans++
			st.reason = joinReason(st.reason, fmt.Sprintf("removed %s (id %q)", what, seg.CallID()))
			continue
		}
		r.remove(o.Item, fmt.Sprintf("%s (id %q)", what, seg.CallID()))
		// What the removed item was paired with would lose its partner (a
		// malformed item holding both an orphan and a paired call), and a
		// Responses reasoning item cannot stay without the item it
		// precedes: the whole unit goes.
		for _, j := range r.pair.Unit(r.pair.UnitOf(o.Item)) {
			if int(j) != o.Item && !r.st[j].gone {
				r.remove(int(j), fmt.Sprintf("paired with item %d, removed as unpaired", o.Item))
			}
		}
	}
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func (r *run) remove(i int, reason string) {
	r.plan.DropItem(i)
	r.st[i].gone = true
	r.st[i].reason = reason
	r.removed++
}

// assignTiers marks the always-keep floor, working memory and the
// archive; a unit takes the most protected tier of its items.
func (r *run) assignTiers() {
	items := r.req.Items
	firstSys, firstUser, lastUser, lastUserAny := -1, -1, -1, -1
	for i, it := range items {
		if r.st[i].gone {
			continue
		}
		switch it.Role() {
		case "system", "developer":
			if firstSys < 0 {
				firstSys = i
			}
		case "user":
			if it.Kind == request.KindSummary {
				continue
			}
			if firstUser < 0 {
				firstUser = i
			}
			lastUserAny = i
			if hasUserContent(it) {
				lastUser = i
			}
		}
	}
	if lastUser < 0 {
		lastUser = lastUserAny
	}
	r.latestUser = lastUser
	// Protected, never modified: every system message, the latest user
	// turn and the latest user-role item (a tool-result carrier in
	// Anthropic Messages), with their tool pairs, and the request's last
	// unit (the open tool pair the model answers next).
	protect := func(i int) {
		if i >= 0 {
			for _, j := range r.pair.Unit(r.pair.UnitOf(i)) {
				r.st[j].protected = true
			}
		}
	}
	for i, it := range items {
		if !r.st[i].gone && (it.Role() == "system" || it.Role() == "developer") {
			protect(i)
		}
	}
	protect(lastUser)
	protect(lastUserAny)
	for i := len(items) - 1; i >= 0; i-- {
		if !r.st[i].gone {
			protect(i)
			break
		}
	}
	base := make([]int, len(items))
	for i := range base {
		base[i] = tierArchive
	}
	for _, i := range []int{firstSys, firstUser, lastUser} {
		if i >= 0 {
			base[i] = tierFloor
		}
	}
	why := map[int]string{firstSys: "always keep: first system message", firstUser: "always keep: first user message", lastUser: "always keep: latest user turn"}
	window := 2 * r.s.windowSize
	for i := len(items) - 1; i >= 0 && window > 0; i-- {
		if r.st[i].gone || items[i].Role() == "system" || items[i].Role() == "developer" {
			continue
		}
		window--
		if base[i] == tierArchive {
			base[i] = tierWorking
			r.st[i].keep = "working memory (last messages)"
		}
	}
	for i, it := range items {
		if (it.Role() == "system" || it.Role() == "developer") && base[i] != tierFloor {
			base[i] = tierFloor
			r.st[i].keep = "always keep: system message"
		}
		if r.st[i].protected && base[i] != tierFloor {
			base[i] = tierFloor
			r.st[i].keep = "always keep: open tool pair"
		}
	}
	for i, w := range why {
		if i >= 0 {
			r.st[i].keep = w
		}
	}
	for u := range r.pair.NumUnits() {
		unit := r.pair.Unit(u)
		t := tierArchive
		for _, i := range unit {
			t = min(t, base[i])
		}
		for _, i := range unit {
			r.st[i].tier = int8(t)
			if base[i] > t {
				r.st[i].keep = pairedKeep[t]
			}
		}
	}
}

// hasUserContent reports a user message with text or an image: a user
// turn, as opposed to a carrier of tool results.
func hasUserContent(it *request.Item) bool {
	for i := range it.Segments {
		switch it.Segments[i].Kind {
		case request.SegText, request.SegImage:
			return true
		}
	}
	return false
}

// condenseItem condenses the item's long tool outputs to maxChars
// characters (0: to their reference alone, see referenceText) and
// reports whether it changed anything. An output condensed before is
// condensed again only when the new form is smaller; every original is
// stashed for the store.
func (r *run) condenseItem(i, maxChars int) bool {
	it := r.req.Items[i]
	st := &r.st[i]
	changed := false
	if maxChars < 0 {
		return false
	}
	for j := range it.Segments {
		seg := &it.Segments[j]
		if seg.Kind != request.SegToolResult || seg.Value().Len() == 0 {
			continue
		}
		if seg.Class != request.ClassCondensable && seg.Class != request.ClassDroppableDuplicate {
			continue
		}
		cur, idx := int(seg.Tokens), -1
		for k, c := range r.condensed[i] {
			if c.Segment == j {
				cur, idx = c.TokensAfter, k
			}
		}
		var res condResult
		if maxChars == 0 {
			res = referenced(r.p.cache, refKey{text: r.key(seg), isError: r.isError(seg), encoding: r.s.counter.Encoding(), rt: r.rt, name: seg.Name()}, seg, r.est)
		} else {
			k := condKey{text: r.key(seg), maxChars: maxChars, isError: r.isError(seg), images: len(seg.Images()), encoding: r.s.counter.Encoding(), rt: r.rt, name: seg.Name()}
			res = condense(r.p.cache, k, seg, r.est)
		}
		if !res.ok {
			continue
		}
		after := res.tokens
		if after >= cur || !r.plan.SetText(request.SegRef{Item: i, Seg: j}, res.out) {
			continue
		}
		st.tokens -= cur - after
		r.total -= cur - after
		c := Condensed{Segment: j, Hash: res.hash, HiddenChars: res.hidden, TokensBefore: int(seg.Tokens), TokensAfter: after}
		if idx >= 0 {
			r.condensed[i][idx] = c
		} else {
			r.condensed[i] = append(r.condensed[i], c)
		}
		r.stash(res.hash, seg.Text)
		if idx < 0 {
			r.laddered = append(r.laddered, request.SegRef{Item: i, Seg: j})
		}
		changed = true
	}
	return changed
}

// minRefill is the least room worth a refill: under it an output's view
// would grow by a few lines at most.
const minRefill = 64

// refill spends room, the tokens the degrade ladder left under the budget
// once the request fit, on the outputs it condensed, newest first: each
// is condensed again from its whole text, to the largest preview that
// fits what is left (condenseWith: its head, or head and tail for error
// output, and the marker). The ladder condenses every output of a tier
// to the same size, so when the one step that made the request fit was
// more than needed (the open pair's outputs cut to a preview: a 12k-token
// file the agent just read shown as 500 characters in a budget of 6k),
// the room goes back to the outputs the model reads next. Nothing else
// changes: what was evicted stays in the summary, and the budget holds.
func (r *run) refill(room int) {
	refs := slices.Clone(r.laddered)
	vsort.StableFunc(refs, func(a, b request.SegRef) int { return cmp.Compare(b.Item, a.Item) })
	for _, ref := range refs {
		if room < minRefill || r.ctx.Err() != nil {
			return
		}
		st := &r.st[ref.Item]
		idx := slices.IndexFunc(r.condensed[ref.Item], func(c Condensed) bool { return c.Segment == ref.Seg })
		if st.gone || idx < 0 {
			continue
		}
		seg := &r.req.Items[ref.Item].Segments[ref.Seg]
		c := &r.condensed[ref.Item][idx]
		out, hidden, tokens, chars := r.largestPreview(seg, c.Hash, c.TokensAfter+room)
		if tokens <= c.TokensAfter || !r.plan.SetText(ref, out) {
			continue
		}
		grew := tokens - c.TokensAfter
		st.tokens += grew
		r.total += grew
		room -= grew
		c.HiddenChars, c.TokensAfter = hidden, tokens
		st.reason = joinReason(st.reason, fmt.Sprintf("condensed again to %d chars: the room the budget left", chars))
	}
}

// largestPreview is seg condensed (condenseWith) to the most characters
// whose segment counts at most limit tokens (request.LargestFit, from the
// text's own characters per token); tokens 0 when none tried fits.
func (r *run) largestPreview(seg *request.Segment, hash string, limit int) (out string, hidden, tokens, chars int) {
	total := utf8.RuneCountInString(seg.Text)
	isErr, images := r.isError(seg), len(seg.Images())
	guess := int(float64(limit) * float64(total) / float64(max(seg.Tokens, 1)))
	chars = request.LargestFit(limit, guess, total-minHidden, func(n int) (int, bool) {
		o, h, ok := condenseWith(r.rt, seg.Text, n, isErr, hash, images)
		if !ok {
			return 0, false
		}
		t := r.est.Segment(request.NewSegment(seg.Kind, seg.Name(), "", o))
		if t <= limit {
			out, hidden, tokens = o, h, t // the latest fit is the largest
		}
		return t, true
	})
	return out, hidden, tokens, chars
}

// unitOrder sorts units for eviction: lowest score first, then oldest.
func (r *run) unitOrder() []int {
	order := make([]int, r.pair.NumUnits())
	for u := range order {
		order[u] = u
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := r.unitScore(a), r.unitScore(b)
		if c := cmp.Compare(sa, sb); c != 0 {
			return c
		}
		return cmp.Compare(r.pair.Unit(a)[0], r.pair.Unit(b)[0])
	})
	return order
}

func (r *run) unitScore(u int) float64 {
	best := 0.0
	for _, i := range r.pair.Unit(u) {
		best = max(best, r.st[i].score)
	}
	return best
}

func (r *run) unitTier(u int) int { return int(r.st[r.pair.Unit(u)[0]].tier) }

func (r *run) unitProtected(u int) bool {
	for _, i := range r.pair.Unit(u) {
		if r.st[i].protected {
			return true
		}
	}
	return false
}

func (r *run) unitLive(u int) bool {
	for _, i := range r.pair.Unit(u) {
		if !r.st[i].gone {
			return true
		}
	}
	return false
}

// maxSummaryShrink bounds how many tokens the summary can lose when one
// more unit is evicted: the unit's range may join two ranges of the
// evicted-message list ("3-7, 9-12" becomes "3-12": a separator and two
// numbers of at most 7 digits, 18 characters, go), and nothing else in
// the summary shrinks (the digest's lists and counts only grow). Counted
// as one token per character, which no tokenizer undercuts.
const maxSummaryShrink = 20

// unitLiveTokens is the tokens a unit's live items hold.
func (r *run) unitLiveTokens(u int) int {
	n := 0
	for _, i := range r.pair.Unit(u) {
		if !r.st[i].gone {
			n += r.st[i].tokens
		}
	}
	return n
}

// evict removes a unit into the summary.
func (r *run) evict(u int, why uint8, score float64) {
	for _, i := range r.pair.Unit(u) {
		st := &r.st[i]
		if st.gone {
			continue
		}
		r.plan.DropItem(int(i))
		st.gone, st.summed = true, true
		r.summed++
		st.evictWhy, st.evictScore, st.reason = why, score, ""
		r.total -= st.tokens
	}
}

func (r *run) anySummarized() bool { return r.summed > 0 }

func (r *run) countSummarized() int { return r.summed }

// digest is the digest of the evicted items.
func (r *run) digest() *digest {
	d := newDigest()
	for i, it := range r.req.Items {
		st := &r.st[i]
		if !st.summed {
			continue
		}
		// Each item's notes are looked up once per run: the digest is
		// rebuilt as eviction grows, and the cache's map may hold fewer
		// entries than a request has items (it then starts over, and
		// every digest built all the notes again).
		if !st.notesDone {
			st.notes, st.notesDone = itemNotes(r.p.cache, r.req.Format, it), true
		}
		d.addNotes(st.notes)
	}
	return d
}

// summary builds the summary item of the evicted items and its tokens:
// the digest of what they did and a reference to their full text (named
// by its hash; the text is stashed when the summary is emitted). When the
// digest does not fit room tokens, the summary is its first line and the
// reference alone.
func (r *run) summary(d *digest, room int) ([]byte, int) {
	full := r.evictedText()
	r.evictedHash, r.evicted = request.HashText(full), full
	raw, n, _ := r.summaryItem(d, r.evictedHash, len(full), byteview.CountLines(full), room)
	return raw, n
}

// hashEverySummary turns summaryMightFit off (every summary tried is
// built with its real hash, as before it existed); tests compare.
var hashEverySummary = false

// placeholderHash stands for the evicted text's hash in summaryMightFit.
var placeholderHash = strings.Repeat("f", 64)

// hashSlack bounds how many more tokens one occurrence of a hash in a
// marker can cost than another hash's: the pre-tokenizer's pieces that
// hold its 16 hex digits (and at most the one character before them,
// which a run of letters takes along) are 1 to 17 tokens.
const hashSlack = 17

// summaryMightFit reports whether the summary could fit room tokens
// whatever the evicted text's hash: false only when both of its forms
// (the full digest, the head) counted with a placeholder hash are over
// room by more than the hash can change them.
// It also returns the least tokens any form can cost (a lower bound).
func (r *run) summaryMightFit(d *digest, room int) (bool, int) {
	if hashEverySummary {
		return true, 0
	}
	size, lines := r.evictedSize()
	_, _, counts := r.summaryItem(d, placeholderHash, size, lines, -1)
	least := -1
	for _, c := range counts {
		lb := c.tokens - hashSlack*c.hashes
		if lb <= room {
			return true, 0
		}
		if least < 0 || lb < least {
			least = lb
		}
	}
	return false, least
}

// summaryCount is one form of the summary counted: its tokens and how
// many times it shows the hash.
type summaryCount struct{ tokens, hashes int }

// summaryItem renders the summary with the evicted text's hash, size
// and lines: the first form (the full digest, then its head) whose
// tokens fit room, or the last one. counts has each form tried.
func (r *run) summaryItem(d *digest, hash string, size, lines, room int) ([]byte, int, []summaryCount) {
	ref := fmt.Sprintf("\nEvicted messages %s, verbatim: %s", r.evictedList(),
		r.rt.Marker(request.MarkerRef, hash, size, lines, "evicted messages"))
	short := hash[:min(request.MarkerHashLen, len(hash))]
	var raw []byte
	var n int
	var counts []summaryCount
	for _, text := range []string{d.text() + ref, d.head() + ref} {
		raw = userItem(r.req.Format, text)
		it, err := request.ParseItem(r.req.Format, raw)
		if err != nil {
			// userItem always writes a valid item; if not, leave the
			// summary out rather than emit something broken.
			return nil, 0, nil
		}
		n = r.est.Item(it)
		counts = append(counts, summaryCount{n, strings.Count(text, short)})
		if n <= room {
			break
		}
	}
	return raw, n, counts
}

// summaryPosition is where the summary goes: where the first evicted item
// stood, moved back so that it never splits a kept unit (a call and its
// results stay adjacent).
func (r *run) summaryPosition() int {
	n := len(r.req.Items)
	first := n
	for i := range r.st {
		if r.st[i].summed {
			first = i
			break
		}
	}
	k := first
	for k < n && r.st[k].gone {
		k++
	}
	for changed := true; changed && k < n; {
		changed = false
		for u := range r.pair.NumUnits() {
			unit := r.pair.Unit(u)
			lo, hi := -1, -1
			for _, i := range unit {
				if !r.st[i].gone {
					if lo < 0 {
						lo = int(i)
					}
					hi = int(i)
				}
			}
			if lo >= 0 && lo < k && k <= hi {
				k, changed = lo, true
			}
		}
	}
	return k
}

// keptBefore counts kept items before original index at: an inserted
// item's index in the output.
func (r *run) keptBefore(at int) int {
	n := 0
	for i := 0; i < at && i < len(r.st); i++ {
		if !r.st[i].gone {
			n++
		}
	}
	return n
}

func (r *run) decisions() []Decision {
	out := make([]Decision, len(r.req.Items))
	for i, it := range r.req.Items {
		st := &r.st[i]
		cond := r.condensed[i]
		d := Decision{Index: i, Role: it.Role(), Kind: it.Kind, Score: st.score, TokensBefore: st.before, Condensed: cond}
		switch {
		case st.summed:
			d.Decision, d.Reason = DecisionSummarized, evictReason(st)
		case st.gone:
			d.Decision, d.Reason = DecisionEvicted, evictReason(st)
		case len(cond) > 0 || st.orphans > 0:
			d.Decision, d.TokensAfter = DecisionCondensed, st.tokens
			reason := st.reason
			if len(cond) > int(st.dups) {
				reason = joinReason(reason, fmt.Sprintf("tool output over %d chars cut to a preview", r.s.maxToolOutput))
			}
			d.Reason = reason
		default:
			d.Decision, d.TokensAfter = DecisionKept, st.tokens
			d.Reason = st.keep
			if d.Reason == "" {
				d.Reason = "fits the budget"
			}
		}
		out[i] = d
	}
	return out
}
