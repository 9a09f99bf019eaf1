package smart

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// Without the size rule and pacing, the plan is the count rule: outputs
// before (n - horizon) rounded down to a multiple of the step are
// masked; with MaskBig, an output over it is masked at the same steps
// once MaskBigHorizon outputs follow it.
func TestPlanMaskingSteps(t *testing.T) {
	// inPlay: every third output reads a file (k%3 == 1) and the two
	// calls after it name the file (a search in it, a run of it).
	inPlay := func(k int) string {
		return []string{fmt.Sprintf("python src/mod%d.py", k-2), fmt.Sprintf("cat src/mod%d.py", k), fmt.Sprintf("grep -n total src/mod%d.py", k-1)}[k%3]
	}
	tests := []struct {
		name                  string
		n, horizon, step      int
		big, bigHorizon       int
		sizes                 func(k int) int
		wantLast              int
		wantMasked            func(k, last int) bool
		wantMaskedDesc        string
		wantNoneWithinHorizon bool
		// cmd is output k's command (default: every third one reads a
		// file, the others run the tests); with failIn the test runs
		// fail in the file read just before them.
		cmd    func(k int) string
		failIn bool
	}{
		{name: "within the horizon", n: 4, horizon: 4, step: 8, sizes: func(int) int { return 5000 }, wantLast: 0,
			wantMasked: func(int, int) bool { return false }},
		{name: "count rule", n: 29, horizon: 4, step: 8, sizes: func(int) int { return 800 }, wantLast: 28,
			wantMasked: func(k, _ int) bool { return k < stepBoundary(29, 4, 8) }},
		{name: "count rule, every turn", n: 11, horizon: 4, step: 1, sizes: func(int) int { return 800 }, wantLast: 11,
			wantMasked: func(k, _ int) bool { return k < stepBoundary(11, 4, 1) }},
		{name: "large outputs from two old", n: 27, horizon: 4, step: 2, big: 500, bigHorizon: 2,
			sizes:    func(k int) int { return []int{300, 3000}[k%2] },
			wantLast: 26,
			wantMasked: func(k, last int) bool {
				return k < last-4 || k%2 == 1 && k < last-2
			}},
		// Every third output reads a file (3,000 tokens; output 22 among
		// them, 3 old at the last step) and the two calls after it name
		// the file (a search in it, a run of it): the file is in play, so
		// the size rule passes the read over and it waits for the
		// horizon; the other large outputs (the searches) go from two
		// old.
		{name: "large reads in play wait for the horizon", n: 27, horizon: 4, step: 2, big: 500, bigHorizon: 2,
			sizes:    func(k int) int { return []int{300, 3000, 3000}[k%3] },
			cmd:      inPlay,
			wantLast: 26,
			wantMasked: func(k, last int) bool {
				return k < last-4 || k%3 == 2 && k < last-2
			}},
		// The same reads followed by test runs that name no file: the
		// agent moved away from them, so they go from two old like any
		// large output.
		{name: "large reads moved away from go from two old", n: 27, horizon: 4, step: 2, big: 500, bigHorizon: 2,
			sizes:    func(k int) int { return []int{300, 3000, 3000}[k%3] },
			wantLast: 26,
			wantMasked: func(k, last int) bool {
				return k < last-4 || k%3 != 0 && k < last-2
			}},
		// A test run that fails in the read file keeps it in play.
		{name: "a read an error names stays in play", n: 27, horizon: 4, step: 2, big: 500, bigHorizon: 2,
			sizes:    func(k int) int { return []int{300, 3000, 3000}[k%3] },
			failIn:   true,
			wantLast: 26,
			wantMasked: func(k, last int) bool {
				return k < last-4 || k%3 == 2 && k < last-2
			}},
		// The proxy's defaults (big horizon 1): a large log goes from one
		// old, a large read the agent moved away from from two old (the
		// read's own call and the one after it keep it in play: read 25,
		// one old at the end, is whole), a small output at the horizon.
		// The last step is at 26 (log 24 one old); nothing is due at 27.
		{name: "large logs from one old, reads from two", n: 27, horizon: 4, step: 1, big: 300, bigHorizon: 1,
			sizes:    func(k int) int { return []int{3000, 3000, 300}[k%3] },
			wantLast: 26,
			wantMasked: func(k, last int) bool {
				return k < last-4 || k%3 == 0 && k < last-1 || k%3 == 1 && k < last-2
			}},
		// The same with the calls after each read naming its file (a
		// search in it, a run of it): the reads are in play and wait for
		// the horizon; the large searches go from one old.
		{name: "reads in play wait for the horizon when logs go from one old", n: 27, horizon: 4, step: 1, big: 300, bigHorizon: 1,
			sizes:    func(k int) int { return []int{300, 3000, 3000}[k%3] },
			cmd:      inPlay,
			wantLast: 27,
			wantMasked: func(k, last int) bool {
				return k < last-4 || k%3 == 2 && k < last-1
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{c: Call{MaskHorizon: tt.horizon, MaskStep: tt.step, MaskBig: tt.big, MaskBigHorizon: tt.bigHorizon}, calls: map[string]callInfo{}}
			outputs := make([]*cand, tt.n)
			for k := range outputs {
				id, cmd := fmt.Sprint("call_", k), "pytest -x"
				if k%3 == 1 {
					cmd = fmt.Sprintf("cat src/mod%d.py", k)
				}
				if tt.cmd != nil {
					cmd = tt.cmd(k)
				}
				ci := callInfo{item: 2*k - 1, name: "bash", args: fmt.Sprintf(`{"command":%q}`, cmd)}
				ci.read, ci.isRead = request.ReadOf(ci.name, ci.args)
				r.calls[id] = ci
				text := ""
				if tt.failIn && !ci.isRead {
					text = fmt.Sprintf("Traceback (most recent call last):\n  File \"src/mod%d.py\", line 3, in <module>\nValueError: bad total\n", k-(k+2)%3)
				}
				seg := request.NewSegment(request.SegToolResult, "bash", id, text)
				seg.IsError = text != ""
				seg.Tokens = int32(tt.sizes(k))
				outputs[k] = &cand{ref: request.SegRef{Item: 2 * k}, seg: seg}
			}
			p := r.planMasking(outputs, tt.step, nil)
			if p.last != tt.wantLast {
				t.Errorf("last step at %d outputs, want %d", p.last, tt.wantLast)
			}
			for k := range tt.n {
				if got, want := p.masked(k), tt.wantMasked(k, tt.wantLast); got != want {
					t.Errorf("output %d (%d tokens): masked %v, want %v", k, tt.sizes(k), got, want)
				}
			}
		})
	}
}

