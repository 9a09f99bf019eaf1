package smart

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/compact/request"
)

// index finds the calls, the latest turn's text and the caller's exact
// items.
func (r *run) index() {
	req := r.req
	r.calls = map[string]callInfo{}
	r.exact = map[int]bool{}
	for _, i := range r.c.ExactItems {
		r.exact[i] = true
	}
	// Never modified: system messages, the latest user message (the
	// latest user-role item with text or an image: an agent's task stays
	// the latest one while tool results follow it) and the latest
	// user-role item (in Anthropic Messages the message carrying the
	// latest tool results), as compact/prune protects them.
	r.protected = map[int]bool{}
	lastUserRole, lastUserText := -1, -1
	for i, it := range req.Items {
		switch it.Role() {
		case "system", "developer":
			r.protected[i] = true
		case "user":
			lastUserRole = i
			if it.Kind != request.KindSummary && hasUserText(it) {
				lastUserText = i
			}
		}
	}
	for _, i := range []int{lastUserRole, lastUserText} {
		if i >= 0 {
			r.protected[i] = true
		}
	}
	latestUser := -1
	var calls []request.Call
	var at []int // at[k]: the item of calls[k]
	for i, it := range req.Items {
		for j := range it.Segments {
			if s := &it.Segments[j]; s.Kind == request.SegToolCall && s.CallID() != "" {
				calls = append(calls, request.Call{ID: s.CallID(), Name: s.Name(), Args: s.Text})
				at = append(at, i)
			}
		}
		if it.Role() == "user" && !it.Notice && it.Kind != request.KindSummary && hasUserText(it) {
			latestUser = i
		}
	}
	// Each call's arguments are parsed once, for what it reads and for
	// the superseded-read rule (request.Superseded: a file read is
	// superseded when a later call reads the same lines, or the whole
	// file, again, or edits it), which selectOutputs reads on every
	// selection.
	reads, sup := r.o.cache.ReadsOf(calls)
	r.sup = sup
	for k, c := range calls {
		if _, dup := r.calls[c.ID]; !dup {
			r.calls[c.ID] = callInfo{item: at[k], name: c.Name, args: c.Args, read: reads[k].Read, isRead: reads[k].IsRead}
		}
	}
	// The latest turn: the latest user request, what the assistant said
	// and called since, and the assistant message just before it. Its
	// texts are kept as they are, not joined: they may be most of a
	// large request.
	from := max(latestUser, 0)
	for i := from - 1; i >= 0; i-- {
		if req.Items[i].Role() == "assistant" {
			from = i
			break
		}
	}
	r.latest = r.latest[:0]
	for _, it := range req.Items[from:] {
		if it.Role() != "user" && it.Role() != "assistant" && it.Kind != request.KindToolCall {
			continue
		}
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind == request.SegText || s.Kind == request.SegToolCall {
				r.latest = append(r.latest, s.Text)
			}
		}
	}
	// The latest turn proper: a user message after the last assistant
	// message (an agent that names a file in its own turn reads it anew
	// with a tool; measured, recalling for those cost 9 points of the
	// 128k bill).
	last := len(req.Items)
	for i := len(req.Items) - 1; i >= 0; i-- {
		if req.Items[i].Role() == "assistant" || req.Items[i].Kind == request.KindToolCall {
			break
		}
		last = i
	}
	r.turnStart = last
	r.lastTurn = r.lastTurn[:0]
	for _, it := range req.Items[last:] {
		if it.Role() != "user" || it.Notice || it.Kind == request.KindSummary {
			continue
		}
		for j := range it.Segments {
			if it.Segments[j].Kind == request.SegText {
				r.lastTurn = append(r.lastTurn, it.Segments[j].Text)
			}
		}
	}
}

