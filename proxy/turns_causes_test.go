package proxy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
)

// causes decomposes a replay's bill (OpenAI prices) by what was billed
// (CTXD_TURNS_CAUSES=1): each forwarded item's tokens are cached (0.1),
// re-sent (1: an item the previous turn had, at or after the first
// rewritten one) or newest (1: the turn's new messages), and each is
// told by what it is: system and user text, the assistant's messages and
// calls, the ledger, and tool outputs by the kind of their call (read,
// search, view, run), whole or behind a reference, whole ones by size
// and age (outputs after them in the request).
type causes struct {
	bill map[string]*[3]float64
	// steps are the turns that re-sent something (a compaction step),
	// stepTok the tokens they re-sent, stepReq their requests' tokens.
	steps            int
	stepTok, stepReq float64
	// recent counts, over every request, the outputs among its latest
	// ten (what observation masking's published evidence keeps whole)
	// and those of them behind a reference; recentBig the same for
	// outputs of 500 tokens or more.
	recent, recentMasked, recentBig, recentBigMasked int
}

// add bills one forwarded request: h's last bill (cached items, item
// tokens), fresh the turn's new items.
func (c *causes) add(out *request.Request, h *billHistory, est *request.Estimator, fresh int) {
	if c.bill == nil {
		c.bill = map[string]*[3]float64{}
	}
	calls, _ := request.Calls(out)
	byID := map[string]request.Call{}
	for _, cl := range calls {
		byID[cl.ID] = cl
	}
	outputs := 0
	for _, it := range out.Items {
		for _, s := range it.Segments {
			if s.Kind == request.SegToolResult {
				outputs++
			}
		}
	}
	put := func(cat string, part int, tok float64) {
		v := c.bill[cat]
		if v == nil {
			v = &[3]float64{}
			c.bill[cat] = v
		}
		v[part] += tok
	}
	resent := 0.0
	seen := 0
	for i, it := range out.Items {
		part := 1 // re-sent
		switch {
		case i < h.lastCached:
			part = 2
		case i >= len(out.Items)-fresh:
			part = 0
		}
		w := 1.0
		if part == 2 {
			w = 0.1
		}
		rest := float64(h.lastItemTok[i])
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != request.SegToolResult {
				continue
			}
			seen++
			tok := float64(est.Segment(s))
			rest -= tok
			put(outputCause(s, byID[s.CallID()], outputs-seen), part, w*tok)
			if outputs-seen < 10 {
				masked := request.HasMarker(s.Text)
				c.recent++
				c.recentMasked += b2i(masked)
				if s.Tokens >= 500 || masked {
					c.recentBig++
					c.recentBigMasked += b2i(masked)
				}
			}
		}
		cat := "role " + it.Role()
		switch {
		case it.Kind == request.KindSummary:
			cat = "ledger"
		case it.Role() == "developer":
			cat = "role system"
		}
		put(cat, part, w*max(rest, 0))
		if part == 1 {
			resent += float64(h.lastItemTok[i])
		}
	}
	if resent > 0 {
		c.steps++
		c.stepTok += resent
		c.stepReq += h.lastTotal
	}
}

// outputCause names a tool output's cause: its call's kind, whole or
// behind a reference, and for a whole one its size and its age (outputs
// after it).
func outputCause(s *request.Segment, cl request.Call, age int) string {
	kind := "run"
	switch {
	case cl.ID == "":
		kind = "unpaired"
	case isRead(cl):
		kind = "read"
	case signal.SearchCall(cl.Name, cl.Args):
		kind = "search"
	case signal.ViewOutput(cl.Name, cl.Args):
		kind = "view"
	}
	if request.HasMarker(s.Text) {
		return "out " + kind + " ref"
	}
	size := "<500"
	switch n := s.Tokens; {
	case n >= 8000:
		size = ">=8k"
	case n >= 2000:
		size = "2k-8k"
	case n >= 500:
		size = "500-2k"
	}
	ages := "age 0-3"
	switch {
	case age >= 10:
		ages = "age 10+"
	case age >= 4:
		ages = "age 4-9"
	}
	return fmt.Sprintf("out %s whole %s %s", kind, size, ages)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isRead(cl request.Call) bool {
	_, ok := request.ReadOf(cl.Name, cl.Args)
	return ok
}

func (c *causes) merge(o causes) {
	if c.bill == nil {
		c.bill = map[string]*[3]float64{}
	}
	for k, v := range o.bill {
		d := c.bill[k]
		if d == nil {
			d = &[3]float64{}
			c.bill[k] = d
		}
		for j := range 3 {
			d[j] += v[j]
		}
	}
	c.recent += o.recent
	c.recentMasked += o.recentMasked
	c.recentBig += o.recentBig
	c.recentBigMasked += o.recentBigMasked
	c.steps += o.steps
	c.stepTok += o.stepTok
	c.stepReq += o.stepReq
}

// log writes the decomposition as fractions of pass-through's bill
// (pass), grouped by kind (the first three words of the cause), then,
// with all, every cause.
func (c *causes) log(t *testing.T, prefix string, pass float64, all bool) {
	t.Helper()
	group := func(depth int) map[string][3]float64 {
		g := map[string][3]float64{}
		for k, v := range c.bill {
			f := strings.Fields(k)
			key := strings.Join(f[:min(depth, len(f))], " ")
			a := g[key]
			for j := range 3 {
				a[j] += v[j]
			}
			g[key] = a
		}
		return g
	}
	t.Logf("%s steps %d, re-sent per step %.0f tokens (%.1f%% of its request)", prefix, c.steps, c.stepTok/float64(max(c.steps, 1)), 100*c.stepTok/max(c.stepReq, 1))
	t.Logf("%s latest 10 outputs of each request: %d, %d masked (%.1f%%); of 500 tokens or more (or masked) %d, %d masked", prefix, c.recent, c.recentMasked, pct(c.recentMasked, c.recent), c.recentBig, c.recentBigMasked)
	depths := []int{3}
	if all {
		depths = append(depths, 0)
	}
	for _, depth := range depths {
		g := group(depth)
		if depth == 0 {
			g = map[string][3]float64{}
			for k, v := range c.bill {
				g[k] = *v
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			v := g[k]
			t.Logf("%s cause %-44s newest %.4f  re-sent %.4f  cached %.4f  all %.4f", prefix, k, v[0]/pass, v[1]/pass, v[2]/pass, (v[0]+v[1]+v[2])/pass)
		}
	}
}
