package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// Requests about a test file and renames, over a repository built here:
// a Vitest file whose tests must each stay visible (a test file's bodies
// view used to be one collapsed describe), and renames whose call sites in
// the defining file and in others must show beside the definition.

// vitestCases returns n tests of a describe block, each a few lines.
func vitestCases(fn string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\n  it('handles case %d of %s', () => {\n    const items = [{ sku: 'a%d', qty: %d, cents: %d }];\n    const got = %s(items, %d);\n    expect(got).toBeGreaterThan(%d);\n    expect(got).not.toBeNaN();\n  });\n", i, fn, i, i+1, 100*i+5, fn, i, i)
	}
	return b.String()
}

var viewsRepo = map[string]string{
	"package.json": `{"name": "shop", "devDependencies": {"vitest": "1.6.0"}}` + "\n",
	"web/src/cart.ts": "// The cart.\n\nexport type Line = { sku: string; qty: number; cents: number };\n" + filler("ts", 10) +
		"\nexport function cartTotal(lines: Line[], _n = 0): number {\n  return lines.reduce((n, l) => n + l.qty * l.cents, 0);\n}\n" +
		"\nexport function applyCoupon(lines: Line[], pct: number): number {\n  if (pct <= 0 || pct > 100) throw new RangeError('bad coupon');\n  return cartTotal(lines) * (100 - pct) / 100;\n}\n" + strings.ReplaceAll(filler("ts", 14), "helper", "mix") +
		"\nexport function checkoutSummary(lines: Line[]): string {\n  const total = cartTotal(lines); // summaryCallerMarker\n  return `${lines.length} items, ${total} cents`;\n}\n",
	"web/src/cart.test.ts": "import { describe, it, expect } from 'vitest';\nimport { cartTotal, applyCoupon } from './cart';\n\ndescribe('cartTotal', () => {" + vitestCases("cartTotal", 12) +
		"\n  it('returns zero for an empty cart', () => {\n    const empty = [];\n    expect(cartTotal(empty)).toBe(0); // emptyCartMarker\n  });\n" + vitestCases("cartTotal", 6) + "});\n\n" +
		"describe('applyCoupon', () => {" + vitestCases("applyCoupon", 10) +
		"\n  describe('with an expired coupon', () => {\n    it('rejects a coupon of zero percent', () => {\n      expect(() => applyCoupon([], 0)).toThrow(RangeError); // expiredCouponMarker\n    });\n  });\n});\n",
	"billing/ledger.py": "\"\"\"The ledger.\"\"\"\n\n\ndef merge_entries(first, second):\n    \"\"\"Merge two entry lists by date.\"\"\"\n    return sorted(first + second, key=lambda e: e.date)  # mergeMarker\n" + filler("python", 16) +
		"\n\nclass Ledger:\n    \"\"\"A ledger of open and pending entries.\"\"\"\n\n    def __init__(self):\n        self.open = []\n        self.pending = []\n\n    def close(self):\n        \"\"\"Close the period.\"\"\"\n        if not self.pending:\n            return self.open\n        merged = merge_entries(self.open, self.pending)  # callerMarker\n        self.pending = []\n        self.open = merged\n        return merged\n" + strings.ReplaceAll(filler("python", 16), "_helper", "_mix"),
	"billing/report.py": "\"\"\"Reports.\"\"\"\n\nfrom billing.ledger import merge_entries\n" + filler("python", 8) +
		"\n\ndef monthly_report(ledger, extra):\n    rows = merge_entries(ledger.open, extra)  # reportCallerMarker\n    return [r.amount for r in rows]\n",
}

func TestViewsRequests(t *testing.T) {
	dir := testutil.GitRepo(t, viewsRepo)
	e := newEngine(t, dir)
	const (
		cart     = "web/src/cart.ts"
		cartTest = "web/src/cart.test.ts"
		ledger   = "billing/ledger.py"
		report   = "billing/report.py"
	)
	tests := []struct {
		name, request, target string
		markers               []string // lines that must be visible in the target's view
	}{
		// A test file: the test the request is about shows its body.
		{"vitest-test", "the cartTotal test for an empty cart fails", cartTest, []string{"emptyCartMarker", "describe('cartTotal'"}},
		{"vitest-nested", "fix the applyCoupon test that rejects an expired coupon of zero percent", cartTest, []string{"expiredCouponMarker"}},
		// Renames: the definition and the call sites, in the file that
		// defines the name and in another.
		{"rename-python-infile", "rename merge_entries to combine_entries and update every caller", ledger, []string{"mergeMarker", "callerMarker"}},
		{"rename-python-other", "rename merge_entries to combine_entries and update every caller", report, []string{"reportCallerMarker"}},
		{"rename-ts-infile", "rename cartTotal to computeCartTotal everywhere", cart, []string{"return lines.reduce(", "summaryCallerMarker"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tc.request}, tc.target)
			for _, m := range tc.markers {
				if !strings.Contains(got.Content, m) {
					t.Errorf("target %s at view %q hides %q (task %s); included %v\n%s", tc.target, got.Truncation, m, env.TaskType, order, got.Content)
				}
			}
		})
	}
}
