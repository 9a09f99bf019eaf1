package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// rankedFuncs returns n functions in lang ("go" or "python") that all
// hold the words the request below asks about, function j (0-based)
// repeating them n-j times in a body of the same length, so that they
// rank in order; function answer carries marker.
func rankedFuncs(lang string, n, answer int, marker string) string {
	var b strings.Builder
	for j := range n {
		var body []string
		for k := range 8 {
			switch {
			case k < n-j && lang == "go":
				body = append(body, fmt.Sprintf("\tl.refund += l.currency * %d // refund in the settlement currency", k))
			case k < n-j:
				body = append(body, fmt.Sprintf("    self.refund += self.currency * %d  # refund in the settlement currency", k))
			case lang == "go":
				body = append(body, fmt.Sprintf("\tl.total += %d", k))
			default:
				body = append(body, fmt.Sprintf("    self.total += %d", k))
			}
		}
		if j == answer {
			if lang == "go" {
				body = append(body, "\tl.total = roundHalfEven(l.total) // "+marker)
			} else {
				body = append(body, "    self.total = round_half_even(self.total)  # "+marker)
			}
		}
		if lang == "go" {
			fmt.Fprintf(&b, "\n// step%d moves a ledger entry.\nfunc (l *Ledger) step%d() {\n%s\n}\n", j, j, strings.Join(body, "\n"))
		} else {
			fmt.Fprintf(&b, "\n    def step%d(self):\n        \"\"\"Move a ledger entry.\"\"\"\n    %s\n", j, strings.Join(body, "\n    "))
		}
	}
	return b.String()
}

// TestRankedDefinitionWhole: the function that answers is the 4th to 7th
// best of a file far larger than an 8k request's context: the fitter buys
// the step of the focus ladder that keeps it whole (the fixed three focus
// functions hid it), within the budget.
func TestRankedDefinitionWhole(t *testing.T) {
	repo := map[string]string{
		"go.mod": "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n\nfunc roundHalfEven(x int) int { return x }\n" +
			filler("go", 22) + rankedFuncs("go", 7, 4, "answerMarkerG") + strings.ReplaceAll(filler("go", 22), "helper", "mixer"),
		"pay/ledger.py": "\"\"\"The ledger.\"\"\"\n\n\ndef round_half_even(x):\n    return x\n" + filler("python", 22) +
			"\n\nclass Ledger:\n    \"\"\"Books the entries of one account.\"\"\"\n" + rankedFuncs("python", 7, 5, "answerMarkerP") +
			strings.ReplaceAll(filler("python", 22), "_helper", "_mixer"),
		"pay/README.md": "# pay\n\nBooks ledgers.\n",
	}
	dir := testutil.GitRepo(t, repo)
	e := newEngine(t, dir)
	tests := []struct {
		name, request, target, marker string
	}{
		{"go method", "fix the refund in the settlement currency of ledger.go", "pay/ledger.go", "answerMarkerG"},
		{"python method", "fix the refund in the settlement currency of ledger.py", "pay/ledger.py", "answerMarkerP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, tt.target)
			if got.OriginalTokens > 0 && got.OriginalTokens <= env.Context.Budget {
				t.Fatalf("%s whole is %d tokens, within the %d-token context: the case needs a larger file", tt.target, got.OriginalTokens, env.Context.Budget)
			}
			// The premise: the answer is ranked where the old three focus
			// functions did not reach.
			lines := strings.Split(repo[tt.target], "\n")
			at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, tt.marker) })
			rank := -1
			for k, d := range got.Facts.FocusDefs {
				if d.Line <= at+1 && (rank < 0 || d.Line > got.Facts.FocusDefs[rank].Line) {
					rank = k
				}
			}
			if rank < 3 || rank > 6 {
				t.Fatalf("the answer's function is ranked %d (0-based), want 3-6: focus %v (mentioned %v, %d tokens)", rank, got.Facts.FocusDefs, got.Facts.MentionedSymbols, got.OriginalTokens)
			}
			if !strings.Contains(got.Content, tt.marker) {
				t.Errorf("%s at view %q (%d of %d tokens) hides %q; focus %v; included %v", tt.target, got.Truncation, got.Tokens, got.OriginalTokens, tt.marker, got.Facts.FocusDefs, order)
			}
		})
	}
}