// latestHas reports whether a text of the latest turn holds sub (a hash,
// a path: never a line break, so no match spans two texts).
func (r *run) latestHas(sub string) bool {
	for _, t := range r.latest {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

// keeps reports a candidate never modified: in a system message or the
// latest user message. Tool results in a user-role item (Anthropic
// Messages carries them there, beside the user's text or alone) are
// outputs like a Chat tool message: within the masking horizon they go as sent, and under
// pressure they are condensed like one, so a large newest output does
// not keep the request over the window.
func (r *run) keeps(c *cand) bool {
	return r.protected[c.ref.Item] && !(c.seg.Kind == request.SegToolResult && r.req.Items[c.ref.Item].Role() == "user")
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
	if s.Value().Len() == 0 || len(s.Images()) > 0 {
		return false
	}
	v := r.req.Body[s.Value().Start:s.Value().End]
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
	if r.c.WindowSize > 0 {
		pol.keepRecent = r.c.WindowSize
	}
	req := r.req
	r.cands = r.cands[:0]
	r.maskHinted = false
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
			c.key = r.o.cache.Key(s.Text)
			c.in = r.o.cache.Info(c.key, s.Text)
			r.cands = append(r.cands, c)
			if s.Kind == request.SegToolResult {
				outputs = append(outputs, c)
			}
		}
	}
	r.selectOutputs(outputs, pol)
	r.selectNotices(pol)
}

// reasonNoCrossTurn is the policy reason of a continued request that
// makes no cross-turn duplicates after a previous-response-not-found.
const reasonNoCrossTurn = "no_cross_turn_refs_after_previous_response_not_found"

