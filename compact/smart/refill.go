package smart

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ctxd/ctxd/compact/request"
)

// minRefill is the least room worth a refill: under it a view would grow
// by a few lines at most.
const minRefill = 64

// refill spends the room the pressure policy and the hard budget left on
// a request that was over the usable window: they reduce every older
// output to a short preview or a reference (and the newest to a preview
// when it is large), sizes fixed per mode, so when one large output
// forced the hardest mode most of the window can stay empty (a 31k-token
// request with a 12k-token newest read went out as 848 tokens of 5,888).
// The outputs of the latest turn (the ones the model answers next) so
// reduced get, newest first, the largest view that fits what is left:
// whole when it fits, else head, critical lines and tail (condensedView)
// with the same reference. Older outputs keep their views: refilled,
// their bytes would follow the room left, which changes every turn, and
// the provider's cached prefix would break there (the chat 32k replay
// billed 1.27 of pass-through that way, 0.45 without); the latest
// turn's outputs are the request's tail, new this turn, and take the
// policy's view the next. It runs only under pressure on a request over
// the window: below it (the masking steps, the cache contract) nothing
// changes.
func (r *run) refill() {
	if r.b.band == BandLow || r.before <= r.b.usable {
		return
	}
	room := r.b.usable - r.estimateAfter()
	if room < minRefill {
		return
	}
	// The latest turn's outputs: those after the last assistant message
	// (or call).
	open := r.turnStart
	var cs []*cand
	for _, c := range r.cands {
		if c.ref.Item >= open && c.selected() && c.seg.Kind == request.SegToolResult && c.in != nil && (c.transform == TransformReference || c.transform == TransformCondense) {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b *cand) int {
		return cmp.Or(cmp.Compare(b.ref.Item, a.ref.Item), cmp.Compare(b.ref.Seg, a.ref.Seg))
	})
	for _, c := range cs {
		if room < minRefill || r.ctx.Err() != nil {
			return
		}
		if whole := int(c.seg.Tokens); whole-c.after <= room {
			room -= whole - c.after
			c.transform, c.text, c.after, c.alloc, c.artifact = "", "", whole, whole, ""
			c.decision, c.reason = DecisionKept, "kept whole: the room the pressure policy left on a request over the window"
			continue
		}
		text, tokens := r.largestView(c, c.after+room)
		if tokens <= c.after {
			continue
		}
		room -= tokens - c.after
		c.text, c.after, c.alloc = text, tokens, tokens
		c.reason = fmt.Sprintf("%s; refilled to %d tokens: the room the pressure policy left on a request over the window", c.reason, tokens)
	}
}

// largestView is c's condensedView (head, critical lines, tail; a file
// read without tail) of the most bytes whose segment counts at most
// limit tokens (request.LargestFit, from the text's own bytes per
// token); tokens 0 when none tried fits.
func (r *run) largestView(c *cand, limit int) (text string, tokens int) {
	s := c.seg
	tail := 1 << 20
	if r.fileRead(s) {
		tail = 0
	}
	guess := int(float64(limit) * float64(len(s.Text)) / float64(max(s.Tokens, 1)))
	request.LargestFit(limit, guess, len(s.Text), func(n int) (int, bool) {
		t, ok := condensedView(s.Text, c.in.Hash, view{head: 1 << 20, tail: tail, chars: n}, r.rt)
		if !ok {
			return 0, false
		}
		k := r.segTokens(s, t)
		if k <= limit {
			text, tokens = t, k // the latest fit is the largest
		}
		return k, true
	})
	return text, tokens
}
