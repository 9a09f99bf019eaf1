package smart

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// selected runs an optimizer's selection on a request without emitting,
// so a test can tamper with the rewrites before validation.
func selected(t *testing.T, f request.Format, msgs []convo.Msg) *run {
	t.Helper()
	in := body(f, msgs)
	req, err := request.Parse(in, f)
	if err != nil {
		t.Fatal(err)
	}
	o := New(Options{Store: newStore(t)})
	b, err := resolveBudget("gpt-4o", Call{})
	if err != nil {
		t.Fatal(err)
	}
	// A window twice the request: medium pressure, where condensing is
	// allowed and recent outputs stay whole.
	if b, err = resolveBudget("gpt-4o", Call{ContextWindow: 2 * o.estimator(b, f).Request(req)}); err != nil {
		t.Fatal(err)
	}
	r := &run{o: o, ctx: t.Context(), c: Call{WindowSize: 6}, req: req, scope: "v", live: true, b: b, rep: &Report{Telemetry: Telemetry{TransformedSegmentCounts: map[string]int{}}},
		est: o.estimator(b, f), hashFails: map[string]bool{}, missingReq: map[string]bool{}}
	r.before = r.est.Request(req)
	r.b.setPressure(r.before, 0)
	r.index()
	r.selectAll(policies[r.b.mode])
	r.storeArtifacts()
	return r
}

func TestRollbackIsSegmentLocal(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(c *cand)
		want   string
	}{
		{"signal lost", func(c *cand) {
			c.text = strings.ReplaceAll(c.text, "error:", "note:")
		}, "critical signal"},
		{"empty payload", func(c *cand) { c.text = " " }, "empty mandatory payload"},
		{"foreign reference", func(c *cand) {
			c.text += "\n" + request.NewMarker(request.MarkerRef, strings.Repeat("0", 64), 1, 1, "")
		}, "reference names a text other than the segment's"},
		// Far over: a view saving under half of the output, over a
		// tiny allocation (a view a little over its share is accepted,
		// as choose accepts it).
		{"over allocation", func(c *cand) { c.text = c.seg.Text[len(c.seg.Text)/4:]; c.alloc = 1 }, "allocation"},
		{"grows", func(c *cand) { c.text = strings.Repeat(c.seg.Text, 2); c.alloc = 1 << 20 }, "does not save tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := selected(t, request.FormatChat, history(16))
			var lossless *cand
			others := 0
			for _, c := range r.cands {
				if !c.selected() {
					continue
				}
				if c.transform == TransformLossless && strings.Contains(c.seg.Text, "error:") && lossless == nil {
					lossless = c
				} else {
					others++
				}
			}
			if lossless == nil || others == 0 {
				t.Fatal("no lossless candidate with an error line")
			}
			tt.tamper(lossless)
			out, _ := r.emitValidated()
			if out == nil {
				t.Fatal("whole request fell back")
			}
			if lossless.decision != DecisionRolledBack || !strings.Contains(lossless.reason, tt.want) {
				t.Errorf("decision %s (%s), want rolled back for %q", lossless.decision, lossless.reason, tt.want)
			}
			if r.rep.SegmentRollbackCount != 1 || r.rep.FullRequestFallbackCount != 0 {
				t.Errorf("rollbacks %d fallbacks %d", r.rep.SegmentRollbackCount, r.rep.FullRequestFallbackCount)
			}
			kept := 0
			for _, c := range r.cands {
				if c.selected() {
					kept++
				}
			}
			if kept != others {
				t.Errorf("%d other rewrites kept, want %d", kept, others)
			}
		})
	}
}