// selectOutputs decides the tool outputs, oldest first (a duplicate's
// anchor is decided before it).
func (r *run) selectOutputs(outputs []*cand, pol policy) {
	first := map[string]*cand{}
	continuation := r.continuation()
	if continuation && r.c.Feedback.PreviousResponseNotFound > 0 {
		// The provider lost the previous response: outputs of earlier
		// turns are not in its context, so a duplicate of one is not a
		// duplicate there (the output is kept whole).
		continuation = false
		if !slices.Contains(r.rep.PolicyReasons, reasonNoCrossTurn) {
			r.rep.PolicyReasons = append(r.rep.PolicyReasons, reasonNoCrossTurn)
		}
	}
	// Below pressure only lossless rewrites: duplicates, terminal noise,
	// binary data and file reads a later read of the same file
	// supersedes (both behind references).
	lossy := r.b.band != BandLow
	sup := r.sup // index: the superseded reads
	// The boundaries move in steps (Call.MaskStep): outputs k >=
	// recentFrom are the recent ones under pressure, k >= criticalFrom
	// the latest whose errors stay exact, plan.masked(k) the ones masked
	// below pressure (planMasking). Between steps a decision depends only on the
	// output itself and those before it, so the next turn forwards the
	// same bytes and appends (provider prompt caches hold).
	// Under pressure the steps are finer (at most half the outputs the
	// mode keeps recent): saving comes first there.
	n, step := len(outputs), max(r.c.MaskStep, 1)
	pstep := max(min(step, pol.keepRecent/2), 1)

	recentFrom := stepBoundary(n, pol.keepRecent, pstep)
	criticalFrom := stepBoundary(n, pol.criticalRecent, max(min(step, pol.criticalRecent/2), 1))

	masking := r.c.MaskHorizon > 0
	var plan maskPlan
	if masking {
		plan = r.planMasking(outputs, step, sup)
	}
	r.maskStepped = plan.last > 0
	// old: past the boundary (masked by a step below pressure, the
	// older outputs under it).
	old := plan.masked
	if lossy {
		old = func(k int) bool { return k < recentFrom }
	}
	// File reads the agent has since read again are masked at the
	// step (staleReads), within the horizon too.
	var stale map[int]int
	if masking && !lossy {
		stale = r.staleReads(outputs, sup, &plan)
	}
	named := r.namedOutputs(outputs, func(k int, c *cand) bool { return plan.masked(k) || !lossy && r.long(k, c.seg) })
	for k, c := range outputs {
		s := c.seg
		staleBy, isStale := stale[k]
		// Past the boundary, or stale at a step: decided by itself alone.
		settled := masking && (old(k) || isStale)
		switch {
		case r.exact[c.ref.Item]:
			c.class, c.reason = request.ClassProtocolExact, "marked exact by the caller"
			continue
		case r.keeps(c):
			if request.HasMarker(s.Text) {
				r.inputRefs(c) // checked (fail closed), never rewritten
			}
			c.class, c.transform, c.text, c.artifact, c.decision = request.ClassProtocolExact, "", "", "", DecisionKept
			c.reason = "in the latest user message: never modified"
			continue
		case request.HasMarker(s.Text):
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
		if a, ok := first[c.in.Hash]; ok {
			// With masking, a duplicate of a condensed anchor becomes a
			// reference at the masking boundary, so it changes only at
			// a masking step.
			if !masking && (verbatim(a) || k < recentFrom) || masking && old(k) {
				r.duplicate(c, a)
				r.choose(c, pol)
				continue
			}
		} else {
			first[c.in.Hash] = c
		}
		if continuation && r.o.opts.Store != nil {
			if _, err := r.o.opts.Store.Verify(r.ctx, r.scope, c.in.Hash); err == nil {
				r.crossTurn(c)
				r.choose(c, pol)
				continue
			}
		}
		isErr := s.IsError || c.in.IsError
		sp, superseded := sup[s.CallID()]
		if masking {
			// Supersession depends on later calls: with masking, older
			// reads are masked at their step instead.
			superseded = false
		}
		if superseded || isStale {
			// A file read's output is the file's text: error output only
			// when it reports a failure (signal.Info.Failure), as compress
			// judges it.
			isErr = s.IsError || c.in.Failure
		}
		// A very long output within the horizon is condensed from its
		// first turn whatever the turns after it say (its critical lines
		// stay in its view), so its bytes do not change until its step.
		longNow := !lossy && !plan.masked(k) && r.long(k, s) && !named[k]
		switch {
		case k >= criticalFrom && isErr && !longNow && !settled:
			// Past the masking boundary an error output is masked at its
			// step (its critical lines stay in view): with a horizon
			// shorter than the critical one, the critical boundary, which
			// moves every turn, would otherwise change it between steps.
			c.class, c.reason = request.ClassCriticalExact, "error output of the latest turns"
			continue
		case !settled && c.in.IsDiff && r.referred(c.in.Paths) && !longNow:
			c.class, c.reason = request.ClassCriticalExact, "diff the latest turn refers to"
			continue
		case c.in.HasBlob && (!masking || old(k)):
			// Encoded or binary data carries nothing a model reads: it
			// goes behind a reference at any pressure, like the
			// whitespace of machine output.
			c.class = request.ClassLosslessTransformable
			r.setView(c, TransformBlob, func() (string, bool) { return blobView(s.Text, c.in.Hash, r.rt) }, view{}, int(s.Tokens))
			if c.transform != "" {
				c.artifact = c.in.Hash
				r.choose(c, pol)
				continue
			}
		}
		switch {
		case !lossy && named[k]:
			c.class, c.reason = request.ClassCriticalExact, "masked or condensed, but the latest turn names its file: kept whole"
			r.inlined = append(r.inlined, c.in.Hash)
			continue
		case isStale:
			c.class = request.ClassRehydratableExact
			r.maskSuperseded(c, s, staleBy)
		case !lossy && plan.masked(k) && r.fileRead(s):
			c.class = request.ClassRehydratableExact
			r.mask(c, s, 2, 0, TransformReference, "masked: older file read beyond the horizon: head, critical lines, locations and reference")
		case !lossy && plan.masked(k):
			c.class = request.ClassCondensable
			r.mask(c, s, 2, 2, TransformCondense, "masked: older output beyond the horizon: head, critical lines, locations, tail and reference")
		case !lossy && superseded:
			c.class = request.ClassRehydratableExact
			r.condense(c, s, pol, 6, 0, TransformReference)
			how := "read"
			if sp.Edit {
				how = "edit"
			}
			c.reason = "file read superseded by a later " + how + " of " + sp.Path + ": head and reference"
		case longNow:
			c.class = request.ClassCondensable
			r.condenseLong(c, s)
		case !lossy && masking:
			// Within the horizon an output goes as the agent sent it,
			// even its terminal noise: its bytes change only at its
			// masking step (in Anthropic Messages the latest output is
			// never modified, so a rewrite the turn after would break
			// the cached prefix).
			c.class, c.reason = request.ClassLosslessTransformable, "within the masking horizon: kept as sent until its step"
			continue
		case !lossy:
			c.class = request.ClassLosslessTransformable
			if c.in.Noisy {
				r.setView(c, TransformLossless, func() (string, bool) { return losslessView(s.Text) }, view{}, int(s.Tokens))
				c.reason = "below pressure: terminal noise removed"
			} else {
				c.reason = "below pressure: lossless rewrites only"
			}
		case k >= recentFrom && int(s.Tokens) > pol.largeRecent:
			c.class = request.ClassRehydratableExact
			v := view{head: 30, tail: 15, chars: pol.refAlloc * 3}
			r.setView(c, TransformReference, func() (string, bool) { return condensedView(s.Text, c.in.Hash, v, r.rt) }, v, pol.refAlloc)
			c.artifact = c.in.Hash
			c.reason = "large recent output: preview and reference"
		case k >= recentFrom:
			c.class = request.ClassLosslessTransformable
			if c.in.Noisy {
				r.setView(c, TransformLossless, func() (string, bool) { return losslessView(s.Text) }, view{}, int(s.Tokens))
				c.reason = "recent output: terminal noise removed"
			} else {
				c.reason = "recent output"
			}
		case r.fileRead(s):
			c.class = request.ClassRehydratableExact
			r.condense(c, s, pol, 6, 0, TransformReference)
			c.reason = "older file read: head and reference"
		default:
			c.class = request.ClassCondensable
			r.condense(c, s, pol, 8, 6, TransformCondense)
			c.reason = "older output: head, critical lines, tail and reference"
		}
		if c.transform == "" {
			c.artifact = ""
		}
		if c.artifact != "" && r.o.opts.Store == nil {
			// No store to keep the whole text: only a lossless rewrite.
			c.transform, c.text, c.artifact = "", "", ""
			c.reason += "; no artifact store"
		}
		if c.transform == "" && c.in.Noisy {
			r.setView(c, TransformLossless, func() (string, bool) { return losslessView(s.Text) }, view{}, int(s.Tokens))
			c.artifact = ""
		}
		if c.transform != TransformLossless && c.transform != "" {
			c.repo = c.in.Repo
		}
		r.choose(c, pol)
	}
}

// recallPercent of the usable window bounds the masked outputs kept
// whole because the latest turn names their file.
const recallPercent = 5

// namedOutputs picks, among the outputs hidden reports (masked beyond
// the horizon, or very long ones condensed within it), those that come
// back whole: those whose call read or changed a file the latest turn
// names (the newest output of each such file), and those a previous
// turn of the session brought back (sticky, so the prefix stays), newest
// first within recallPercent of the usable window. Keys are indexes in
// outputs.
func (r *run) namedOutputs(outputs []*cand, hidden func(k int, c *cand) bool) map[int]bool {
	named := map[int]bool{}
	if r.c.MaskHorizon <= 0 {
		return named
	}
	left := r.b.usable * recallPercent / 100
	seen := map[string]bool{}
	for k := len(outputs) - 1; k >= 0; k-- {
		c := outputs[k]
		if !hidden(k, c) {
			continue
		}
		ci, ok := r.calls[c.seg.CallID()]
		if !ok || int(c.seg.Tokens) > left {
			continue
		}
		pick := r.sticky[c.in.Hash]
		if !pick {
			l := &ledger{}
			l.call(request.NewSegment(request.SegToolCall, ci.name, "", ci.args), "")
			for _, p := range append(l.read.order, l.changed.order...) {
				if !seen[p] && r.lastTurnNames(p) {
					seen[p], pick = true, true
				}
			}
		}
		if pick {
			named[k] = true
			left -= int(c.seg.Tokens)
		}
	}
	return named
}

// lastTurnNames reports whether a text of the latest turn proper names
// path p (or its file name, when that is distinctive).
func (r *run) lastTurnNames(p string) bool {
	if p == "" {
		return false
	}
	name := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p)-i > 4 {
		name = p[i+1:]
	}
	for _, t := range r.lastTurn {
		if strings.Contains(t, p) || name != "" && strings.Contains(t, name) {
			return true
		}
	}
	return false
}

