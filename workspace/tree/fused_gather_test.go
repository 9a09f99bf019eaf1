package tree_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

// fusedRepo is a repository where src/journal.js, the file a refund
// request needs, is ranked by two signals but near the top of neither:
// eight files say "refund payment" more often (its lexical rank, 10th, is
// past the depth of 8), three files are linked more strongly to the
// request's best matches (it imports the ledger they import), and two
// files changed with refund.js more often (three commits to its two).
func fusedRepo(t *testing.T) string {
	t.Helper()
	root := testutil.IsolatedRepo(t)
	files := map[string]string{
		"package.json": `{"name": "shop", "version": "1.0.0"}` + "\n",
		"src/refund.js": "const ledger = require('./ledger');\nconst audit = require('./audit');\n\n" +
			"// refundPayment sends a refund payment back to the card.\nfunction refundPayment(order) {\n  // refund payment: the ledger, the audit, the journal\n" +
			"  audit.log(order);\n  return ledger.post(order);\n}\n\nmodule.exports = { refundPayment };\n",
		"src/ledger.js":  "// post records an order.\nfunction post(order) { return order.id; }\n\nmodule.exports = { post };\n",
		"src/audit.js":   "// log keeps a trail.\nfunction log(order) { return [order]; }\n\nmodule.exports = { log };\n",
		"src/journal.js": "const ledger = require('./ledger');\n\n// entry writes the journal line of a payment.\nfunction entry(order) {\n  return { id: ledger.post(order), amount: -order.amount };\n}\n\nmodule.exports = { entry };\n",
		"src/rates.js":   "// apply converts a sum.\nfunction apply(sum) { return sum * 2; }\n\nmodule.exports = { apply };\n",
		"src/mailer.js":  "// send mails a receipt.\nfunction send(to) { return to; }\n\nmodule.exports = { send };\n",
		"src/stock.js":   "// restock puts items back.\nfunction restock(items) { return items.length; }\n\nmodule.exports = { restock };\n",
	}
	for i := range 8 {
		files[fmt.Sprintf("src/offer%d.js", i)] = fmt.Sprintf("const ledger = require('./ledger');\nconst audit = require('./audit');\nconst rates = require('./rates');\n\n"+
			"// refundPaymentOffer%d: a refund payment offer.\nfunction refundPaymentOffer%d(order) {\n  const refundPayment = order.refund, paymentAmount = order.amount;\n  audit.log(refundPayment);\n  return ledger.post(rates.apply(paymentAmount));\n}\n\nmodule.exports = { refundPaymentOffer%d };\n", i, i, i)
	}
	for i := range 30 {
		files[fmt.Sprintf("lib/gear%02d.js", i)] = fmt.Sprintf("// gear%d spins.\nfunction gear%d() { return %d; }\n\nmodule.exports = { gear%d };\n", i, i, i, i)
	}
	testutil.WriteFiles(t, root, files)
	tree.GitCommitAll(t, root, "initial import", "2024-01-01T10:00:00Z")
	// refund.js changed with mailer.js and stock.js three times, with
	// journal.js twice.
	for i := range 3 {
		change := map[string]string{
			"src/refund.js": files["src/refund.js"] + strings.Repeat("// v\n", i+1),
			"src/mailer.js": files["src/mailer.js"] + strings.Repeat("// v\n", i+1),
			"src/stock.js":  files["src/stock.js"] + strings.Repeat("// v\n", i+1),
		}
		if i < 2 {
			change["src/journal.js"] = files["src/journal.js"] + strings.Repeat("// v\n", i+1)
		}
		testutil.WriteFiles(t, root, change)
		tree.GitCommitAll(t, root, fmt.Sprintf("change %d", i), fmt.Sprintf("2024-01-0%dT10:00:00Z", i+2))
	}
	for i := range 6 {
		testutil.WriteFiles(t, root, map[string]string{fmt.Sprintf("lib/gear%02d.js", i): files[fmt.Sprintf("lib/gear%02d.js", i)] + "// later\n"})
		tree.GitCommitAll(t, root, fmt.Sprintf("gear %d", i), fmt.Sprintf("2024-01-%02dT10:00:00Z", i+10))
	}
	return root
}

// TestFusedRankGathers: a file that the lexical, graph and co-change
// signals each rank below the few files they add themselves, but that two
// of them rank, is gathered with a reason naming its ranks, from a context
// budget of 8,000 tokens (or an unknown one); below it, it is not.
func TestFusedRankGathers(t *testing.T) {
	root := fusedRepo(t)
	w := tree.NewTestWorkspace(t, root, tree.Options{})
	const request = "the refund payment books a wrong amount"
	hits, err := w.Rank(t.Context(), query.Parse(request), 0)
	if err != nil {
		t.Fatal(err)
	}
	place := 0
	for i, h := range hits {
		if h.Path == "src/journal.js" {
			place = i + 1
		}
	}
	if len(hits) == 0 || hits[0].Path != "src/refund.js" || place > 0 && place <= 9 {
		t.Fatalf("lexical hits %v: want src/refund.js first and src/journal.js past the 8 lexical places (at %d)", hits, place)
	}
	for _, tt := range []struct {
		budget int
		want   bool
	}{{0, true}, {20000, true}, {8000, true}, {4733, false}} {
		t.Run(fmt.Sprint(tt.budget), func(t *testing.T) {
			res := gatherOf(t, w, gather.Request{Query: query.Parse(request), Task: ctxd.TaskImplement, Depth: 8, ContextBudget: tt.budget})
			got := chunk(res, "src/journal.js")
			for _, c := range res.Chunks {
				if strings.HasPrefix(c.Source, "lib/gear") {
					t.Errorf("unrelated %s gathered: %q", c.Source, c.Facts.Reasons)
				}
			}
			if !tt.want {
				if got != nil {
					t.Errorf("src/journal.js gathered at a context budget of %d: %q", tt.budget, got.Facts.Reasons)
				}
				return
			}
			if got == nil {
				t.Fatalf("src/journal.js not gathered; chunks %v", sources(res))
			}
			if !containsPrefix(got.Facts.Reasons, "ranked by several signals (lexical 10, graph ") {
				t.Errorf("src/journal.js reasons %q, want one starting %q", got.Facts.Reasons, "ranked by several signals (lexical 10, graph ")
			}
			if got.Facts.GraphRank == 0 || got.Facts.CoChangeRank == 0 {
				t.Errorf("src/journal.js graph rank %d co-change rank %d, want both", got.Facts.GraphRank, got.Facts.CoChangeRank)
			}
		})
	}
}
