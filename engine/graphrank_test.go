package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestGraphNeighbourWhole: in a file far larger than an 8k request's
// context, the function the request's words match best is shown whole,
// and so are its caller and the helper it calls, whose text holds none of
// the request's words (a change to a function often changes its caller
// or its helper too), each with its reason in focus_defs; the module
// constant and the import the best match uses are shown in place. Never
// over budget.
func TestGraphNeighbourWhole(t *testing.T) {
	goSrc := "package pay\n\nimport (\n\t\"errors\"\n\t\"math\"\n)\n\n// refundCap bounds one refund.\nconst refundCap = 5000 // capMarkerG\n\n" +
		"// Ledger books the entries of one account.\ntype Ledger struct {\n\tbalance, refund int\n}\n" + filler("go", 22) +
		"\n// applyRefund books a refund in the settlement currency.\nfunc (l *Ledger) applyRefund(refund int, currency string) error {\n\tif refund > refundCap {\n\t\treturn errors.New(\"refund over the cap in the settlement currency\")\n\t}\n\tl.refund += roundCents(refund)\n\tl.balance -= l.refund // settlement currency refund\n\treturn nil\n}\n" +
		strings.ReplaceAll(filler("go", 10), "helper", "mixer") +
		"\n// closeAccount zeroes a ledger.\nfunc closeAccount(l *Ledger) {\n\tn := 0\n\tfor l.balance > 0 && n < 10 {\n\t\tn++\n\t\t_ = l.applyRefund(l.balance, \"EUR\") // callerMarkerG\n\t}\n\tl.balance = 0\n}\n" +
		strings.ReplaceAll(filler("go", 10), "helper", "blender") +
		"\n// roundCents rounds half to even.\nfunc roundCents(x int) int {\n\tif x < 0 {\n\t\treturn -roundCents(-x)\n\t}\n\ty := math.RoundToEven(float64(x)) // calleeMarkerG\n\treturn int(y)\n}\n" +
		strings.ReplaceAll(filler("go", 10), "helper", "stirrer")
	pySrc := "\"\"\"The ledger.\"\"\"\n\nimport math\nimport os\n\nREFUND_CAP = 5000  # capMarkerP\n" + filler("python", 22) +
		"\n\nclass Ledger:\n    \"\"\"Books the entries of one account.\"\"\"\n\n    def apply_refund(self, refund, currency):\n        \"\"\"Book a refund in the settlement currency.\"\"\"\n        if refund > REFUND_CAP:\n            raise ValueError(\"refund over the cap in the settlement currency\")\n        self.refund += round_cents(refund)\n        self.balance -= self.refund  # settlement currency refund\n" +
		"\n    def close_account(self):\n        \"\"\"Zero the ledger.\"\"\"\n        n = 0\n        while self.balance > 0 and n < 10:\n            n += 1\n            self.apply_refund(self.balance, \"EUR\")  # callerMarkerP\n        self.balance = 0\n" +
		strings.ReplaceAll(filler("python", 10), "_helper", "_mixer") +
		"\n\ndef round_cents(x):\n    \"\"\"Round half to even.\"\"\"\n    if x < 0:\n        return -round_cents(-x)\n    y = math.floor(x + 0.5)  # calleeMarkerP\n    return int(y)\n" +
		strings.ReplaceAll(filler("python", 10), "_helper", "_stirrer")
	repo := map[string]string{
		"go.mod":        "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": goSrc,
		"pay/ledger.py": pySrc,
		"pay/README.md": "# pay\n\nBooks ledgers.\n",
	}
	dir := testutil.GitRepo(t, repo)
	e := newEngine(t, dir)
	tests := []struct {
		name, request, target string
		markers               []string // lines that must be visible
		via                   []string // reasons focus_defs must give
	}{
		{"go", "fix the refund in the settlement currency of ledger.go", "pay/ledger.go",
			[]string{"callerMarkerG", "calleeMarkerG", "capMarkerG", "\t\"errors\""}, []string{"calls applyRefund", "called by applyRefund"}},
		{"python", "fix the refund in the settlement currency of ledger.py", "pay/ledger.py",
			[]string{"callerMarkerP", "calleeMarkerP", "capMarkerP", "import math"}, []string{"calls apply_refund", "called by apply_refund"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, tt.target)
			if got.OriginalTokens <= env.Context.Budget {
				t.Fatalf("%s whole is %d tokens, within the %d-token context: the case needs a larger file", tt.target, got.OriginalTokens, env.Context.Budget)
			}
			for _, v := range tt.via {
				if !slices.ContainsFunc(got.Facts.FocusDefs, func(d ctxd.DefScore) bool { return d.Via == v }) {
					t.Errorf("no focus def %q: %+v", v, got.Facts.FocusDefs)
				}
			}
			lines := strings.Split(repo[tt.target], "\n")
			for _, m := range tt.markers {
				at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, m) }) + 1
				hidden := slices.ContainsFunc(got.Elided, func(r ctxd.LineRange) bool { return r.Start <= at && at <= r.End })
				if at == 0 || hidden || !strings.Contains(got.Content, lines[at-1]) {
					t.Errorf("%s at view %q (%d of %d tokens) hides line %d %q; focus %+v; included %v", tt.target, got.Truncation, got.Tokens, got.OriginalTokens, at, m, got.Facts.FocusDefs, order)
				}
			}
		})
	}
}
