package smart

import (
	"errors"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/prune"
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
// reasoning and anything the caller marked exact are never touched here;
// when that is not enough, [run.evict] removes whole older rounds behind
// a summary. Without an artifact store nothing can be referenced, so
// nothing is. It reports whether the request fits.
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
		if r.exact[i] || r.protected[i] || it.Notice || (it.Role() != "user" && it.Role() != "assistant") {
			continue
		}
		for j := range it.Segments {
			if r.estimateAfter() <= r.b.usable {
				return true
			}
			s := &it.Segments[j]
			if s.Kind != request.SegText || s.Tokens < minFitTokens || s.Value().Len() == 0 || request.HasMarker(s.Text) {
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
	case r.exact[c.ref.Item], r.keeps(c), c.transform == TransformRehydrate, c.decision == DecisionUnresolved,
		c.class == request.ClassProtocolExact, request.HasMarker(c.seg.Text), !r.payloadValue(c.seg):
		return
	}
	text := r.rt.Marker(request.MarkerRef, c.in.Hash, c.in.Bytes, c.in.Lines, "reduced to its reference to fit the window")
	if c.in.IsError || c.seg.IsError {
		if l := signal.ErrorLine(c.seg.Text); l != "" {
			text = l + "\n" + text
		}
	}
	cur := int(c.seg.Tokens)
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

// evict is the hard budget's last step, the one compress takes too: when
// the request is still over with every output and older text behind its
// reference (out is the rewritten request, nil for the original), whole
// older rounds leave it, replaced by one summary message that names them
// and references one artifact holding them verbatim, in this session's
// scope (compact/prune: the system messages, the latest user turn and
// the open tool pair stay byte for byte). If even that cannot fit, the
// call fails with [ctxd.ErrOverBudget].
func (r *run) evict(out []byte, after int) ([]byte, int, error) {
	if r.o.opts.Store == nil || r.floor() > r.b.usable {
		return nil, 0, r.overBudget(after)
	}
	p, err := prune.New(prune.Options{
		Model: r.b.model.Name, ContextWindow: r.b.window, OutputReserve: r.b.reserve, Budget: r.b.usable,
		Format: r.req.Format, Store: r.o.opts.Store, Session: r.scope, Cache: r.o.cache, Logger: r.o.log,
		NoMessages: true,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("optimize request: evict: %w", err)
	}
	// Nothing rewritten: the pruner reads the request as parsed already
	// (a second parse doubled what a large request holds); else the
	// rewritten one, parsed here as the pruner would. Its output is
	// proved against the pruner's plan and counted from it, not parsed
	// whole beside the request (issue 28).
	req := r.req
	if out != nil {
		if req, err = request.Parse(out, r.req.Format); err != nil {
			return nil, 0, fmt.Errorf("optimize request: evict: %w", err)
		}
	}
	evicted, plan, prep, err := p.CompressParsed(r.ctx, req)
	if errors.Is(err, ctxd.ErrOverBudget) {
		return nil, 0, r.overBudget(after)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("optimize request: evict: %w", err)
	}
	n, err := plan.Verify(evicted, r.est)
	if err != nil {
		return nil, 0, fmt.Errorf("optimize request: evict: %w", err)
	}
	if n < after {
		after = n
	} else {
		return nil, 0, r.overBudget(after)
	}
	if after > r.b.usable {
		return nil, 0, r.overBudget(after)
	}
	r.rep.PolicyReasons = append(r.rep.PolicyReasons, fmt.Sprintf("hard_budget_evicted_%d_messages", prep.Removed))
	return evicted, after, nil
}

// floor is what no eviction removes (the reply priming, the fixed parts,
// the protected items: system messages and the latest user turn), as
// this run counts it: when it is over the usable window the pruner cannot
// make the request fit, and is not run (on a 100 MB message it would
// decode the whole request a second time to find that out).
func (r *run) floor() int {
	n := request.ReplyPriming + r.est.Fixed(r.req)
	for i := range r.protected {
		n += int(r.req.Items[i].Tokens)
	}
	// A protected item's tool results are outputs (keeps): what they were
	// reduced to counts, not what they were.
	for _, c := range r.cands {
		if r.protected[c.ref.Item] && !r.keeps(c) && c.transform != "" && c.after < int(c.seg.Tokens) {
			n -= int(c.seg.Tokens) - c.after
		}
	}
	return n
}

// overBudget is the error of a live call whose request cannot fit the
// usable window even at its protocol-exact minimum.
func (r *run) overBudget(after int) error {
	return fmt.Errorf("optimize request: %w: the request needs %d tokens after every tool output and older message was reduced to its reference, and evicting older rounds cannot make it fit; the protocol-exact minimum (system, tools, the latest user message, the open tool calls) does not fit the %d usable tokens (%s)",
		ctxd.ErrOverBudget, after, r.b.usable, r.b.usableWhy())
}
