package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestLadderPastSixthFile: a large file seventh by path among the large
// files a request looks into gets the focus ladder when it holds half
// the context budget, so the function holding the request's rarest word
// alone (bookCredit: "twice", which no other definition holds) is
// among its focus definitions beside the four holding two common words,
// and shown whole. Gathering orders the files by path, and the ladder
// went to the first six only: the seventh had the best three by two
// words, and the rare word's holder stayed collapsed at every budget
// the file did not fit whole (httpx's _models.py after _api.py,
// _auth.py, _client.py, ...).
func TestLadderPastSixthFile(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/pay\n\ngo 1.26\n"}
	for i, dir := range []string{"a", "b", "c", "d", "e", "f"} {
		files[dir+"/"+dir+".go"] = fmt.Sprintf("package %s\n\n// Payment%d is a payment of the %s ledger.\ntype Payment%d struct{ Cents int }\n", dir, i, dir, i) +
			strings.ReplaceAll(filler("go", 14), "helper", dir+"mix")
	}
	var b strings.Builder
	b.WriteString("package g\n\nimport \"errors\"\n\n// Gateway talks to the payment gateway.\ntype Gateway struct{ Tries int }\n")
	b.WriteString(strings.ReplaceAll(filler("go", 20), "helper", "gpad"))
	for i := range 4 {
		fmt.Fprintf(&b, "\n// chargePayment%d charges a payment through the gateway.\nfunc chargePayment%d(g *Gateway, cents int) error {\n\tfor try := 0; try < g.Tries; try++ {\n\t\tif err := g.send(cents + %d); err == nil {\n\t\t\treturn nil // the payment went through the gateway\n\t\t}\n\t}\n\treturn errors.New(\"payment gateway down\")\n}\n", i, i, i)
	}
	answer := "\n// bookCredit books a credit once.\nfunc bookCredit(ledger map[string]int, id string, cents int) {\n\tif _, done := ledger[id]; done {\n\t\treturn // booked already: never twice\n\t}\n\tledger[id] = cents // creditMarker\n}\n"
	b.WriteString(answer)
	b.WriteString(strings.ReplaceAll(filler("go", 20), "helper", "gmix"))
	b.WriteString("\nfunc (g *Gateway) send(cents int) error {\n\tif cents < 0 {\n\t\treturn errors.New(\"negative\")\n\t}\n\treturn nil\n}\n")
	files["g/refund.go"] = b.String()
	src := files["g/refund.go"]
	first := strings.Count(src[:strings.Index(src, "func bookCredit")], "\n") + 1
	last := first + strings.Count(answer, "\n") - 3
	lines := strings.Split(src, "\n")
	if lines[last-1] != "}" {
		t.Fatalf("bookCredit is lines %d-%d, ending %q", first, last, lines[last-1])
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	request := "a payment is settled twice when the gateway retries"
	for _, budget := range []int{6000, 8000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var large []string // the large files before the target, by path
			for _, c := range env.Context.Chunks {
				if c.Source < "g/" && strings.HasSuffix(c.Source, ".go") {
					large = append(large, c.Source)
				}
			}
			got, order := targetChunk(t, &env.Context, "g/refund.go")
			if got == nil {
				t.Fatalf("g/refund.go not in the envelope; included %v", order)
			}
			if len(large) < focusLadderFiles {
				t.Fatalf("%d files before g/refund.go (%v): the test tests nothing", len(large), large)
			}
			if !got.Truncated {
				t.Fatalf("g/refund.go is whole (%d tokens): the test tests nothing at %d", got.Tokens, budget)
			}
			for l := first; l <= last; l++ {
				if ctxd.InRanges(got.Elided, l) || !strings.Contains(got.Content, strings.TrimSpace(lines[l-1])) {
					t.Fatalf("g/refund.go at view %q (%d tokens) hides line %d of bookCredit (%d-%d): %q; elided %v; included %v",
						got.Truncation, got.Tokens, l, first, last, lines[l-1], got.Elided, order)
				}
			}
		})
	}
}