// stepBoundary is the index from which the latest outputs of n are kept
// (about keep of them): n − keep rounded down to a multiple of step, so
// it moves only every step outputs; 0 when n ≤ keep.
func stepBoundary(n, keep, step int) int {
	if n <= keep {
		return 0
	}
	return (n - keep) / step * step
}

// verbatim reports an anchor whose content stays readable in the output.
func verbatim(a *cand) bool {
	return !a.selected() || a.transform == TransformLossless
}

// continuation reports a request that continues server-side state
// (Responses with previous_response_id): the model has seen the earlier
// turns, so an output identical to one it saw there can be a reference.
func (r *run) continuation() bool {
	if r.continued == 0 {
		r.continued = -1
		if r.req.Format == request.FormatResponses {
			var top map[string]json.RawMessage
			if json.Unmarshal(r.topLevel(), &top) == nil {
				if v, ok := top["previous_response_id"]; ok && string(v) != "null" && string(v) != `""` {
					r.continued = 1
				}
			}
		}
	}
	return r.continued == 1
}

// topLevel returns the request without its items: the bytes before the
// first item and after the last, which read as the same object with an
// empty items array.
func (r *run) topLevel() []byte {
	if len(r.req.Items) == 0 {
		return r.req.Body
	}
	b := r.req.Body
	first, last := r.req.Items[0].Span(), r.req.Items[len(r.req.Items)-1].Span()
	out := make([]byte, 0, first.Start+len(b)-last.End)
	out = append(out, b[:first.Start]...)
	return append(out, b[last.End:]...)
}

