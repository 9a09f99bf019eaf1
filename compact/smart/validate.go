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
	"github.com/ctxd/ctxd/compact/request"
)

// maxValidationRounds bounds emit-validate-rollback rounds; each round
// rolls back at least one segment, and a rollback cannot make another
// segment fail, so two rounds suffice in practice.
const maxValidationRounds = 4

// emitValidated emits the selected rewrites and validates the output
// against the original, rolling back segments that fail until the output
// passes. It returns the output and its tokens; a nil output means the
// original is returned (nothing selected, a whole-request fallback, or
// no savings).
func (r *run) emitValidated() ([]byte, int) {
	for range maxValidationRounds {
		var sel []*cand
		for _, c := range r.cands {
			if c.selected() {
				sel = append(sel, c)
			}
		}
		if len(sel) == 0 {
			return nil, r.before
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
			return nil, r.before
		}
		out, err := plan.Emit()
		if err != nil {
			r.fallback("emit_failed")
			return nil, r.before
		}
		items, bad, global := r.validate(out, sel)
		if global != "" {
			r.fallback(global)
			return nil, r.before
		}
		if len(bad) > 0 {
			for _, c := range slices.SortedFunc(maps.Keys(bad), func(a, b *cand) int {
				return cmp.Compare(a.ref.Item*1_000_000+a.ref.Seg, b.ref.Item*1_000_000+b.ref.Seg)
			}) {
				r.rollback(c, bad[c])
			}
			continue
		}
		// The output's tokens: the input's, less what each rewritten item
		// counted before, plus what it counts now.
		after := r.before
		for i, it := range items {
			after += r.est.Item(it) - int(r.req.Items[i].Tokens)
		}
		cost := 0
		for _, c := range sel {
			if c.transform == TransformRehydrate {
				cost += c.after - int(c.seg.Tokens)
			}
		}
		if after-cost >= r.before {
			if cost == 0 {
				for _, c := range sel {
					c.decision, c.reason = DecisionRejected, "the rewrite as a whole saves no tokens"
				}
				r.rep.PolicyReasons = append(r.rep.PolicyReasons, "no_savings")
				return nil, r.before
			}
		}
		return out, after
	}
	r.fallback("validation_did_not_converge")
	return nil, r.before
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

// validate checks an output against the original without parsing it
// whole: it walks the output beside the input and proves, byte for byte,
// that the members around the items array, the separators between items
// and every item without a rewrite are as they were; each rewritten item
// is read as one JSON value and parsed alone, and must keep its role,
// type, call and result ids and segments, with every byte outside its
// rewritten values unchanged. Since only values inside items differ, the
// output is valid JSON and pairs its tool calls as the input does.
//
// global names a failure that touches protocol, continuation or
// structure (the whole request falls back); bad maps segments that fail
// their own checks to the reason. items are the rewritten items, parsed.
func (r *run) validate(out []byte, sel []*cand) (items map[int]*request.Item, bad map[*cand]string, global string) {
	in := r.req
	ib := in.Body
	n := len(in.Items)
	if n == 0 {
		if !bytes.Equal(ib, out) {
			return nil, nil, "top_level_changed"
		}
		return nil, nil, ""
	}
	changed := map[int][]*cand{}
	for _, c := range sel {
		changed[c.ref.Item] = append(changed[c.ref.Item], c)
	}
	cur := in.Items[0].Span().Start
	if len(out) < cur || !bytes.Equal(ib[:cur], out[:cur]) {
		return nil, nil, "top_level_changed"
	}
	items, bad = map[int]*request.Item{}, map[*cand]string{}
	for i, a := range in.Items {
		if cs := changed[i]; len(cs) == 0 {
			l := a.Span().Len()
			if cur+l > len(out) || !bytes.Equal(out[cur:cur+l], a.Raw()) {
				return nil, nil, "unchanged_item_bytes_differ"
			}
			cur += l
		} else {
			end, ok := valueEnd(out, cur)
			if !ok {
				return nil, nil, "output_does_not_parse"
			}
			b, err := request.ParseItem(in.Format, out[cur:end])
			if err != nil {
				return nil, nil, "output_does_not_parse"
			}
			if g := sameSkeleton(a, b, cs); g != "" {
				return nil, nil, g
			}
			for _, c := range cs {
				if why := r.checkSegment(c, &b.Segments[c.ref.Seg]); why != "" {
					bad[c] = why
				}
			}
			items[i] = b
			cur = end
		}
		var gap []byte
		if i+1 < n {
			gap = ib[a.Span().End:in.Items[i+1].Span().Start]
		} else {
			gap = ib[a.Span().End:]
		}
		if cur+len(gap) > len(out) || !bytes.Equal(out[cur:cur+len(gap)], gap) {
			if i+1 < n {
				return nil, nil, "item_separators_changed"
			}
			return nil, nil, "top_level_changed"
		}
		cur += len(gap)
	}
	if cur != len(out) {
		return nil, nil, "top_level_changed"
	}
	return items, bad, ""
}

// valueEnd returns the end of the JSON value that starts at b[start],
// reading it with encoding/json (which validates it).
func valueEnd(b []byte, start int) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(b[start:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return 0, false
	}
	return start + int(dec.InputOffset()), true
}

// sameSkeleton compares an input item with its rewrite (parsed alone, so
// its spans are relative to its own bytes): identity, every segment not
// rewritten, and every byte outside the rewritten values.
func sameSkeleton(a, b *request.Item, cs []*cand) string {
	if a.Role() != b.Role() || a.Type() != b.Type() || !slices.Equal(a.Calls(), b.Calls()) || !slices.Equal(a.Results(), b.Results()) || len(a.Segments) != len(b.Segments) {
		return "item_identity_changed"
	}
	rewritten := map[int]bool{}
	for _, c := range cs {
		rewritten[c.ref.Seg] = true
	}
	for j := range a.Segments {
		sa, sb := &a.Segments[j], &b.Segments[j]
		if sa.Kind != sb.Kind || sa.CallID() != sb.CallID() || sa.Name() != sb.Name() {
			return "segment_identity_changed"
		}
		if !rewritten[j] && sa.Text != sb.Text {
			return "unchanged_segment_differs"
		}
	}
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(x, y *cand) int { return cmp.Compare(x.seg.Value().Start, y.seg.Value().Start) })
	ar, br := a.Raw(), b.Raw()
	base := a.Span().Start // input spans are body offsets; the rewrite's are its own
	pa, pb := 0, 0
	for _, c := range cs {
		va, vb := c.seg.Value(), b.Segments[c.ref.Seg].Value()
		sa, sb := va.Start-base, vb.Start-b.Span().Start
		if sa < pa || sb < pb || !bytes.Equal(ar[pa:sa], br[pb:sb]) {
			return "bytes_outside_rewritten_values_changed"
		}
		pa, pb = va.End-base, vb.End-b.Span().Start
	}
	if !bytes.Equal(ar[pa:], br[pb:]) {
		return "bytes_outside_rewritten_values_changed"
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
	ms := request.ParseMarkers(c.text)
	refs := 0
	for _, m := range ms {
		if m.Kind != request.MarkerBlob {
			refs++
		}
		if !strings.HasPrefix(c.artifact, m.Hash) {
			return "reference names a text other than the segment's"
		}
	}
	switch {
	case refs > 1:
		return "duplicated appendix: more than one reference"
	case len(ms) > 0 && request.HasMarker(c.seg.Text):
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
		if c.artifact != c.in.Hash {
			return "reference does not stand for the segment's own text"
		}
		use, ok := r.stored[c.artifact]
		switch {
		case !ok:
			return "mandatory reference has no artifact"
		case !r.live && use.Status != "planned":
			return "mandatory reference was not planned"
		case r.live && use.Status == "planned":
			return "mandatory reference was not stored"
		}
		// A live call's Put has just written the artifact or verified
		// the stored copy against its hash: the reference resolves.
		resolved = true
	}
	if !resolved {
		norm := normalized(c.text)
		for k, sig := range c.in.Signals {
			if !strings.Contains(norm, sig) {
				return fmt.Sprintf("critical signal %d of %d lost", k+1, len(c.in.Signals))
			}
		}
	}
	n := r.segTokens(c.seg, c.text)
	if farOver(n, c.alloc, int(c.seg.Tokens)) {
		return fmt.Sprintf("%d tokens, far over the segment's %d-token allocation", n, c.alloc)
	}
	if n >= int(c.seg.Tokens) {
		return "rewrite does not save tokens"
	}
	return ""
}

// dupLines reports a condensed view that lists a kept line twice.
func dupLines(text string) bool {
	i := strings.Index(text, request.MarkerOpen)
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