func TestControlPlaneCatchesProtocolChanges(t *testing.T) {
	r := selected(t, request.FormatChat, history(8))
	plan := r.req.NewPlan()
	var sel []*cand
	for _, c := range r.cands {
		if c.selected() && plan.SetText(c.ref, c.text) {
			sel = append(sel, c)
		}
	}
	out, err := plan.Emit()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, g := r.validate(out, sel); g != "" {
		t.Fatalf("clean output failed: %s", g)
	}
	tests := []struct {
		name string
		old  string
		new  string
		want string
	}{
		{"call id", `"id":"call_1"`, `"id":"call_x"`, "unchanged_item_bytes_differ"},
		{"arguments", `{\"command\":\"go test ./parser\"}`, `{\"command\":\"go test ./...\"}`, "unchanged_item_bytes_differ"},
		{"top level", `"model":"gpt-4o"`, `"model":"gpt-4"`, "top_level_changed"},
		{"role", `"role":"assistant"`, `"role":"user"`, "unchanged_item_bytes_differ"},
		{"not json", `"messages":[`, `"messages":[[`, ""},
		{"key order inside an item", `{"content":"Step 1.","role":"assistant"`, `{"role":"assistant","content":"Step 1."`, "unchanged_item_bytes_differ"},
		{"separator", `},{"content":"Step 1."`, `}, {"content":"Step 1."`, ""},
		{"trailing member", `"model":"gpt-4o"}`, `"model":"gpt-4o","x":1}`, "top_level_changed"},
		{"tool result id in a rewritten item", `"tool_call_id":"call_0"`, `"tool_call_id":"call_9"`, "item_identity_changed"},
		{"member outside the rewritten value", `"role":"tool","tool_call_id":"call_0"`, `"role":"tool","name":"x","tool_call_id":"call_0"`, "segment_identity_changed"},
		{"extra member in a rewritten item", `"role":"tool","tool_call_id":"call_0"`, `"role":"tool","tool_call_id":"call_0","x":1`, "bytes_outside_rewritten_values_changed"},
		{"broken rewritten item", `{"content":"package file0`, `{"content":"package file0"`, "output_does_not_parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Contains(out, []byte(tt.old)) {
				t.Fatalf("output lacks %s", tt.old)
			}
			bad := bytes.Replace(out, []byte(tt.old), []byte(tt.new), 1)
			// Where an edit lands decides which check sees it first;
			// "" accepts any global failure.
			if _, _, g := r.validate(bad, sel); g == "" || tt.want != "" && g != tt.want {
				t.Errorf("global failure %q, want %q", g, tt.want)
			}
		})
	}
}

func TestFallbackReturnsOriginal(t *testing.T) {
	r := selected(t, request.FormatAnthropic, history(8))
	// A rewrite aimed at a tool call (no value to replace) cannot be
	// emitted; it is rolled back alone.
	for i, it := range r.req.Items {
		for j := range it.Segments {
			if it.Segments[j].Kind == request.SegToolCall {
				c := &cand{ref: request.SegRef{Item: i, Seg: j}, seg: &it.Segments[j], in: &info{}, transform: TransformLossless, text: "x", decision: DecisionRewritten}
				r.cands = append(r.cands, c)
				out, _ := r.emitValidated()
				if out == nil || c.decision != DecisionRolledBack {
					t.Fatalf("decision %s", c.decision)
				}
				return
			}
		}
	}
	t.Fatal("no tool call")
}

