package lang

import (
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var pairFiles = []string{
	// Go
	"internal/cart/cart.go", "internal/cart/cart_test.go", "internal/cart/price.go",
	"strings/iter.go", "strings/iter_test.go", "slices/iter.go", "maps/iter.go", "internal/cart/price_test.go",
	// Python
	"billing/invoice.py", "billing/test_invoice.py", "tests/test_invoice.py", "tests/billing/test_tax.py",
	"billing/tax.py", "billing/report.py", "billing/report_test.py", "tests/conftest.py",
	// JS/TS
	"src/user.ts", "src/user.test.ts", "src/api.js", "src/api.spec.js", "src/cart.tsx",
	"src/__tests__/cart.tsx", "src/util.ts",
	// Java
	"src/main/java/com/acme/Invoice.java", "src/test/java/com/acme/InvoiceTest.java",
	"src/main/java/com/acme/Tax.java", "src/test/java/com/acme/TaxTests.java",
	"other/src/test/java/org/x/InvoiceTest.java",
	// Rust
	"src/lexer.rs", "tests/lexer.rs", "src/parser.rs", "tests/parser_test.rs",
	// Ruby
	"app/models/order.rb", "spec/models/order_spec.rb", "lib/money.rb", "test/money_test.rb",
	// C#
	"Billing/Ledger.cs", "Billing.Tests/LedgerTests.cs",
	// C/C++
	"src/hash.c", "tests/test_hash.c", "src/ring.cc", "src/ring_unittest.cc",
}

// pairBases is pairFiles by base name.
var pairBases = func() map[string][]string {
	m := map[string][]string{}
	for _, f := range pairFiles {
		b := path.Base(f)
		m[b] = append(m[b], f)
	}
	return m
}()

func TestTestPairs(t *testing.T) {
	tests := []struct {
		path string
		want []string
	}{
		{"internal/cart/cart.go", []string{"internal/cart/cart_test.go"}},
		{"internal/cart/cart_test.go", []string{"internal/cart/cart.go"}},
		{"internal/cart/price.go", []string{"internal/cart/price_test.go"}},
		{"strings/iter_test.go", []string{"strings/iter.go"}},
		{"maps/iter.go", nil},
		{"billing/invoice.py", []string{"billing/test_invoice.py", "tests/test_invoice.py"}},
		{"billing/tax.py", []string{"tests/billing/test_tax.py"}},
		{"billing/report.py", []string{"billing/report_test.py"}},
		{"tests/test_invoice.py", []string{"billing/invoice.py"}},
		{"src/user.ts", []string{"src/user.test.ts"}},
		{"src/api.js", []string{"src/api.spec.js"}},
		{"src/cart.tsx", []string{"src/__tests__/cart.tsx"}},
		{"src/util.ts", nil},
		{"src/user.test.ts", []string{"src/user.ts"}},
		{"src/main/java/com/acme/Invoice.java", []string{"src/test/java/com/acme/InvoiceTest.java", "other/src/test/java/org/x/InvoiceTest.java"}},
		{"src/main/java/com/acme/Tax.java", []string{"src/test/java/com/acme/TaxTests.java"}},
		{"src/test/java/com/acme/InvoiceTest.java", []string{"src/main/java/com/acme/Invoice.java"}},
		{"src/lexer.rs", []string{"tests/lexer.rs"}},
		{"src/parser.rs", []string{"tests/parser_test.rs"}},
		{"app/models/order.rb", []string{"spec/models/order_spec.rb"}},
		{"lib/money.rb", []string{"test/money_test.rb"}},
		{"spec/models/order_spec.rb", []string{"app/models/order.rb"}},
		{"Billing/Ledger.cs", []string{"Billing.Tests/LedgerTests.cs"}},
		{"src/hash.c", []string{"tests/test_hash.c"}},
		{"src/ring.cc", []string{"src/ring_unittest.cc"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := TestPairs(tt.path, pairBases)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("TestPairs(%s) (-want +got):\n%s", tt.path, d)
			}
		})
	}
}

func TestIsTestFile(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"a_test.go", true}, {"a.go", false}, {"testing/iotest/logger.go", false},
		{"test_a.py", true}, {"a_test.py", true}, {"tests/helpers.py", true}, {"conftest.py", true}, {"contest.py", false},
		{"a.test.ts", true}, {"a.spec.jsx", true}, {"__tests__/a.js", true}, {"latest.ts", false},
		{"src/test/java/a/B.java", true}, {"src/main/java/a/BTest.java", true}, {"src/main/java/a/Contest.java", false},
		{"tests/it.rs", true}, {"src/lib.rs", false},
		{"spec/a_spec.rb", true}, {"lib/a.rb", false},
		{"pkg/testdata/x.txt", true}, {"fixtures/user.json", true},
	} {
		if got := IsTest(tt.path); got != tt.want {
			t.Errorf("IsTest(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
