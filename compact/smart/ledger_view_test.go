package smart

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// searchRounds is a shell agent's session at a small window: each round
// greps the code (hits in several files), reads a file whole (large, so
// rounds are evicted), runs the tests and edits a file; a second task
// comes at round 12.
func searchRounds(n int) []convo.Msg {
	msgs := []convo.Msg{convo.System("You are a coding agent with a shell."), convo.User("Fix the discount rules in shop/; the tests in tests/ must pass.")}
	for i := range n {
		if i == 12 {
			msgs = append(msgs, convo.User("Task two: also make shop/tax.py round half up."))
		}
		var sb strings.Builder
		sb.WriteString("<returncode>0</returncode>\n<output>\n")
		for k := range 10 {
			fmt.Fprintf(&sb, "shop/rule%d.py:%d:    discount = rule(%d)\n", (i+k)%7, 3*i+7*k+1, k)
		}
		sb.WriteString("</output>")
		// The tests fail the same way for five rounds, then another
		// way; from round 20 one test is left failing (open at the end).
		failing, why := fmt.Sprintf("test_rule_%d", i/5), fmt.Sprintf("KeyError: 'discount_%d'", i/5)
		if i >= 20 {
			failing, why = "test_tax", "ZeroDivisionError: division by zero"
		}
		test := "<returncode>1</returncode>\n<output>\n" + strings.Repeat("collected line of pytest output\n", 20) +
			fmt.Sprintf("tests/test_rules.py:%d: AssertionError\nFAILED tests/test_rules.py::%s - %s\n</output>", 40+i/5, failing, why)
		for _, r := range []struct{ cmd, out string }{
			{fmt.Sprintf("grep -rn 'discount = rule' shop/ | head -n %d", 10+i), sb.String()},
			{fmt.Sprintf("nl -ba shop/mod%d.py | sed -n '1,120p'", i), "<returncode>0</returncode>\n<output>\n" + numbered(120, 1) + "</output>"},
			{"python -m pytest tests/test_rules.py", test},
			{fmt.Sprintf("sed -i 's/rule(/rules(/' shop/rule%d.py", i%7), "<returncode>0</returncode>\n<output>\n</output>"},
		} {
			id := fmt.Sprintf("call_%d_%d", i, len(msgs))
			msgs = append(msgs, convo.Assistant("", convo.Call{ID: id, Name: "bash", Args: fmt.Sprintf(`{"command":%q}`, r.cmd)}), convo.Tool(id, "bash", r.out, false))
		}
	}
	return msgs
}

// listed is a location list of a ledger or a masked view, "a.py:3,17,40".
var listed = regexp.MustCompile(`([A-Za-z0-9_./@+-]+):([0-9]+(?:,[0-9]+)*)`)

// inView is the locations a text shows, each "path:line", the lists
// spelled out.
func inView(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range listed.FindAllStringSubmatch(text, -1) {
		for _, n := range strings.Split(m[2], ",") {
			out[m[1]+":"+n] = true
		}
	}
	return out
}

// At a small window, what the evicted rounds held stays in view without
// a rehydrate call: replayed turn by turn (each request the whole
// history so far), no forwarded request is over the window, and at the
// last turn every error line and failing test of an evicted test run and
// every location of an evicted output is in the forwarded request (the
// ledger lists them).
func TestLedgerKeepsSignalsInView(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			msgs := searchRounds(24)
			o := New(Options{Store: newStore(t)})
			call := Call{Session: "s", ContextWindow: 16000, MaskHorizon: 4, MaskStep: 8}
			var res *Result
			var in []byte
			steps := 0
			for k := 2; k < len(msgs); k++ {
				if msgs[k].Role != "tool" {
					continue
				}
				in = convo.Body(f, "gpt-4o", msgs[:k+1], nil)
				res = optimize(t, o, in, call)
				checkEvicted(t, in, res)
				if res.Report.EstimatedTokensAfter > *res.Report.EffectiveUsableTokens {
					t.Fatalf("turn %d: %d tokens forwarded, over the usable window %d", k, res.Report.EstimatedTokensAfter, *res.Report.EffectiveUsableTokens)
				}
				for _, p := range res.Report.PolicyReasons {
					if strings.HasPrefix(p, "stepped_eviction_") {
						steps++
						break
					}
				}
			}
			if steps == 0 {
				t.Fatal("no stepped eviction: the test no longer covers the ledger")
			}
			a, err := request.Parse(in, f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := request.Parse(res.Body, f)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			kept := map[string]bool{}
			for _, it := range b.Items {
				for _, s := range it.Segments {
					sb.WriteString(s.Text + "\n")
					if s.Kind == request.SegToolResult {
						kept[s.CallID()] = true
					}
				}
			}
			text := sb.String()
			locs := inView(text)
			cmds := map[string]string{}
			for _, it := range a.Items {
				for _, s := range it.Segments {
					if s.Kind == request.SegToolCall {
						cmds[s.CallID()] = s.Text
					}
				}
			}
			evicted, errs, nlocs := 0, 0, 0
			for _, it := range a.Items {
				for _, s := range it.Segments {
					if s.Kind != request.SegToolResult || kept[s.CallID()] {
						continue
					}
					evicted++
					info := signal.Analyze(s.Text)
					view := signal.ViewOutput("bash", cmds[s.CallID()])
					for _, sig := range info.Signals {
						if isLocation(sig) {
							nlocs++
							if !locs[strings.TrimLeft(sig, "./")] {
								t.Errorf("location %s of an evicted output is not in view", sig)
							}
							continue
						}
						if view {
							continue
						}
						errs++
						if !strings.Contains(text, sig) {
							t.Errorf("error line %q of an evicted test run is not in view", sig)
						}
					}
					for _, tn := range info.Tests {
						if !view && !strings.Contains(text, tn) {
							t.Errorf("failing test %s of an evicted test run is not in view", tn)
						}
					}
				}
			}
			if evicted < 20 || errs < 10 || nlocs < 100 {
				t.Fatalf("%d outputs evicted, %d error lines, %d locations: the session no longer tests the ledger's room", evicted, errs, nlocs)
			}
			if t.Failed() {
				l, _ := ledgerOf(t, f, res.Body)
				t.Logf("ledger:\n%s", l)
			}
		})
	}
}