// A large read whose file a later call edited (or read again) is due
// like any large output, MaskBigHorizon outputs old once the edit is
// there; a read nothing superseded waits for the horizon while the calls
// after it name its file (a script run with it: the file is in play).
func TestPlanMaskingEditedReads(t *testing.T) {
	r := &run{c: Call{MaskHorizon: 4, MaskStep: 1, MaskBig: 500, MaskBigHorizon: 2}, calls: map[string]callInfo{}}
	cmds := map[int]string{2: "cat shop/cart.py", 3: "sed -i 's/90/85/' shop/cart.py", 4: "cat shop/tax.py"}
	outputs := make([]*cand, 9)
	for k := range outputs {
		id, cmd := fmt.Sprint("call_", k), cmp.Or(cmds[k], "python shop/run.py shop/cart.py shop/tax.py")
		ci := callInfo{item: 2*k - 1, name: "bash", args: fmt.Sprintf(`{"command":%q}`, cmd)}
		ci.read, ci.isRead = request.ReadOf(ci.name, ci.args)
		r.calls[id] = ci
		seg := request.NewSegment(request.SegToolResult, "bash", id, "")
		seg.Tokens = 100
		if ci.isRead {
			seg.Tokens = 3000
		}
		outputs[k] = &cand{ref: request.SegRef{Item: 2 * k}, seg: seg}
	}
	calls := make([]request.Call, len(outputs))
	for k := range outputs {
		id := fmt.Sprint("call_", k)
		calls[k] = request.Call{ID: id, Name: "bash", Args: r.calls[id].args}
	}
	sup := request.NewCache().Superseded(calls)
	for _, tt := range []struct {
		name         string
		sup          map[string]request.Supersession
		edited, kept int // the counts at the steps masking reads 2 and 4
	}{
		{"edited", sup, 5, 9},
		{"no supersession known", nil, 7, 9},
	} {
		p := r.planMasking(outputs, 1, tt.sup)
		if p.at[2] != tt.edited || p.at[4] != tt.kept {
			t.Errorf("%s: reads masked at %d and %d outputs, want %d and %d", tt.name, p.at[2], p.at[4], tt.edited, tt.kept)
		}
	}
}

