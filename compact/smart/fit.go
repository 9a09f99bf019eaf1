package smart

import (
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
)

// minFitTokens is the smallest text worth reducing to a reference when
// the hard budget needs room.
const minFitTokens = 48

// fit is the hard budget: when the selected rewrites leave the request
// over the usable window, it degrades in order until the request fits:
// every tool output and notice (oldest first) reduced to its reference;
// then older user and assistant texts reduced to theirs (the message
// stays, its text is behind the reference: Smart Context never removes
// an item). The system messages, the latest user message, tool calls,
// reasoning and anything the caller marked exact are never touched: they
// are the protocol-exact minimum. Without an artifact store nothing can
// be referenced, so nothing is. It reports whether the request fits.
func (r *run) fit() bool {
	if r.estimateAfter() <= r.b.usable {
		return true
	}
	if r.o.opts.Store == nil {
		return false
	}
	r.rep.PolicyReasons = append(r.rep.PolicyReasons, "hard_budget_references")
	for _, c := range r.cands {
		if r.estimateAfter() <= r.b.usable {
			return true
		}
		r.referenceOnly(c)
	}
	for i, it := range r.req.Items {
		if r.exact[i] || r.protected[i] || it.Notice || (it.Role != "user" && it.Role != "assistant") {
			continue
		}
		for j := range it.Segments {
			if r.estimateAfter() <= r.b.usable {
				return true
			}
			s := &it.Segments[j]
			if s.Kind != request.SegText || s.Tokens < minFitTokens || s.Value.Len() == 0 || request.HasMarker(s.Text) {
				continue
			}
			c := &cand{ref: request.SegRef{Item: i, Seg: j}, seg: s, class: request.ClassCondensable, dupOf: -1, decision: DecisionKept}
			c.key = r.o.cache.Key(s.Text)
			c.in = r.o.cache.Info(c.key, s.Text)
			r.cands = append(r.cands, c)
			r.referenceOnly(c)
		}
	}
	return r.estimateAfter() <= r.b.usable
}

// referenceOnly reduces a candidate to its reference: the error line it
// ends with (error output) and the marker; the whole text is stored.
func (r *run) referenceOnly(c *cand) {
	switch {
	case r.exact[c.ref.Item], r.protected[c.ref.Item], c.transform == TransformRehydrate, c.decision == DecisionUnresolved,
		c.class == request.ClassProtocolExact, request.HasMarker(c.seg.Text), !r.payloadValue(c.seg):
		return
	}
	text := r.rt.Marker(request.MarkerRef, c.in.Hash, c.in.Bytes, c.in.Lines, "reduced to its reference to fit the window")
	if c.in.IsError || c.seg.IsError {
		if l := signal.ErrorLine(c.seg.Text); l != "" {
			text = l + "\n" + text
		}
	}
	cur := c.seg.Tokens
	if c.selected() {
		cur = c.after
	}
	after := r.segTokens(c.seg, text)
	if after >= cur {
		return
	}
	c.transform, c.text, c.after, c.alloc, c.artifact = TransformReference, text, after, after, c.in.Hash
	c.decision, c.reason = DecisionRewritten, "hard budget: reduced to its reference"
}

// overBudget is the error of a live call whose request cannot fit the
// usable window even at its protocol-exact minimum.
func (r *run) overBudget(after int) error {
	return fmt.Errorf("optimize request: %w: the request needs %d tokens after every tool output and older message was reduced to its reference; the protocol-exact minimum (system, tools, tool calls, reasoning, the latest user message) does not fit the %d usable tokens of the %d-token window (%d reserved for the reply)",
		ctxd.ErrOverBudget, after, r.b.usable, r.b.window, r.b.reserve)
}
