package smart

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compress/request"
)

// maxValidationRounds bounds emit-validate-rollback rounds; each round
// rolls back at least one segment, and a rollback cannot make another
// segment fail, so two rounds suffice in practice.
const maxValidationRounds = 4

// emitValidated emits the selected rewrites and validates the output
// against the original, rolling back segments that fail until the output
// passes. It returns the output, its parse and its tokens; a nil output
// means the original is returned (nothing selected, a whole-request
// fallback, or no savings).
func (r *run) emitValidated() ([]byte, *request.Request, int) {
	for range maxValidationRounds {
		var sel []*cand
		for _, c := range r.cands {
			if c.selected() {
				sel = append(sel, c)
			}
		}
		if len(sel) == 0 {
			return nil, r.req, r.before
		}
		plan := r.req.NewPlan()
		emitted := sel[:0]
		for _, c := range sel {
			if !plan.SetText(c.ref, c.text) {
				r.rollback(c, "segment has no value to rewrite")
				continue
			}
			emitted = append(emitted, c)
		}
		sel = emitted
		if len(sel) == 0 {
			return nil, r.req, r.before
		}
		out, err := plan.Emit()
		if err != nil {
			r.fallback("emit_failed")
			return nil, r.req, r.before
		}
		outReq, bad, global := r.validate(out, sel)
		if global != "" {
			r.fallback(global)
			return nil, r.req, r.before
		}
		if len(bad) > 0 {
			for _, c := range slices.SortedFunc(maps.Keys(bad), func(a, b *cand) int {
				return cmp.Compare(a.ref.Item*1_000_000+a.ref.Seg, b.ref.Item*1_000_000+b.ref.Seg)
			}) {
				r.rollback(c, bad[c])
			}
			continue
		}
		after := r.est.Request(outReq)
		cost := 0
		for _, c := range sel {
			if c.transform == TransformRehydrate {
				cost += c.after - c.seg.Tokens
			}
		}
		if after-cost >= r.before {
			if cost == 0 {
				for _, c := range sel {
					c.decision, c.reason = DecisionRejected, "the rewrite as a whole saves no tokens"
				}
				r.rep.PolicyReasons = append(r.rep.PolicyReasons, "no_savings")
				return nil, r.req, r.before
			}
		}
		return out, outReq, after
	}
	r.fallback("validation_did_not_converge")
	return nil, r.req, r.before
}

func (r *run) rollback(c *cand, why string) {
	c.decision, c.reason = DecisionRolledBack, why
	r.rep.SegmentRollbackCount++
}

// fallback returns the original request: the failure touches protocol,
// continuation or the request's structure.
func (r *run) fallback(why string) {
	r.rep.FullRequestFallbackCount = 1
	r.rep.PolicyReasons = append(r.rep.PolicyReasons, "full_request_fallback_"+why)
	for _, c := range r.cands {
		if c.selected() {
			c.decision, c.reason = DecisionRolledBack, "whole request returned as it was: "+why
		}
	}
	r.o.log.Warn("smart context fell back to the original request", "reason", why, "session_id", r.scope)
}

// validate checks an output against the original. global names a failure
// that touches protocol, continuation or structure (the whole request
// falls back); bad maps segments that fail their own checks to the
// reason.
func (r *run) validate(out []byte, sel []*cand) (outReq *request.Request, bad map[*cand]string, global string) {
	outReq, err := request.Parse(out, r.req.Format)
	if err != nil {
		return nil, nil, "output_does_not_parse"
	}
	in := r.req
	if outReq.ItemsKey != in.ItemsKey || len(outReq.Items) != len(in.Items) || outReq.InputString != in.InputString {
		return nil, nil, "item_structure_changed"
	}
	if g := controlPlane(in, outReq, sel); g != "" {
		return nil, nil, g
	}
	if len(outReq.Pair().Orphans) != len(in.Pair().Orphans) {
		return nil, nil, "tool_call_pairing_changed"
	}
	bad = map[*cand]string{}
	for _, c := range sel {
		if why := r.checkSegment(c, &outReq.Items[c.ref.Item].Segments[c.ref.Seg]); why != "" {
			bad[c] = why
		}
	}
	return outReq, bad, ""
}