// planRounds is a session of n outputs: every third a read of a file of
// 150 numbered lines (about 3,000 tokens) with an error line at 70, the
// rest short listings (a reference would cost as much) or mid-sized
// test logs (about 800 tokens).
func planRounds(n int) []convo.Msg {
	return bashRounds("The cart total is wrong; fix it.", n, func(i int) (string, string) {
		switch {
		case i%3 == 0:
			return fmt.Sprintf("nl -ba shop/mod%d.py", i), nlFile(fmt.Sprint("mod", i), 150, 70)
		case i%3 == 1 && i%2 == 1:
			return fmt.Sprintf("pytest tests/test_%d.py", i), testOutput(fmt.Sprint("pkg", i), true, i)
		}
		return fmt.Sprintf("ls pkg%d", i), fmt.Sprintf("pkg%d/a.py\npkg%d/b.py\n", i, i)
	})
}

// The proxy's masking (a large output masked two outputs old, small ones
// at the horizon, steps placed where their rewrite is cheapest) keeps
// the cache contract turn by turn in every format: a turn either only
// appends to the previous forwarded request or is a step, and a step
// changes nothing but outputs it masks; a masked output's bytes never
// change again; the latest MaskBigHorizon outputs are never masked, nor
// an output of MaskBig tokens or fewer within the horizon; a masked test
// log keeps its failure lines, a masked file read (no failure reported)
// no source line; a file read is never masked before it is two outputs
// old (ReadInPlay); references resolve; and masking saves. Under the
// former settings (a paced step of 2, reads and logs from two old) and
// the proxy's defaults (a paced step of 1, logs over 300 tokens from one
// old, long outputs condensed from 1,000).
func TestPacedMaskingIsStable(t *testing.T) {
	const rounds = 36
	for _, call := range []Call{
		{Session: "s", ContextWindow: 1 << 20, MaskHorizon: 4, MaskStep: 2, MaskBig: 1500, MaskBigHorizon: 2, MaskPaced: true},
		{Session: "s", ContextWindow: 1 << 20, MaskHorizon: 4, MaskStep: 1, MaskBig: 300, MaskBigHorizon: 1, MaskLong: 1000, MaskPaced: true},
	} {
		for _, f := range request.Formats {
			t.Run(fmt.Sprintf("%s/step%d_big%d", f, call.MaskStep, call.MaskBigHorizon), func(t *testing.T) {
				pacedSession(t, f, call, rounds)
			})
		}
	}
}

