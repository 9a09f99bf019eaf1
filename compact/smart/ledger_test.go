package smart

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// taskOne is a long user message: the ledger cuts it.
var taskOne = "Task one: the cart total is wrong when a discount applies; fix shop/cart.py. " + strings.Repeat("Details of the discount rule follow. ", 40)

// agentRounds is a shell agent's session (mini-SWE-agent's shape): a
// task, then rounds of one bash call and its output (<returncode>),
// reading files with sed -n and nl, editing with sed -i, running the
// tests (failing until round 9, then passing), and a second task at
// round 12.
func agentRounds(n int) []convo.Msg {
	msgs := []convo.Msg{convo.System("You are a coding agent with a shell."), convo.User(taskOne)}
	for i := range n {
		if i == 12 {
			msgs = append(msgs, convo.User("Task two: also make shop/tax.py round half up."))
		}
		id := fmt.Sprintf("call_%d", i)
		var cmd, out string
		switch {
		case i%4 == 0:
			cmd = fmt.Sprintf("nl -ba shop/mod%d.py | sed -n '%d,%dp'", i, 10*i+1, 10*i+200)
			out = "<returncode>0</returncode>\n<output>\n" + numbered(200, 10*i+1) + "</output>"
		case i%4 == 1 && i < 9:
			cmd = "python -m pytest tests/test_cart.py"
			out = "<returncode>1</returncode>\n<output>\n" + strings.Repeat("collected line of pytest output\n", 120) +
				"tests/test_cart.py:41: AssertionError\nFAILED tests/test_cart.py::test_discount - AssertionError: assert 90 == 85\n</output>"
		case i%4 == 1:
			cmd = "python -m pytest tests/test_cart.py"
			out = "<returncode>0</returncode>\n<output>\n" + strings.Repeat("collected line of pytest output\n", 120) + "1 passed in 0.12s\n</output>"
		case i%4 == 2:
			cmd = fmt.Sprintf("sed -i 's/total = a/total = b/' shop/cart%d.py", i)
			out = "<returncode>0</returncode>\n<output>\n" + strings.Repeat("edited\n", 3) + "</output>"
		default:
			cmd = fmt.Sprintf("grep -rn discount shop/ | head -n %d", 100+i)
			var sb strings.Builder
			sb.WriteString("<returncode>0</returncode>\n<output>\n")
			for k := range 100 {
				fmt.Fprintf(&sb, "shop/f%d.py:%d:    discount = apply(discount, %d)\n", k%9, k+i, k)
			}
			out = sb.String() + "</output>"
		}
		msgs = append(msgs, convo.Assistant("", convo.Call{ID: id, Name: "bash", Args: fmt.Sprintf(`{"command":%q}`, cmd)}), convo.Tool(id, "bash", out, false))
	}
	return msgs
}

func numbered(n, from int) string {
	var sb strings.Builder
	for k := range n {
		fmt.Fprintf(&sb, "%6d\t    value_%d = compute(value_%d) + offset  # line of code\n", from+k, k, k+1)
	}
	return sb.String()
}

// ledgerOf returns the ledger's text in a forwarded request ("" none).
func ledgerOf(t *testing.T, f request.Format, out []byte) (string, *request.Item) {
	t.Helper()
	req, err := request.Parse(out, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range req.Items {
		if it.Kind == request.KindSummary {
			return it.Segments[0].Text, it
		}
	}
	return "", nil
}

// Where whole rounds were evicted, a ledger stands: every user message
// (a long one cut, with the reference), the files read with their line
// ranges and the files changed, the commands with their exit codes, the
// errors and failing tests with their latest status, and a reference to
// the span; within a few percent of the window.
func TestLedger(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			// A window whose few percent hold this session's messages,
			// errors, files and the locations of its latest search (the
			// commands, listed last, are cut here: "(N more in the
			// reference)"; TestLedgerSections shows them).
			in, res, l, span := steppedSpan(t, f, agentRounds(80), 32000)
			checkEvicted(t, in, res)
			_, it := ledgerOf(t, f, res.Body)
			for _, want := range []string{
				"[ctxd summary: ledger of ",
				"Task one: the cart total is wrong when a discount applies; fix shop/cart.py.",
				"more bytes, verbatim in the reference]",
				"shop/mod0.py: 1-200",
				"shop/cart2.py",
				"Fixed since (a later run of their command no longer reports them):\n- FAILED tests/test_cart.py::test_discount - AssertionError: assert 90 == 85",
			} {
				if !strings.Contains(l, want) {
					t.Errorf("ledger lacks %q:\n%s", want, l)
				}
			}
			if !bytes.Contains(span, []byte(taskOne)) {
				t.Errorf("the span's reference does not hold the evicted messages verbatim")
			}
			usable := *res.Report.EffectiveUsableTokens
			if bound := ledgerBound(usable); int(it.Tokens) > bound {
				t.Errorf("ledger of %d tokens, over its bound %d (usable window %d)", it.Tokens, bound, usable)
			}
		})
	}
}