// controlPlane proves, byte by byte, that everything but the rewritten
// values is as it was: the members around the items array, the
// separators between items, each item's bytes outside its rewritten
// values, and every segment not rewritten (ids, tool calls, reasoning,
// roles, order). It returns the failure's name, or "".
func controlPlane(in, out *request.Request, sel []*cand) string {
	n := len(in.Items)
	if n == 0 {
		if !bytes.Equal(in.Body, out.Body) {
			return "top_level_changed"
		}
		return ""
	}
	ib, ob := in.Body, out.Body
	if !bytes.Equal(ib[:in.Items[0].Span.Start], ob[:out.Items[0].Span.Start]) ||
		!bytes.Equal(ib[in.Items[n-1].Span.End:], ob[out.Items[n-1].Span.End:]) {
		return "top_level_changed"
	}
	for i := 0; i+1 < n; i++ {
		if !bytes.Equal(ib[in.Items[i].Span.End:in.Items[i+1].Span.Start], ob[out.Items[i].Span.End:out.Items[i+1].Span.Start]) {
			return "item_separators_changed"
		}
	}
	changed := map[int][]*cand{}
	for _, c := range sel {
		changed[c.ref.Item] = append(changed[c.ref.Item], c)
	}
	for i := range n {
		a, b := in.Items[i], out.Items[i]
		if a.Role != b.Role || a.Type != b.Type || !slices.Equal(a.Calls, b.Calls) || !slices.Equal(a.Results, b.Results) || len(a.Segments) != len(b.Segments) {
			return "item_identity_changed"
		}
		cs := changed[i]
		if len(cs) == 0 {
			if !bytes.Equal(a.Raw, b.Raw) {
				return "unchanged_item_bytes_differ"
			}
			continue
		}
		rewritten := map[int]bool{}
		for _, c := range cs {
			rewritten[c.ref.Seg] = true
		}
		for j := range a.Segments {
			sa, sb := &a.Segments[j], &b.Segments[j]
			if sa.Kind != sb.Kind || sa.CallID != sb.CallID || sa.Name != sb.Name {
				return "segment_identity_changed"
			}
			if !rewritten[j] && sa.Text != sb.Text {
				return "unchanged_segment_differs"
			}
		}
		slices.SortFunc(cs, func(x, y *cand) int { return cmp.Compare(x.seg.Value.Start, y.seg.Value.Start) })
		pa, pb := a.Span.Start, b.Span.Start
		for _, c := range cs {
			va, vb := c.seg.Value, b.Segments[c.ref.Seg].Value
			if va.Start < pa || vb.Start < pb || !bytes.Equal(ib[pa:va.Start], ob[pb:vb.Start]) {
				return "bytes_outside_rewritten_values_changed"
			}
			pa, pb = va.End, vb.End
		}
		if !bytes.Equal(ib[pa:a.Span.End], ob[pb:b.Span.End]) {
			return "bytes_outside_rewritten_values_changed"
		}
	}
	return ""
}

