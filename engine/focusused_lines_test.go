package engine

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestFocusUsedLinesVisible: in a file far larger than an 8k request's
// context, the function the request's words match best is shown whole
// with the module constant and the import line it uses, in place (a
// change to it often changes them: gin's countParams commit replaced the
// bytes import and two module variables); an import and a constant it
// does not use stay hidden. Never over budget.
func TestFocusUsedLinesVisible(t *testing.T) {
	goSrc := "package pay\n\nimport (\n\t\"errors\"\n\t\"math\"\n\t\"strconv\"\n)\n\n// refundCap bounds one refund.\nconst refundCap = 5000 // capMarkerG\n\nconst unusedCap = 7 // unusedMarkerG\n\n" +
		"// Ledger books the entries of one account.\ntype Ledger struct {\n\tbalance, refund int\n}\n" + filler("go", 80) +
		"\n// applyRefund books a refund in the settlement currency.\nfunc (l *Ledger) applyRefund(refund int, currency string) error {\n\tif refund > refundCap {\n\t\treturn errors.New(\"refund over the cap in the settlement currency\")\n\t}\n\tl.refund += int(math.Round(float64(refund)))\n\tl.balance -= l.refund // settlement currency refund\n\treturn nil\n}\n" +
		strings.ReplaceAll(filler("go", 10), "helper", "mixer") +
		"\n// label names a book.\nfunc label(b *Book) string {\n\treturn strconv.Itoa(b.pages + unusedCap)\n}\n"
	pySrc := "\"\"\"The ledger.\"\"\"\n\nimport math\nimport os\n\nREFUND_CAP = 5000  # capMarkerP\nUNUSED_CAP = 7  # unusedMarkerP\n" + filler("python", 80) +
		"\n\nclass Ledger:\n    \"\"\"Books the entries of one account.\"\"\"\n\n    def apply_refund(self, refund, currency):\n        \"\"\"Book a refund in the settlement currency.\"\"\"\n        if refund > REFUND_CAP:\n            raise ValueError(\"refund over the cap in the settlement currency\")\n        self.refund += math.floor(refund)\n        self.balance -= self.refund  # settlement currency refund\n" +
		strings.ReplaceAll(filler("python", 10), "_helper", "_mixer") +
		"\n\ndef label(book):\n    return os.getcwd() + str(UNUSED_CAP)\n"
	repo, e := payEngine(t, map[string]string{"pay/ledger.go": goSrc, "pay/ledger.py": pySrc})
	tests := []struct {
		name, request, target string
		shown, hidden         []string // markers of lines
	}{
		{"go", "fix the refund in the settlement currency of ledger.go", "pay/ledger.go",
			[]string{"capMarkerG", "\t\"errors\"", "\t\"math\"", "l.balance -= l.refund"}, []string{"unusedMarkerG", "\t\"strconv\""}},
		{"python", "fix the refund in the settlement currency of ledger.py", "pay/ledger.py",
			[]string{"capMarkerP", "import math", "self.balance -= self.refund"}, []string{"unusedMarkerP", "import os"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := focusedTarget(t, e, tt.request, tt.target)
			lines := strings.Split(repo[tt.target], "\n")
			visible := func(m string) (int, bool) {
				at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, m) }) + 1
				if at == 0 {
					t.Fatalf("no line holds %q", m)
				}
				hidden := slices.ContainsFunc(got.Elided, func(r ctxd.LineRange) bool { return r.Start <= at && at <= r.End })
				return at, !hidden && strings.Contains(got.Content, lines[at-1])
			}
			for _, m := range tt.shown {
				if at, ok := visible(m); !ok {
					t.Errorf("%s at view %q (%d of %d tokens) hides line %d %q; elided %v", tt.target, got.Truncation, got.Tokens, got.OriginalTokens, at, m, got.Elided)
				}
			}
			for _, m := range tt.hidden {
				if at, ok := visible(m); ok {
					t.Errorf("%s at view %q shows line %d %q, which the focused function does not use", tt.target, got.Truncation, at, m)
				}
			}
		})
	}
}

// focusedTarget builds request at a total budget of 8,000 and returns its
// chunk of target, failing the test when target fits the context whole
// (the case needs a larger file) or is not at a focus view.
func focusedTarget(t *testing.T, e *Engine, request, target string) *ctxd.Chunk {
	t.Helper()
	env, got, order := promptTarget(t, e, PromptRequest{UserRequest: request}, target)
	if got.OriginalTokens <= env.Context.Budget {
		t.Fatalf("%s whole is %d tokens, within the %d-token context: the case needs a larger file", target, got.OriginalTokens, env.Context.Budget)
	}
	if got.Truncation != ctxd.ViewFocus && got.Truncation != ctxd.ViewFocusOnly {
		t.Fatalf("%s at view %q, want a focus view; included %v", target, got.Truncation, order)
	}
	return got
}

// payEngine returns an engine over a git repository of the files in
// srcs, a go.mod and a README beside them, and the repository's files.
func payEngine(t *testing.T, srcs map[string]string) (map[string]string, *Engine) {
	t.Helper()
	repo := map[string]string{"go.mod": "module example.com/pay\n\ngo 1.26\n", "pay/README.md": "# pay\n\nBooks ledgers.\n"}
	maps.Copy(repo, srcs)
	return repo, newEngine(t, testutil.GitRepo(t, repo))
}