func (r *run) duplicate(c, anchor *cand) {
	c.class, c.transform, c.dupOf = request.ClassDroppableDuplicate, TransformDuplicate, anchor.ref.Item
	where := fmt.Sprintf("message %d", anchor.ref.Item)
	if id := anchor.seg.CallID(); id != "" {
		where = fmt.Sprintf("call %s (message %d)", id, anchor.ref.Item)
		if a, b := r.calls[id], r.calls[c.seg.CallID()]; a.name != "" && a.name == b.name && a.args == b.args {
			c.repeat = true
		}
	}
	c.text = r.rt.Marker(request.MarkerDup, c.in.Hash, c.in.Bytes, c.in.Lines, "identical to the output of "+where)
	c.after = r.segTokens(c.seg, c.text)
	c.alloc = c.after
	c.artifact = c.in.Hash
	c.reason = "same output as earlier in the request"
}

func (r *run) crossTurn(c *cand) {
	c.class, c.transform = request.ClassDroppableDuplicate, TransformDuplicate
	c.text = r.rt.Marker(request.MarkerDup, c.in.Hash, c.in.Bytes, c.in.Lines, "identical to an output of an earlier turn of this conversation")
	c.after = r.segTokens(c.seg, c.text)
	c.alloc = c.after
	c.artifact = c.in.Hash
	c.reason = "same output as in an earlier turn (continued with previous_response_id)"
}

// setView builds (or finds cached) a view of c's text and sets it as the
// candidate when it builds.
func (r *run) setView(c *cand, transform string, build func() (string, bool), v view, alloc int) {
	k := viewKey{text: c.key, transform: transform, v: v, encoding: r.b.counter.Encoding(), rt: r.rt, kind: c.seg.Kind, name: c.seg.Name()}
	res := cachedView(r.o.cache, k, c.seg.Text, build, func(t string) int { return r.segTokens(c.seg, t) })
	if !res.ok {
		return
	}
	c.transform, c.text, c.after, c.alloc = transform, res.text, res.tokens, alloc+r.hintCost
}

// segTokens counts a segment as it would be with text.
func (r *run) segTokens(s *request.Segment, text string) int {
	return r.est.Segment(request.NewSegment(s.Kind, s.Name(), "", text))
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
	case int(c.seg.Tokens)-c.after < pol.minSaving:
		c.decision, c.reason = DecisionRejected, fmt.Sprintf("saves %d tokens, under the %d-token minimum", int(c.seg.Tokens)-c.after, pol.minSaving)
	case farOver(c.after, c.alloc, int(c.seg.Tokens)):
		c.decision, c.reason = DecisionRejected, fmt.Sprintf("view needs %d tokens, far over its %d allocation, and saves under half", c.after, c.alloc)
	default:
		c.decision = DecisionRewritten
	}
}

// farOver reports a view of tokens tokens that its allocation refuses:
// far over it and saving under half of the before tokens. A view a
// little over its share still saves most of a large output; choosing and
// validating judge it by this one rule.
func farOver(tokens, alloc, before int) bool {
	return tokens > alloc+max(alloc/2, 64) && 2*tokens > before
}

// referred reports whether the latest turn mentions one of paths (or its
// file name).
func (r *run) referred(paths []string) bool {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if r.latestHas(p) {
			return true
		}
		if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p)-i > 4 && r.latestHas(p[i+1:]) {
			return true
		}
	}
	return false
}