// checkSegment validates one rewritten segment; it returns why it fails,
// or "".
func (r *run) checkSegment(c *cand, got *request.Segment) string {
	if got.Text != c.text {
		return "emitted text differs from the rewrite"
	}
	if c.transform == TransformRehydrate {
		if artifacts.Hash(c.rehydrate) != c.artifact {
			return "rehydrated text does not match its sha256"
		}
		return ""
	}
	if strings.TrimSpace(c.text) == "" && strings.TrimSpace(c.seg.Text) != "" {
		return "empty mandatory payload"
	}
	ms := ParseMarkers(c.text)
	refs := 0
	for _, m := range ms {
		if m.Kind != MarkerBlob {
			refs++
		}
		if !strings.HasPrefix(c.artifact, m.Hash) {
			return "reference names a text other than the segment's"
		}
	}
	switch {
	case refs > 1:
		return "duplicated appendix: more than one reference"
	case len(ms) > 0 && hasMarker(c.seg.Text):
		return "duplicated appendix: the input already carries a reference"
	case c.artifact == "" && len(ms) > 0:
		return "reference without an artifact"
	case c.artifact != "" && len(ms) == 0:
		return "artifact without a reference"
	}
	if dupLines(c.text) {
		return "duplicated appendix: a kept line is listed twice"
	}
	resolved := false
	if c.artifact != "" {
		if c.artifact != c.in.hash {
			return "reference does not stand for the segment's own text"
		}
		if r.live {
			if _, err := r.o.opts.Store.Verify(r.ctx, r.scope, c.artifact); err != nil {
				return "mandatory reference does not resolve"
			}
		} else if _, ok := r.stored[c.artifact]; !ok {
			return "mandatory reference was not planned"
		}
		resolved = true
	}
	if !resolved {
		norm := normalized(c.text)
		for k, sig := range c.in.signals {
			if !strings.Contains(norm, sig) {
				return fmt.Sprintf("critical signal %d of %d lost", k+1, len(c.in.signals))
			}
		}
	}
	n := r.segTokens(c.seg, c.text)
	if n > c.alloc {
		return fmt.Sprintf("%d tokens over the segment's %d-token allocation", n, c.alloc)
	}
	if n >= c.seg.Tokens {
		return "rewrite does not save tokens"
	}
	return ""
}