// pacedSession is TestPacedMaskingIsStable's session of rounds outputs
// in format f under call.
func pacedSession(t *testing.T, f request.Format, call Call, rounds int) {
	msgs := planRounds(rounds)
	store := newStore(t)
	o := New(Options{Store: store})
	sent := map[string]string{} // call id: its output as first forwarded masked
	var prev *request.Request
	steps, appended := 0, 0
	var last, lastIn []byte
	for k := 2; k < len(msgs); k++ {
		if msgs[k].Role != "tool" {
			continue
		}
		in := convo.Body(f, "gpt-4o", msgs[:k+1], nil)
		res := optimize(t, o, in, call)
		got := paired(t, res.Body, f)
		outs := outputsOf(got)
		masked := map[string]bool{}
		for age, id := range outs.order {
			age = len(outs.order) - 1 - age
			text := outs.text[id]
			orig := resultOf(msgs, id)
			if text == orig {
				if _, ok := sent[id]; ok {
					t.Fatalf("%d outputs: %s was masked, then sent whole again", len(outs.order), id)
				}
				continue
			}
			if v, ok := sent[id]; ok && v != text {
				t.Fatalf("%d outputs: the masked view of %s changed", len(outs.order), id)
			}
			if _, ok := sent[id]; !ok {
				masked[id] = true
				sent[id] = text
			}
			switch {
			case age < call.MaskBigHorizon:
				t.Errorf("%d outputs: %s masked %d outputs old", len(outs.order), id, age)
			case age < call.MaskHorizon && estimateTokens(orig) <= call.MaskBig:
				t.Errorf("%d outputs: %s (small) masked %d outputs old", len(outs.order), id, age)
			case age < ReadInPlay && strings.HasPrefix(orig, "     1\t"):
				t.Errorf("%d outputs: %s (a file read) masked %d outputs old", len(outs.order), id, age)
			}
			// A test log keeps its failure lines; a file read that
			// reports no failure keeps none (the FAILED comment on
			// line 70 is the file's source, not an error).
			if fail := regexp.MustCompile(`--- FAIL: TestParse\d+`).FindString(orig); fail != "" && !strings.Contains(text, fail) {
				t.Errorf("%s masked without its failure line: %.300s", id, text)
			}
			if strings.Contains(orig, "# FAILED tests/test_cart.py::test_total") && strings.Contains(text, "# FAILED tests/test_cart.py::test_total") {
				t.Errorf("%s, a file read, masked with a source line as a critical line: %.300s", id, text)
			}
			ms := request.ParseMarkers(text)
			if len(ms) == 0 {
				t.Fatalf("%s masked without a reference: %.300s", id, text)
			}
			if whole, _, err := store.Get(t.Context(), "s", ms[0].Hash); err != nil || string(whole) != orig {
				t.Errorf("%s: the reference does not resolve to the output: %v", id, err)
			}
		}
		if prev != nil {
			switch {
			case len(masked) == 0:
				if !prefixItems(prev, got) {
					t.Errorf("%d outputs: no output newly masked, but the previous turn's items changed", len(outs.order))
				} else {
					appended++
				}
			default:
				steps++
				// Only the newly masked outputs changed.
				po := outputsOf(prev)
				for id, text := range po.text {
					if outs.text[id] != text && !masked[id] {
						t.Errorf("%d outputs: step changed %s, which it did not mask", len(outs.order), id)
					}
				}
			}
		}
		prev, last, lastIn = got, res.Body, in
	}
	if steps == 0 || steps > rounds/call.MaskStep+1 || appended < rounds/2 {
		t.Errorf("%d steps and %d append-only turns over %d outputs", steps, appended, rounds)
	}
	if len(last) > len(lastIn)*2/3 {
		t.Errorf("masking saved little: %d -> %d bytes", len(lastIn), len(last))
	}
}

// forwardedOutputs are a request's tool outputs by call id, in order.
type forwardedOutputs struct {
	order []string
	text  map[string]string
}

func outputsOf(r *request.Request) forwardedOutputs {
	o := forwardedOutputs{text: map[string]string{}}
	for _, it := range r.Items {
		for _, s := range it.Segments {
			if s.Kind == request.SegToolResult {
				o.order = append(o.order, s.CallID())
				o.text[s.CallID()] = s.Text
			}
		}
	}
	return o
}

// resultOf is the original output of call id.
func resultOf(msgs []convo.Msg, id string) string {
	for _, m := range msgs {
		if m.Result != nil && m.Result.CallID == id {
			return m.Result.Text
		}
	}
	return ""
}

// estimateTokens is about a text's tokens (four bytes each), enough to
// tell the test's small outputs (test logs of about 800 tokens, listings)
// from its large ones (reads of over 3,000) against MaskBig 1,500.
func estimateTokens(s string) int { return len(s) / 4 }