func FuzzOptimize(f *testing.F) {
	for _, fm := range request.Formats {
		f.Add(body(fm, history(3)), "s", 0)
		f.Add(body(fm, history(2)), "", 9000)
	}
	f.Add([]byte(`{"messages":[{"role":"tool","tool_call_id":"x","content":"\u001b[31merror:\u001b[0m a.go:1"}]}`), "s", 0)
	f.Add([]byte(`{"input":"hello","previous_response_id":"r"}`), "s", 0)
	f.Add([]byte(`{"model":"claude-3","system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"[ctxd:ref sha256=0123456789abcdef bytes=1 lines=1]"}]}]}]}`), "s", 0)
	store := newStore(f)
	o := New(Options{Store: store})
	f.Fuzz(func(t *testing.T, in []byte, session string, window int) {
		c := Call{Session: session, ContextWindow: window}
		res, err := o.Optimize(t.Context(), in, c)
		if err != nil {
			return
		}
		if !json.Valid(res.Body) {
			t.Fatalf("invalid JSON out of %q", in)
		}
		if bytes.Equal(res.Body, in) {
			return
		}
		a, err := request.Parse(in, "")
		if err != nil {
			t.Fatalf("rewrote an unparseable body: %v", err)
		}
		b, err := request.Parse(res.Body, a.Format)
		if err != nil {
			t.Fatalf("output does not parse as %s: %v", a.Format, err)
		}
		if len(a.Items) != len(b.Items) {
			// The hard budget evicted messages: what is left must be a
			// request (pairs intact, not emptied); the eviction's own
			// properties are FuzzCompress's (compact/prune).
			if len(b.Items) == 0 {
				t.Fatalf("eviction emptied the conversation of %d items", len(a.Items))
			}
			if err := b.Check(); err != nil {
				t.Fatalf("after eviction: %v", err)
			}
			return
		}
		if g := controlPlane(a, b, rewrittenCands(a, b)); g != "" {
			t.Fatalf("protocol bytes changed: %s", g)
		}
	})
}

// rewrittenCands lists the segments whose text differs between a and b,
// as candidates for controlPlane.
func rewrittenCands(a, b *request.Request) []*cand {
	var cs []*cand
	for i := range a.Items {
		for j := range a.Items[i].Segments {
			if j < len(b.Items[i].Segments) && a.Items[i].Segments[j].Text != b.Items[i].Segments[j].Text {
				cs = append(cs, &cand{ref: request.SegRef{Item: i, Seg: j}, seg: &a.Items[i].Segments[j]})
			}
		}
	}
	return cs
}

// controlPlane is the fuzz test's own check, on two whole parses: it
// proves that everything but the values whose text changed is as it was,
// and returns the failure's name, or "".
func controlPlane(in, out *request.Request, cs []*cand) string {
	if in.ItemsKey != out.ItemsKey || len(in.Items) != len(out.Items) {
		return "item_structure_changed"
	}
	n := len(in.Items)
	if n == 0 {
		if !bytes.Equal(in.Body, out.Body) {
			return "top_level_changed"
		}
		return ""
	}
	ib, ob := in.Body, out.Body
	if !bytes.Equal(ib[:in.Items[0].Span().Start], ob[:out.Items[0].Span().Start]) || !bytes.Equal(ib[in.Items[n-1].Span().End:], ob[out.Items[n-1].Span().End:]) {
		return "top_level_changed"
	}
	changed := map[request.SegRef]bool{}
	for _, c := range cs {
		changed[c.ref] = true
	}
	for i := range n {
		a, b := in.Items[i], out.Items[i]
		if i+1 < n && !bytes.Equal(ib[a.Span().End:in.Items[i+1].Span().Start], ob[b.Span().End:out.Items[i+1].Span().Start]) {
			return "item_separators_changed"
		}
		if a.Role() != b.Role() || a.Type() != b.Type() || !slices.Equal(a.Calls(), b.Calls()) || !slices.Equal(a.Results(), b.Results()) || len(a.Segments) != len(b.Segments) {
			return "item_identity_changed"
		}
		pa, pb := a.Span().Start, b.Span().Start
		for j := range a.Segments {
			sa, sb := &a.Segments[j], &b.Segments[j]
			if sa.Kind != sb.Kind || sa.CallID() != sb.CallID() || sa.Name() != sb.Name() {
				return "segment_identity_changed"
			}
			if !changed[request.SegRef{Item: i, Seg: j}] {
				if sa.Text != sb.Text {
					return "unchanged_segment_differs"
				}
				continue
			}
			if sa.Value().Start < pa || sb.Value().Start < pb || !bytes.Equal(ib[pa:sa.Value().Start], ob[pb:sb.Value().Start]) {
				return "bytes_outside_rewritten_values_changed"
			}
			pa, pb = sa.Value().End, sb.Value().End
		}
		if !bytes.Equal(ib[pa:a.Span().End], ob[pb:b.Span().End]) {
			return "bytes_outside_rewritten_values_changed"
		}
	}
	return ""
}
