package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

// TestFocusStepByGlobalScore: two large files compete at small budgets.
// ledger.go ranks first (the request names it) and every one of its
// functions holds the request's common words (ledger, entry); mixers.go,
// ranked second, holds the one function with its rare ones (refund,
// rounding, settlement currency), the request's best definition across
// both files (DefScore.Global 1, ledger.go's under half). Without the
// global score the fitter values mixers.go's focus step by its share of
// the file alone and spends the budget on ledger.go's steps, leaving
// mixers.go a head and a tail (settleRefund hidden) at 1,500, 3,000 and
// 5,000 tokens; with it settleRefund is shown whole, within the budget.
func TestFocusStepByGlobalScore(t *testing.T) {
	var a strings.Builder
	a.WriteString("package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\tentries []int\n\tbalance int\n}\n")
	for i := range 14 {
		fmt.Fprintf(&a, "\n// entry%d books a ledger entry.\nfunc (l *Ledger) entry%d(amount int) {\n\tl.entries = append(l.entries, amount+%d) // ledger entry\n\tl.balance += amount\n}\n", i, i, i)
	}
	a.WriteString(filler("go", 30))
	var b strings.Builder
	b.WriteString("package pay\n\n// Refunds settle what a ledger owes back.\n")
	b.WriteString(strings.ReplaceAll(filler("go", 25), "helper", "mixer"))
	b.WriteString("\n// settleRefund rounds a refund in the settlement currency.\nfunc settleRefund(refund int, currency string) int {\n\trounded := (refund + 50) / 100 * 100 // refund rounding in the currency\n\tswitch currency {\n")
	for i, cur := range []string{"JPY", "EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "RON", "BGN", "ISK", "TRY", "AUD", "CAD", "NZD"} {
		fmt.Fprintf(&b, "\tcase %q:\n\t\trounded = (refund + %d) / %d * %d\n", cur, i+1, 10*(i+1), 10*(i+1))
	}
	b.WriteString("\t}\n\treturn rounded\n}\n")
	b.WriteString(strings.ReplaceAll(filler("go", 10), "helper", "pad"))
	repo, e := payEngine(t, map[string]string{"pay/ledger.go": a.String(), "pay/mixers.go": b.String()})
	lines := strings.Split(repo["pay/mixers.go"], "\n")
	first := slices.Index(lines, "func settleRefund(refund int, currency string) int {") + 1
	last := first + slices.Index(lines[first-1:], "}") // its closing brace
	const request = "ledger.go: fix the ledger entry rounding of a refund in the settlement currency"
	for _, total := range []int{1500, 3000, 5000} {
		t.Run(fmt.Sprint(total), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: total}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, "pay/mixers.go")
			if got == nil || len(order) < 2 || !strings.HasPrefix(order[0], "pay/ledger.go(") {
				t.Fatalf("want ledger.go first and mixers.go placed: %v", order)
			}
			if len(got.Facts.FocusDefs) == 0 || got.Facts.FocusDefs[0].Line != first || got.Facts.FocusDefs[0].Global != 1 {
				t.Fatalf("mixers.go's focus definitions %+v: want settleRefund (line %d) first, the request's best", got.Facts.FocusDefs, first)
			}
			for l := first; l <= last; l++ {
				if ctxd.InRanges(got.Elided, l) || !strings.Contains(got.Content, lines[l-1]) {
					t.Fatalf("mixers.go at %q (%d tokens) hides line %d %q of settleRefund; included %v", got.Truncation, got.Tokens, l, lines[l-1], order)
				}
			}
		})
	}
}

// TestSetGlobalByFocusDefinition: setGlobal gives each focus definition
// the global score of its own definition (the one focusPick picked for
// it), whatever the order of the file's ranking it is handed: the
// ranking only says which definitions stand for the file. Reversing the
// ranking of a file with two focus definitions changes neither Global;
// paired by the ranking's position they swapped.
func TestSetGlobalByFocusDefinition(t *testing.T) {
	retry := strings.Join([]string{
		"func loadSettings(file string) (*Settings, error) {", // 1
		"\tdata := slurp(file)",
		"\treturn parseSettings(data)",
		"}",
		"func resendRequests(tries int) error {", // 5
		"\tfor k := 0; k < tries; k++ {",
		"\t\tif transmit() == nil { return nil } // retried after a timeout, with backoff",
		"\t}",
		"\treturn errGaveUp",
		"}",
		"func backoffWait(round int) time.Duration {", // 11
		"\treturn time.Millisecond << round // timeout",
		"}",
	}, "\n")
	pool := strings.Join([]string{
		"func closeIdle() {", // 1
		"\tfor _, c := range conns { c.Close() } // after a timeout",
		"}",
		"func dialRetry(addr string) (net.Conn, error) {", // 4
		"\treturn net.DialTimeout(\"tcp\", addr, timeout) // retried requests",
		"}",
	}, "\n")
	fq := tree.NewFocusQuery(query.Parse("requests are retried without a backoff after a timeout"))
	type file struct {
		dt     *tree.DefTerms
		cs     focusCands
		ranked []tree.DefScore
	}
	load := func(src string, spans []tree.DefSpan) file {
		var cs focusCands
		for _, s := range spans {
			cs = append(cs, focusCand{span: s, at: s.Start})
		}
		dt := tree.NewDefTerms([]byte(src), cs.spans())
		return file{dt, cs, dt.RankBy(fq, nil, nil)}
	}
	a := load(retry, []tree.DefSpan{{Start: 1, End: 4}, {Start: 5, End: 10}, {Start: 11, End: 13}})
	b := load(pool, []tree.DefSpan{{Start: 1, End: 3}, {Start: 4, End: 6}})
	if len(a.ranked) < 2 || len(a.ranked) > 3 || len(b.ranked) == 0 {
		t.Fatalf("rankings %v and %v: want two or three of the first file's, one of the second's", a.ranked, b.ranked)
	}
	globals := func(reverse bool) []ctxd.DefScore {
		var fa, fb ctxd.Facts
		pa := focusPick(&fa, a.ranked, a.cs, focusLadder, 0)
		pb := focusPick(&fb, b.ranked, b.cs, focusLadder, 0)
		for k, i := range pa {
			if a.cs[i].at != fa.FocusDefs[k].Line {
				t.Fatalf("focusPick's candidate %d is at line %d, its focus definition %d at %d", i, a.cs[i].at, k, fa.FocusDefs[k].Line)
			}
		}
		ranked := a.ranked
		if reverse {
			ranked = slices.Clone(ranked)
			slices.Reverse(ranked)
		}
		setGlobal(fq, []globalSet{{a.dt, nil, ranked, &fa, pa}, {b.dt, nil, b.ranked, &fb, pb}})
		return fa.FocusDefs
	}
	inOrder, reversed := globals(false), globals(true)
	if inOrder[0].Global == inOrder[1].Global {
		t.Fatalf("both focus definitions at Global %v: the case cannot tell a swap", inOrder[0].Global)
	}
	for k := range inOrder {
		if inOrder[k].Global <= 0 || inOrder[k].Global != reversed[k].Global {
			t.Errorf("focus definition at line %d: Global %v with the ranking in order, %v reversed", inOrder[k].Line, inOrder[k].Global, reversed[k].Global)
		}
	}
}