// checkEvicted checks an output with evicted rounds: it parses in the
// input's format, pairs every call, fits, and keeps the system message
// and the latest user message byte for byte.
func checkEvicted(t *testing.T, in []byte, res *Result) {
	t.Helper()
	a, err := request.Parse(in, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := request.Parse(res.Body, a.Format)
	if err != nil {
		t.Fatalf("output does not parse as %s: %v", a.Format, err)
	}
	if err := b.Check(); err != nil {
		t.Fatalf("output pairs badly: %v", err)
	}
	if !res.Report.Fits {
		t.Errorf("does not fit: %d tokens, %d usable", res.Report.EstimatedTokensAfter, *res.Report.EffectiveUsableTokens)
	}
	raws := map[string]bool{}
	for _, it := range b.Items {
		raws[string(it.Raw())] = true
	}
	last := -1
	for i, it := range a.Items {
		if it.Role() == "user" && hasUserText(it) {
			last = i
		}
		if it.Role() == "system" && !raws[string(it.Raw())] {
			t.Errorf("system item %d changed or gone", i)
		}
	}
	if last >= 0 && !raws[string(a.Items[last].Raw())] {
		t.Errorf("the latest user message changed or went")
	}
}

// A stepped eviction is followed by turns that only append: replaying a
// session turn by turn (each request the agent's whole history so far),
// every turn on which neither the masking boundary nor the eviction cut
// moves forwards the previous turn's items unchanged, and cuts are rare.
func TestSteppedEvictionAppends(t *testing.T) {
	const rounds, horizon, step = 60, 4, 8
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			msgs := agentRounds(rounds)
			o := New(Options{Store: newStore(t)})
			var prev *request.Request
			prevCut, prevMask, cuts, appended := "", 0, 0, 0
			outputs := 0
			for k := 2; k < len(msgs); k++ {
				if msgs[k].Role != "tool" {
					continue
				}
				outputs++
				in := convo.Body(f, "gpt-4o", msgs[:k+1], nil)
				res := optimize(t, o, in, Call{Session: "s", ContextWindow: 24000, MaskHorizon: horizon, MaskStep: step})
				checkEvicted(t, in, res)
				cut := ""
				for _, p := range res.Report.PolicyReasons {
					if strings.HasPrefix(p, "stepped_eviction_") {
						cut = p
					}
				}
				if cut == "" && !res.Report.Fits {
					t.Fatalf("turn %d: over the window without a step: %v", outputs, res.Report.PolicyReasons)
				}
				got, err := request.Parse(res.Body, f)
				if err != nil {
					t.Fatal(err)
				}
				mask := 0
				if outputs > horizon {
					mask = (outputs - horizon) / step * step
				}
				// A new budget mode (the pressure band moved) is a step too.
				mask = mask*10 + slices.Index([]string{ModeRelaxed, ModeBalanced, ModeTight, ModeEmergency}, res.Report.BudgetMode)
				// Under pressure with the masked request within the
				// window, the deeper condensing moves its recent boundary
				// in finer steps (only the tail changes): not checked.
				deeper := cut == "" && res.Report.PressureBand != BandLow
				if prev != nil && cut == prevCut && mask == prevMask && !deeper {
					if !prefixItems(prev, got) {
						d := 0
						for d < len(prev.Items) && d < len(got.Items) && bytes.Equal(prev.Items[d].Raw(), got.Items[d].Raw()) {
							d++
						}
						t.Errorf("turn %d (%s, mask %d): no step due, but the previous turn's items changed from %d of %d: %.300s\n---\n%.300s", outputs, cut, mask, d, len(prev.Items), prev.Items[d].Raw(), got.Items[d].Raw())
					} else {
						appended++
					}
				}
				if cut != prevCut {
					cuts++
				}
				prev, prevCut, prevMask = got, cut, mask
			}
			if cuts == 0 || cuts > outputs/4 || appended < outputs/2 {
				t.Errorf("%d eviction steps and %d append-only turns over %d turns", cuts, appended, outputs)
			}
		})
	}
}

