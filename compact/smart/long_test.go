package smart

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// longRounds is a session whose every third output is very long (a
// failing test run of hundreds of lines with its failure in the middle),
// the others short.
func longRounds(n int) []convo.Msg {
	return bashRounds("The cart tests fail; fix them.", n, func(i int) (string, string) {
		if i%3 != 1 {
			return fmt.Sprintf("ls pkg%d", i), fmt.Sprintf("pkg%d/a.go\npkg%d/b.go\n", i, i)
		}
		var sb strings.Builder
		for k := range 250 {
			fmt.Fprintf(&sb, "tests/test_cart%d.py::test_case_%d PASSED\n", i, k)
		}
		fmt.Fprintf(&sb, "tests/test_cart%d.py:41: in test_total\nE   AssertionError: assert 90 == %d\nFAILED tests/test_cart%d.py::test_total - AssertionError\n", i, i, i)
		for k := range 250 {
			fmt.Fprintf(&sb, "tests/test_cart%d.py::test_more_%d PASSED\n", i, k)
		}
		return fmt.Sprintf("pytest -x tests/test_cart%d.py", i), sb.String()
	})
}

// A very long output within the masking horizon (Call.MaskLong) is
// condensed from the turn it first appears, to the same bytes every
// turn, keeping its failure lines verbatim and a reference to the whole;
// the first MaskHorizon outputs are not (a session shorter than the
// horizon goes byte for byte), and turns between masking steps only
// append. Chat, Responses and Messages.
func TestLongOutputCondensedWhenItAppears(t *testing.T) {
	const horizon, step, long = 4, 8, 1000
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			msgs := longRounds(24)
			store := newStore(t)
			o := New(Options{Store: store})
			var prev *request.Request
			prevMask, outputs, condensed, appended := -1, 0, 0, 0
			for k := 2; k < len(msgs); k++ {
				if msgs[k].Role != "tool" {
					continue
				}
				outputs++
				in := convo.Body(f, "gpt-4o", msgs[:k+1], nil)
				res := optimize(t, o, in, Call{Session: "s", ContextWindow: 1 << 20, MaskHorizon: horizon, MaskStep: step, MaskLong: long})
				if outputs <= horizon && !bytes.Equal(res.Body, in) {
					t.Fatalf("turn %d: a session within the horizon was rewritten", outputs)
				}
				got := paired(t, res.Body, f)
				latest := got.Items[len(got.Items)-1].Raw()
				i := outputs - 1 // the latest output's round
				isLong := i%3 == 1
				switch {
				case isLong && outputs > horizon:
					if !bytes.Contains(latest, []byte("condensed when it appeared")) {
						t.Fatalf("turn %d: the new long output is not condensed: %.300s", outputs, latest)
					}
					condensed++
					for _, want := range []string{fmt.Sprintf("E   AssertionError: assert 90 == %d", i), fmt.Sprintf("FAILED tests/test_cart%d.py::test_total", i)} {
						if !bytes.Contains(latest, []byte(want)) {
							t.Errorf("turn %d: the condensed output lost %q", outputs, want)
						}
					}
					ms := request.ParseMarkers(string(latest))
					if len(ms) != 1 {
						t.Fatalf("turn %d: want one reference, got %+v", outputs, ms)
					}
					whole, _, err := store.Get(t.Context(), "s", ms[0].Hash)
					if err != nil || !strings.Contains(string(whole), "test_more_249 PASSED") {
						t.Errorf("turn %d: the reference does not resolve to the whole output: %v", outputs, err)
					}
				case bytes.Contains(latest, []byte("[ctxd:ref")):
					t.Errorf("turn %d: output %d rewritten (long %v, within the first %d)", outputs, i, isLong, horizon)
				}
				mask := 0
				if outputs > horizon {
					mask = (outputs - horizon) / step * step
				}
				if appendOnly(t, prev, got, prevMask == mask, outputs) {
					appended++
				}
				prev, prevMask = got, mask
			}
			if condensed < 5 || appended < outputs*2/3 {
				t.Errorf("%d long outputs condensed, %d append-only turns of %d", condensed, appended, outputs)
			}
		})
	}
}

// A very long file read within the masking horizon is not condensed when
// it appears (the agent asked for those lines: files stay in view), while
// a very long output of a command that ran something is (the same
// settings, the same session).
func TestLongReadStaysWhole(t *testing.T) {
	msgs := agentRounds(6)
	read := msgs[2+2*4+1].Result.Text // round 4 read shop/mod4.py: the fifth output, within the horizon
	if !strings.Contains(read, "    41\t") {
		t.Fatalf("round 4 is not the read of shop/mod4.py: %.80q", read)
	}
	o := New(Options{Store: newStore(t)})
	call := Call{Session: "s", ContextWindow: 1 << 20, MaskHorizon: 4, MaskStep: 8, MaskLong: 500}
	wrap := func(msgs []convo.Msg) string {
		return string(optimize(t, o, convo.Body(request.FormatChat, "gpt-4o", msgs, nil), call).Body)
	}
	enc := func(s string) string { return strings.Trim(fmt.Sprintf("%q", s), `"`) }
	if got := wrap(msgs); !strings.Contains(got, enc(read)) {
		t.Fatal("the long read of shop/mod4.py within the horizon was condensed")
	}
	var run strings.Builder
	for k := range 400 {
		fmt.Fprintf(&run, "tests/test_shop.py::test_case_%d PASSED\n", k)
	}
	run.WriteString("FAILED tests/test_shop.py::test_offset - AssertionError\n")
	id := "late_0"
	msgs = append(msgs, convo.Assistant("", convo.Call{ID: id, Name: "bash", Args: `{"command":"python -m pytest tests"}`}), convo.Tool(id, "bash", run.String(), false))
	got := wrap(msgs)
	if !strings.Contains(got, enc(read)) {
		t.Error("the long read was condensed on the next turn")
	}
	if strings.Contains(got, "test_case_200 PASSED") {
		t.Error("the long test run was not condensed when it appeared")
	}
	if !strings.Contains(got, "FAILED tests/test_shop.py::test_offset") {
		t.Error("the condensed test run lost its failing test")
	}
}