// TestSmallRelevantFileWhole: a relevant file too large for the presence
// pass's whole (about 900 tokens) is shown whole at 8k, not as its
// outline, beside a large file that matches the request less.
func TestSmallRelevantFileWhole(t *testing.T) {
	var small strings.Builder
	small.WriteString("\"\"\"Invoices.\"\"\"\n")
	for i := range 14 {
		fmt.Fprintf(&small, "\n\ndef invoice_total_%d(invoice):\n    \"\"\"Sum invoice lines with tax rule %d.\"\"\"\n    total = sum(line.amount for line in invoice.lines)\n    return total * %d // 100  # smallMarker%d\n", i, i, 100+i, i)
	}
	repo := map[string]string{
		"billing/invoice.py": small.String(),
		"billing/misc.py":    "\"\"\"Misc.\"\"\"\n" + filler("python", 30) + "\n\ndef invoice_note(invoice):\n    return invoice.note\n",
	}
	dir := testutil.GitRepo(t, repo)
	e := newEngine(t, dir)
	_, got, order := promptTarget(t, e, PromptRequest{UserRequest: "the invoice total ignores the tax rule of invoice.py"}, "billing/invoice.py")
	if got.OriginalTokens <= 400 && got.Truncated {
		t.Fatalf("the case needs a file over the presence pass's 400 tokens: %d", got.OriginalTokens)
	}
	if got.Truncated {
		t.Errorf("billing/invoice.py at view %q (%d of %d tokens), want whole; included %v", got.Truncation, got.Tokens, got.OriginalTokens, order)
	}
	for i := range 14 {
		if m := fmt.Sprintf("smallMarker%d", i); !strings.Contains(got.Content, m) {
			t.Errorf("hides %s", m)
		}
	}
}

// TestLadderPastEight: at 32k, the function that answers is the 10th best
// of a file larger than the context: the ladder ranks up to focusLadder
// (13) functions and its steps keep the best 8 and all of them whole, so
// the fitter can buy a view that keeps it (the ladder stopped at the best
// 8, and on fastapi's routing.py, 40,000 tokens, the functions a commit
// changed were often past them); within the budget.
func TestLadderPastEight(t *testing.T) {
	repo := map[string]string{
		"go.mod": "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n\nfunc roundHalfEven(x int) int { return x }\n" +
			filler("go", 120) + rankedFuncs("go", 12, 9, "answerMarkerG") + strings.ReplaceAll(filler("go", 120), "helper", "mixer"),
		"pay/README.md": "# pay\n\nBooks ledgers.\n",
	}
	dir := testutil.GitRepo(t, repo)
	e := newEngine(t, dir)
	env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "fix the refund in the settlement currency of ledger.go", TokenBudget: &BudgetRequest{Total: 32000}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if env.Context.TokensUsed > env.Context.Budget {
		t.Fatalf("used %d of %d", env.Context.TokensUsed, env.Context.Budget)
	}
	got, order := targetChunk(t, &env.Context, "pay/ledger.go")
	if got == nil {
		t.Fatalf("pay/ledger.go not in the envelope; included %v", order)
	}
	if !got.Truncated {
		t.Fatalf("pay/ledger.go whole (%d tokens in a %d-token context): the case needs a larger file", got.Tokens, env.Context.Budget)
	}
	if len(got.Facts.FocusDefs) <= 9 {
		t.Fatalf("%d functions ranked, want the answer's (the 10th) among them: %v", len(got.Facts.FocusDefs), got.Facts.FocusDefs)
	}
	if !strings.Contains(got.Content, "answerMarkerG") {
		t.Errorf("pay/ledger.go at view %q (%d of %d tokens) hides the 10th function; focus %v; included %v", got.Truncation, got.Tokens, got.OriginalTokens, got.Facts.FocusDefs, order)
	}
}