// prefixItems reports whether b starts with a's items, byte for byte.
func prefixItems(a, b *request.Request) bool {
	if len(b.Items) < len(a.Items) {
		return false
	}
	for i, it := range a.Items {
		if !bytes.Equal(it.Raw(), b.Items[i].Raw()) {
			return false
		}
	}
	return true
}

// When the latest turn names a file whose read was masked, that read
// comes back whole without a model call, and stays whole on the next
// turns (the prefix changes once).
func TestNamedFileComesBack(t *testing.T) {
	msgs := agentRounds(30)
	read := msgs[2+2*4+1].Result.Text // round 4 read shop/mod4.py
	if !strings.Contains(read, "    41\t") {
		t.Fatalf("round 4 is not the read of shop/mod4.py: %.80q", read)
	}
	o := New(Options{Store: newStore(t)})
	call := Call{Session: "s", ContextWindow: 1 << 20, MaskHorizon: 4, MaskStep: 8}
	wrap := func(msgs []convo.Msg) string {
		return string(optimize(t, o, convo.Body(request.FormatChat, "gpt-4o", msgs, nil), call).Body)
	}
	enc := func(s string) string { return strings.Trim(fmt.Sprintf("%q", s), `"`) }
	if before := wrap(msgs); strings.Contains(before, enc(read)) {
		t.Fatal("the read of shop/mod4.py is not masked to begin with")
	}
	turn := func(n int, say, cmd string) []convo.Msg {
		id := fmt.Sprintf("late_%d", n)
		return []convo.Msg{convo.Assistant(say, convo.Call{ID: id, Name: "bash", Args: fmt.Sprintf(`{"command":%q}`, cmd)}), convo.Tool(id, "bash", "<returncode>0</returncode>\n<output>\nok\n</output>", false)}
	}
	// A call naming the file reads it anew: no recall.
	msgs = append(msgs, turn(0, "", "grep -n offset shop/mod4.py")...)
	if plain := wrap(msgs); strings.Contains(plain, enc(read)) {
		t.Error("a tool call naming shop/mod4.py brought its old read back")
	}
	// Nor does the agent's own prose about it.
	msgs = append(msgs, turn(1, "The offset in shop/mod4.py is applied twice; I'll change it.", "sed -i 's/offset/base/' shop/mod4.py")...)
	if plain := wrap(msgs); strings.Contains(plain, enc(read)) {
		t.Error("the agent's prose naming shop/mod4.py brought its old read back")
	}
	// The user naming it does.
	msgs = append(msgs, convo.User("Why is the offset in shop/mod4.py applied twice?"))
	if named := wrap(msgs); !strings.Contains(named, enc(read)) {
		t.Error("the user names shop/mod4.py, but its read did not come back whole")
	}
	msgs = append(msgs, turn(2, "", "python -m pytest tests")...)
	if later := wrap(msgs); !strings.Contains(later, enc(read)) {
		t.Error("the read brought back went behind its reference again on the next turn")
	}
}

// A session whose whole history is over the window but whose masked
// request fits is forwarded masked: no deeper pressure step condenses the
// outputs the masking keeps (their locations would go) and nothing is
// evicted; the session steps only when the masked request no longer fits
// (TestLedger). Chat, Responses and Messages.
func TestMaskedRequestThatFitsStaysMasked(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			_, res := stepped(t, newStore(t), f, agentRounds(80), 40000)
			if res.Report.EstimatedTokensBefore <= *res.Report.EffectiveUsableTokens {
				t.Fatalf("%d tokens fit %d: the test no longer covers a request over its window", res.Report.EstimatedTokensBefore, *res.Report.EffectiveUsableTokens)
			}
			if !slices.Contains(res.Report.PolicyReasons, "pressure_after_masking") {
				t.Errorf("reasons %v: the masked request was not kept", res.Report.PolicyReasons)
			}
			if l, _ := ledgerOf(t, f, res.Body); l != "" {
				t.Errorf("evicted although the masked request fits")
			}
			masked := 0
			for _, d := range res.Report.Segments {
				if d.Decision == DecisionRewritten && !strings.HasPrefix(d.Reason, "masked") && !strings.HasPrefix(d.Reason, "very long output") && d.Transform != TransformDuplicate {
					t.Errorf("item %d: %s (%s), not a masking step's view", d.Item, d.Reason, d.Transform)
				}
				if strings.HasPrefix(d.Reason, "masked") {
					masked++
				}
			}
			if masked == 0 {
				t.Error("nothing masked")
			}
		})
	}
}