// condense gives an older output a view of its first head and last tail
// lines (plus critical lines) with a reference to the whole, within the
// policy's allocation or the caller's MaxToolOutput; a negative
// MaxToolOutput keeps outputs whole.
func (r *run) condense(c *cand, s *request.Segment, pol policy, head, tail int, transform string) {
	v := view{head: head, tail: tail, chars: pol.condenseAlloc * 3}
	alloc := pol.condenseAlloc
	if m := r.c.MaxToolOutput; m > 0 {
		v.chars, alloc = m, m
	}
	if r.c.MaxToolOutput >= 0 {
		r.setView(c, transform, func() (string, bool) { return condensedView(s.Text, c.in.Hash, v, r.rt) }, v, alloc)
	}
	c.artifact = c.in.Hash
}

// maskMinSaving is the fewest tokens masking an output must save: a
// smaller output stays whole (its reference would cost about as much,
// and every masked output is a change at its step).
const maskMinSaving = 200

// mask sets c's masked view (maskedView: head, tail, a reference and
// every critical line and location between them); none when it saves
// under maskMinSaving tokens. The first masked output of a request says
// how to read references back (the call's retrieval hint); the others
// carry the short marker, which the model reads the same way (about 110
// tokens less each): the first masked output is settled before any later
// one, so this costs no cache stability.
func (r *run) mask(c *cand, s *request.Segment, head, tail int, transform, reason string) {
	v := view{head: head, tail: tail, note: "masked", quiet: r.quietRead(c, s)}
	r.maskWith(c, s, transform, v, reason, "beyond the masking horizon, but masking would save too little", func(rt request.Retrieval) (string, bool) {
		return maskedView(s.Text, c.in.Hash, head, tail, "masked", v.quiet, rt)
	})
}

// quietRead reports a file read that reports no failure: its masked view
// keeps no critical lines (maskedView).
func (r *run) quietRead(c *cand, s *request.Segment) bool {
	return r.fileRead(s) && !s.IsError && !c.in.Failure
}

// maskSuperseded sets the view of a stale file read (staleReads): a
// reference, a note naming the later read that shows the file again, and
// the read's critical lines and locations (maskedView without head or
// tail).
func (r *run) maskSuperseded(c *cand, s *request.Segment, by int) {
	note := fmt.Sprintf("masked: superseded by the read at message %d", by)
	v := view{note: note, quiet: r.quietRead(c, s)}
	r.maskWith(c, s, TransformReference, v, "file read superseded by a later read of the file (at message "+fmt.Sprint(by)+"): masked at its step, critical lines and reference",
		"file read superseded by a later read, but masking would save too little", func(rt request.Retrieval) (string, bool) {
			return maskedView(s.Text, c.in.Hash, 0, 0, note, v.quiet, rt)
		})
}

// staleReads finds the file reads whose text the agent has since seen
// again, by output index (oldest first), each with the item of the
// later read's output: the read's Supersession.Reread (request.Superseded,
// the one rule of when a read is out of date: a later read covers its
// lines, or reads the file after an edit). The latest read of a file is
// never stale, nor a read that only an edit follows: the agent needs its
// text to know what it edited.
//
// The rule runs at masking steps only, so the bytes change only there:
// plan.last is the count of outputs at the latest step; output k is
// stale when its later read's output is before min(plan.last, the count
// at the step that masked it), so a read once judged stale stays stale
// with the same note, and a read judged at one step is not judged again
// until the next.
func (r *run) staleReads(outputs []*cand, sup map[string]request.Supersession, plan *maskPlan) map[int]int {
	if plan.last <= 0 || len(sup) == 0 {
		return nil
	}
	nStep := min(plan.last, len(outputs))
	stale := map[int]int{}
	for k := range nStep {
		sp, ok := sup[outputs[k].seg.CallID()]
		if !ok || sp.Reread == "" {
			continue
		}
		bound := nStep
		if plan.masked(k) {
			bound = min(nStep, plan.at[k])
		}
		if j, ok := plan.byCall[sp.Reread]; ok && k < j && j < bound {
			stale[k] = outputs[j].ref.Item
		}
	}
	return stale
}

// condenseLong sets the view of a very long output within the masking
// horizon (Call.MaskLong): the view `ctxd run` prints (runView: its
// first and last lines and its critical lines between them, within
// about RunLines*160 bytes) and a reference, from the turn it first
// appears, so its bytes never change until its masking step. It hints
// like a masked output (the first view of a request that hides text
// says how to read it back).
func (r *run) condenseLong(c *cand, s *request.Segment) {
	v := runView(RunLines)
	v.note = "condensed when it appeared"
	r.maskWith(c, s, TransformCondense, v, "very long output within the masking horizon: condensed when it appeared (head, critical lines, tail and reference)",
		"very long output within the masking horizon, but condensing would save too little", func(rt request.Retrieval) (string, bool) {
			return condensedView(s.Text, c.in.Hash, v, rt)
		})
}

