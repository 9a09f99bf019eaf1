package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
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