// dupLines reports a condensed view that lists a kept line twice.
func dupLines(text string) bool {
	i := strings.Index(text, markerOpen)
	if i < 0 {
		return false
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(text[i:], "\n")[1:] {
		if !strings.HasPrefix(l, "  ") || !strings.Contains(l, "| ") {
			continue
		}
		if seen[l] {
			return true
		}
		seen[l] = true
	}
	return false
}

// finishCounts fills the report from the final decisions.
func (r *run) finishCounts(outReq *request.Request, out []byte, after int) {
	t := &r.rep.Telemetry
	t.EstimatedTokensAfter = after
	if out != nil {
		t.BodyBytesAfter = len(out)
	}
	t.BodyBytesSaved = t.BodyBytesBefore - t.BodyBytesAfter
	if t.BodyBytesBefore > 0 {
		t.RewriteRatioPercent = t.BodyBytesAfter * 100 / t.BodyBytesBefore
	}
	t.AvailableTokens = max(0, r.b.usable-after)
	r.rep.Fits = after <= r.b.usable
	t.ArtifactHashFailures = len(r.hashFails)
	t.ArtifactsStored = r.keptStored
	t.MissingArtifactRequests = len(r.missingReq)
	t.UnresolvedArtifactRefs = len(r.unresolved)
	r.rep.Unresolved = r.unresolved
	classes := map[request.Class]int{}
	override := map[request.SegRef]*cand{}
	for _, c := range r.cands {
		override[c.ref] = c
	}
	for i, it := range r.req.Items {
		for j := range it.Segments {
			if c := override[request.SegRef{Item: i, Seg: j}]; c != nil {
				classes[c.class]++
			} else {
				classes[it.Segments[j].Class]++
			}
		}
	}
	r.rep.Classes = classes
	for _, c := range r.cands {
		d := Decision{Item: c.ref.Item, Seg: c.ref.Seg, Kind: c.seg.Kind, Class: c.class, Transform: c.transform,
			Decision: c.decision, Reason: c.reason, TokensBefore: c.seg.Tokens, TokensAfter: c.seg.Tokens}
		if c.transform != "" {
			t.CandidateCount++
		}
		if !c.selected() {
			if c.transform != "" {
				t.RejectedCandidateCount++
				if c.decision == DecisionKept {
					d.Decision = DecisionRejected
				}
			}
			r.rep.Segments = append(r.rep.Segments, d)
			continue
		}
		d.TokensAfter = c.after
		d.SHA256 = c.artifact
		t.SelectedCandidateCount++
		t.SelectedCandidateUtilityPoint += max(0, c.seg.Tokens-c.after) * utilityPercent[c.transform] / 100
		t.TransformedSegmentCounts[string(c.class)]++
		switch c.transform {
		case TransformLossless:
			t.LosslessTransforms++
		case TransformBlob:
			t.BlobOutputsCondensed++
		case TransformCondense, TransformReference:
			t.ToolOutputsCondensed++
			t.RepoStateFacts += c.repo
		case TransformDuplicate:
			if c.dupOf >= 0 {
				t.DuplicateTexts++
			} else {
				t.CrossTurnDuplicateTexts++
			}
			if c.repeat {
				t.RepeatToolOutputRefs++
			}
		case TransformSuperseded:
			if c.class == request.ClassDroppableDuplicate {
				t.DuplicateTexts++
			} else {
				t.StaticContextDeltas++
			}
		case TransformRehydrate:
			t.RehydratedRefs++
			t.RehydrationTokenCost += c.after - c.seg.Tokens
		}
		r.rep.Segments = append(r.rep.Segments, d)
	}
	for _, h := range slices.Sorted(maps.Keys(r.stored)) {
		use := r.stored[h]
		used := false
		for _, c := range r.cands {
			if c.selected() && c.artifact == h {
				used = true
				break
			}
		}
		if !used {
			continue
		}
		r.rep.Artifacts = append(r.rep.Artifacts, use)
		if use.Status == artifacts.StatusCreated || use.Status == artifacts.StatusRepaired {
			t.ArtifactsStored++
		}
	}
}

// correctiveWords open or fill a user message that corrects the model.
var correctiveWords = []string{"no,", "no.", "that's wrong", "that is wrong", "not what i asked", "you forgot", "still fail", "still broken", "doesn't work", "didn't work", "does not work", "try again", "revert that", "undo that", "wrong file", "i said"}

// pathKeys are the argument names that carry a file path.
var pathKeys = []string{"path", "file_path", "filepath", "file", "filename", "target_file"}

// quality computes the quality proxies the request itself shows.
func (r *run) quality() {
	t := &r.rep.Telemetry
	t.InvalidToolCallContinuaton = len(r.req.Pair().Orphans)
	seenCall := map[string]bool{}
	seenPath := map[string]bool{}
	firstUser := true
	latestUser := -1
	for i, it := range r.req.Items {
		if it.Role == "user" && !it.Notice && hasUserText(it) {
			latestUser = i
			if firstUser {
				firstUser = false
			} else if corrective(it) {
				t.CorrectiveUserMessages++
			}
		}
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != request.SegToolCall {
				continue
			}
			k := s.Name + "\x00" + s.Text
			if seenCall[k] {
				t.RepeatedToolCallCount++
			}
			seenCall[k] = true
			if p := readPath(s); p != "" {
				if seenPath[p] {
					t.ModelRereadRequests++
				}
				seenPath[p] = true
			}
		}
	}
	if !r.o.session(r.scope).rewritten || latestUser < 0 {
		return
	}
	for _, it := range r.req.Items[latestUser+1:] {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != request.SegToolResult {
				continue
			}
			in := r.o.texts.info(r.o.texts.key(s.Text), s.Text)
			if in.isBuild && (in.isError || s.IsError) {
				t.TestOrBuildFailedAfter++
			}
		}
	}
}

func corrective(it *request.Item) bool {
	text := strings.ToLower(it.Text())
	for _, w := range correctiveWords {
		if strings.HasPrefix(text, w) || strings.Contains(text, " "+w) {
			return true
		}
	}
	return false
}

// readPath returns the path a file-reading call reads, or "".
func readPath(s *request.Segment) string {
	n := strings.ToLower(s.Name)
	read := false
	for _, w := range readWords {
		if strings.Contains(n, w) {
			read = true
			break
		}
	}
	if !read || len(s.Text) > 4096 || !strings.HasPrefix(strings.TrimSpace(s.Text), "{") {
		return ""
	}
	var args map[string]any
	if json.Unmarshal([]byte(s.Text), &args) != nil {
		return ""
	}
	for _, k := range pathKeys {
		if p, ok := args[k].(string); ok && p != "" {
			return p
		}
	}
	return ""
}