// long reports the k-th output of a request (oldest first) as one to
// condense when it appears: masking is on with MaskLong, it is not among
// the first MaskHorizon outputs (a session shorter than the horizon goes
// byte for byte), it has more than MaskLong tokens and it is not a file
// read. Its position, size and call alone decide, so the decision is the
// same every turn.
//
// A file read (cat, nl | sed -n, head, an editor's view, a read tool) is
// the code the agent is about to change: it stays whole until its masking
// step like any recent output. Condensing it to its head and tail would
// hide the lines the agent asked for (users want "files in view"); what
// is condensed when it appears is the long output of a command that ran
// something (tests, builds, logs, searches), as `ctxd run` prints it.
func (r *run) long(k int, s *request.Segment) bool {
	if r.c.MaskHorizon <= 0 || r.c.MaskLong <= 0 || k < r.c.MaskHorizon || int(s.Tokens) <= r.c.MaskLong {
		return false
	}
	return !r.fileRead(s)
}

// fileRead reports a tool output answering a call that reads a file
// (request.ReadOf: the one rule of what a read is).
func (r *run) fileRead(s *request.Segment) bool {
	return r.calls[s.CallID()].isRead
}

// maskWith sets c's view built by build (given the retrieval hint it
// carries), none when it saves under maskMinSaving tokens (then c's
// reason is small).
func (r *run) maskWith(c *cand, s *request.Segment, transform string, v view, reason, small string, build func(request.Retrieval) (string, bool)) {
	if r.c.MaxToolOutput < 0 {
		return
	}
	rt := request.Retrieval{}
	if !r.maskHinted {
		rt = r.rt
	}
	k := viewKey{text: c.key, transform: transform, v: v, encoding: r.b.counter.Encoding(), rt: rt, kind: c.seg.Kind, name: c.seg.Name()}
	res := cachedView(r.o.cache, k, c.seg.Text, func() (string, bool) { return build(rt) }, func(t string) int { return r.segTokens(c.seg, t) })
	if !res.ok || int(s.Tokens)-res.tokens < maskMinSaving {
		c.reason = small
		return
	}
	// The view is bounded by its own caps: its allocation is its size.
	c.transform, c.text, c.after, c.alloc = transform, res.text, res.tokens, res.tokens
	c.artifact, c.reason = c.in.Hash, reason
	r.maskHinted = true
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
		case r.protected[c.ref.Item]:
			if request.HasMarker(s.Text) {
				r.inputRefs(c)
			}
			c.class, c.transform, c.text, c.artifact, c.decision = request.ClassProtocolExact, "", "", "", DecisionKept
			c.reason = "system or latest user message: never modified"
			continue
		case request.HasMarker(s.Text):
			r.inputRefs(c)
			continue
		case !r.payloadValue(s) || s.Tokens < minNoticeTokens:
			c.reason = "injected notice"
			continue
		}
		key := noticeKey(s.Text)
		for _, later := range notices[k+1:] {
			if later.in.Hash == c.in.Hash {
				c.class, c.transform = request.ClassDroppableDuplicate, TransformSuperseded
				c.text = noticeMarker(r.rt, s.Text, c.in, fmt.Sprintf("identical to the notice at message %d", later.ref.Item))
				c.reason = "notice repeated later"
				break
			}
			if key != "" && noticeKey(later.seg.Text) == key {
				add, del := lineDelta(s.Text, later.seg.Text)
				c.class, c.transform = request.ClassCondensable, TransformSuperseded
				c.text = noticeMarker(r.rt, s.Text, c.in, fmt.Sprintf("superseded by the notice at message %d (+%d -%d lines)", later.ref.Item, add, del))
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
		c.artifact = c.in.Hash
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
func noticeMarker(rt request.Retrieval, text string, in *info, detail string) string {
	m := rt.Marker(request.MarkerRef, in.Hash, in.Bytes, in.Lines, detail)
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

// estimateAfter is the request's tokens with the selected rewrites.
func (r *run) estimateAfter() int {
	n := r.before
	for _, c := range r.cands {
		if c.selected() {
			n += c.after - int(c.seg.Tokens)
		}
	}
	return n
}
