package engine

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusShowsTheInsertionPoints: in a file far larger than an 8k
// request's context, the function the request matches is shown whole with
// the blank line above its doc comment and the one below its end: a
// function added beside it is inserted at one of them (gin's GetError went
// in at the blank line above the focused GetIntSlice's doc; the commit's
// insertion point was hidden while the function below it was shown). The
// functions around stay collapsed, and the context stays in its budget.
func TestFocusShowsTheInsertionPoints(t *testing.T) {
	goSrc := "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\tbalance, refund int\n}\n" + filler("go", 80) +
		"\n// applyRefund books a refund in the settlement currency.\nfunc (l *Ledger) applyRefund(refund int, currency string) {\n\tl.refund += refund // settlement currency refund\n\tl.balance -= l.refund\n}\n" +
		strings.ReplaceAll(filler("go", 10), "helper", "mixer")
	pySrc := "\"\"\"The ledger.\"\"\"\n" + filler("python", 80) +
		"\n\n\ndef apply_refund(ledger, refund, currency):\n    \"\"\"Book a refund in the settlement currency.\"\"\"\n    ledger.refund += refund  # settlement currency refund\n    ledger.balance -= ledger.refund\n" +
		strings.ReplaceAll(filler("python", 10), "_helper", "_mixer")
	tsSrc := "// The ledger.\n" + filler("ts", 80) +
		"\n/** applyRefund books a refund in the settlement currency. */\nexport function applyRefund(ledger: Ledger, refund: number, currency: string): void {\n  ledger.refund += refund; // settlement currency refund\n  ledger.balance -= ledger.refund;\n}\n" +
		strings.ReplaceAll(filler("ts", 10), "helper", "mixer") + "\ninterface Ledger {\n  refund: number;\n  balance: number;\n}\n"
	repo, e := payEngine(t, map[string]string{"pay/ledger.go": goSrc, "pay/ledger.py": pySrc, "pay/ledger.ts": tsSrc})
	tests := []struct {
		name, request, target string
		first, last           string // markers of the function's first (doc) and last lines
	}{
		{"go", "fix the refund in the settlement currency of ledger.go", "pay/ledger.go", "// applyRefund books", "\tl.balance -= l.refund"},
		{"python", "fix the refund in the settlement currency of ledger.py", "pay/ledger.py", "def apply_refund", "    ledger.balance -= ledger.refund"},
		{"typescript", "fix the refund in the settlement currency of ledger.ts", "pay/ledger.ts", "/** applyRefund books", "  ledger.balance -= ledger.refund;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := focusedTarget(t, e, tt.request, tt.target)
			lines := strings.Split(repo[tt.target], "\n")
			at := func(m string) int {
				k := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, m) })
				if k < 0 {
					t.Fatalf("no line starts with %q", m)
				}
				return k + 1
			}
			shown := func(l int) bool {
				return !slices.ContainsFunc(got.Elided, func(r ctxd.LineRange) bool { return r.Start <= l && l <= r.End })
			}
			first, last := at(tt.first), at(tt.last)
			if tt.name != "python" {
				last++ // the closing brace
			}
			for l := first; l <= last; l++ {
				if !shown(l) || !strings.Contains(got.Content, lines[l-1]) {
					t.Fatalf("%s at view %q hides line %d %q of the focused function; elided %v", tt.target, got.Truncation, l, lines[l-1], got.Elided)
				}
			}
			if strings.TrimSpace(lines[first-2]) != "" || strings.TrimSpace(lines[last]) != "" {
				t.Fatalf("the case needs blank lines around the function: %q, %q", lines[first-2], lines[last])
			}
			for _, l := range []int{first - 1, last + 1} {
				if !shown(l) {
					t.Errorf("%s at view %q hides the blank line %d beside the focused function (lines %d-%d); elided %v", tt.target, got.Truncation, l, first, last, got.Elided)
				}
			}
			// Only the blank lines: the code above and below stays out.
			for _, l := range []int{first - 2, last + 2} {
				if shown(l) && strings.TrimSpace(lines[l-1]) != "" {
					t.Errorf("%s at view %q shows line %d %q beyond the margins; elided %v", tt.target, got.Truncation, l, lines[l-1], got.Elided)
				}
			}
			if !strings.Contains(got.Content, "\n"+strconv.Itoa(first)+": ") {
				t.Errorf("the function's first line is not numbered %d in:\n%s", first, got.Content)
			}
		})
	}
}
