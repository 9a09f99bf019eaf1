package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// The relevance suite: hand-written requests of every class (a symbol
// named, debug traces in Python, Go, TypeScript and Java, refactor, test,
// "how does X work", selection-driven, plain words) against a repository built here in
// four languages, large enough that not everything fits an 8k budget, with
// a changelog, docs, an issue template and a generated file that repeat the
// code's names. Each request asserts that its target file is in the
// envelope and that the target function's body (a line of it) is visible
// in the file's view, and that the context is never over budget.

// filler returns n small functions in a language, so files are large
// enough to need views.
func filler(lang string, n int) string {
	var b strings.Builder
	for i := range 3 * n {
		switch lang {
		case "go":
			fmt.Fprintf(&b, "\n// helper%d mixes a value.\nfunc helper%d(x int) int {\n\ta := x * %d\n\tif a > 100 {\n\t\treturn a - %d\n\t}\n\treturn a + %d\n}\n", i, i, i+3, i, i*7)
		case "python":
			fmt.Fprintf(&b, "\n\ndef _helper%d(x):\n    \"\"\"Mix a value.\"\"\"\n    a = x * %d\n    if a > 100:\n        return a - %d\n    return a + %d\n", i, i+3, i, i*7)
		case "ts":
			fmt.Fprintf(&b, "\n/** helper%d mixes a value. */\nexport function helper%d(x: number): number {\n  const a = x * %d;\n  if (a > 100) {\n    return a - %d;\n  }\n  return a + %d;\n}\n", i, i, i+3, i, i*7)
		case "rust":
			fmt.Fprintf(&b, "\n/// helper%d mixes a value.\nfn helper%d(x: i64) -> i64 {\n    let a = x * %d;\n    if a > 100 {\n        return a - %d;\n    }\n    a + %d\n}\n", i, i, i+3, i, i*7)
		case "java":
			fmt.Fprintf(&b, "\n    /** helper%d mixes a value. */\n    static int helper%d(int x) {\n        int a = x * %d;\n        if (a > 100) {\n            return a - %d;\n        }\n        return a + %d;\n    }\n", i, i, i+3, i, i*7)
		}
	}
	return b.String()
}

var requestsRepo = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.26\n",
	"shop/cart.go": "package shop\n\nimport \"errors\"\n\n// Cart holds the items of one order.\ntype Cart struct {\n\tItems []Item\n\tCoupon string\n}\n\n// Item is a line of a cart.\ntype Item struct {\n\tSKU   string\n\tQty   int\n\tCents int\n}\n" + filler("go", 12) +
		"\n// Total sums the line prices in cents.\nfunc (c *Cart) Total() int {\n\tn := 0\n\tfor i := range c.Items {\n\t\tn += c.Items[i].Qty * c.Items[i].Cents // totalMarker\n\t}\n\treturn n\n}\n" + filler("go", 10)[0:0] +
		"\n// ApplyDiscount takes pct percent off the subtotal.\nfunc (c *Cart) ApplyDiscount(pct int) (int, error) {\n\tif pct < 0 || pct > 100 {\n\t\treturn 0, errors.New(\"bad percentage\")\n\t}\n\tdiscountMarker := c.Total() * pct / 100\n\treturn c.Total() - discountMarker, nil\n}\n" + strings.ReplaceAll(filler("go", 12), "helper", "mixer"),
	"shop/shipping.go": "package shop\n\n// ShippingCost returns the carrier price for a parcel of grams.\nfunc ShippingCost(grams int, country string) int {\n\tbase := 490\n\tif grams > 2000 {\n\t\tbase = 990 // heavyParcelMarker\n\t}\n\tif country != \"DE\" {\n\t\tbase += 500\n\t}\n\treturn base\n}\n" + strings.ReplaceAll(filler("go", 22), "helper", "rate"),
	"main.go":          "package main\n\nimport \"example.com/shop/shop\"\n\nfunc main() {\n\tc := &shop.Cart{}\n\t_ = c.Total()\n}\n",
	"billing/invoice.py": "\"\"\"Invoices.\"\"\"\n\nfrom billing.tax import compute_vat\n" + filler("python", 12) +
		"\n\nclass Invoice:\n    \"\"\"An invoice of line items.\"\"\"\n\n    def __init__(self, country):\n        self.country = country\n        self.lines = []\n\n    def add_line_item(self, sku, quantity, cents):\n        if quantity < 0:\n            raise ValueError(\"negative quantity\")\n        self.lines.append((sku, quantity, cents))\n\n    def total(self):\n        net = sum(q * c for _, q, c in self.lines)\n        average = net / len(self.lines)  # averageMarker\n        return net + compute_vat(net, self.country), average\n" + strings.ReplaceAll(filler("python", 12), "_helper", "_mixer"),
	"billing/tax.py":      "\"\"\"VAT.\"\"\"\n" + filler("python", 10) + "\n\ndef compute_vat(net, country):\n    rates = {\"DE\": 19, \"FR\": 20, \"AT\": 20}\n    return round_cents(net * rates[country] / 100)\n\n\ndef round_cents(value):\n    return int(value + 0.5)  # roundMarker\n" + strings.ReplaceAll(filler("python", 14), "_helper", "_rate"),
	"web/src/format.ts":   "// Formatting of money.\n" + filler("ts", 10) + "\nexport function formatPrice(price: { cents: number }): string {\n  const sign = price.cents < 0 ? \"-\" : \"\";\n  const abs = Math.abs(price.cents);\n  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, \"0\")}`;\n}\n" + strings.ReplaceAll(filler("ts", 12), "helper", "pad"),
	"web/src/checkout.ts": "import { formatPrice } from \"./format\";\n" + filler("ts", 8) + "\nexport function shippingCost(grams: number, express: boolean): number {\n  const perKilo = express ? 250 : 120; // perKiloMarker\n  return Math.ceil(grams / 1000) * perKilo;\n}\n\nexport function renderTotal(total?: { cents: number }): string {\n  return \"Total: \" + formatPrice(total!); // renderMarker\n}\n" + strings.ReplaceAll(filler("ts", 12), "helper", "step"),
	"server/src/main/java/com/shop/OrderService.java": "package com.shop;\n\nimport java.util.Map;\n\n/** Orders. */\npublic class OrderService {\n    private final Inventory inventory;\n\n    OrderService(Inventory inventory) {\n        this.inventory = inventory;\n    }\n" + filler("java", 10) +
		"\n    /** Cancels an order that has not shipped. */\n    public void cancelOrder(Order order) {\n        if (order.isShipped()) {\n            throw new IllegalStateException(\"order already shipped\");\n        }\n        inventory.release(order.getSku(), order.getQuantity());\n    }\n\n    /** Ships an order. */\n    public void shipOrder(Order order) {\n        Map<String, Integer> stock = inventory.levels(); // shipMarker\n        stock.put(order.getSku(), stock.get(order.getSku()) - order.getQuantity());\n    }\n" + strings.ReplaceAll(filler("java", 10), "helper", "mixer") + "}\n",
	"search/src/binary.rs": "//! Binary detection for the searcher.\n\n/// Detector quits a search on a byte.\npub struct Detector {\n    byte: u8,\n}\n\nimpl Detector {\n    /// Reports whether a haystack holds the quit byte.\n    pub fn looks_binary(&self, haystack: &[u8]) -> bool {\n        haystack.iter().any(|b| *b == self.byte) // binaryMarker\n    }\n}\n" + filler("rust", 60) +
		"\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn search_quits_on_nul_byte_in_binary_file() {\n        // A binary file: the search quits on the NUL byte of the binary file.\n        let d = Detector { byte: 0 };\n        assert!(d.looks_binary(b\"binary file search\\x00 quits\"));\n    }\n}\n",
	"server/src/main/java/com/shop/Main.java": "package com.shop;\n\npublic class Main {\n    public static void main(String[] args) {\n        new OrderService(new Inventory()).cancelOrder(null);\n    }\n}\n",
	"CHANGELOG.md":                  "# Changelog\n\n- Cart.Total, Cart.ApplyDiscount, ShippingCost, Invoice.add_line_item, Invoice.total, compute_vat, round_cents, formatPrice, shippingCost, renderTotal, OrderService.cancelOrder and shipOrder changed.\n- discount shipping invoice tax vat price checkout order cancel ship total refactor tests\n",
	"docs/guide.md":                 "# Guide\n\nHow the checkout works: the cart Total, ApplyDiscount, ShippingCost, shipping cost, invoices (Invoice.total, add_line_item), compute_vat and round_cents, formatPrice, renderTotal, and OrderService cancelOrder and shipOrder.\n",
	".github/ISSUE_TEMPLATE/bug.md": "Bug report: cart total discount shipping invoice vat price checkout order cancel ship\n",
	"shop/zz_generated.go":          "// Code generated by gen. DO NOT EDIT.\n\npackage shop\n\n// Names: Total ApplyDiscount ShippingCost Cart Item discount shipping cost\nvar generatedNames = []string{\"Total\", \"ApplyDiscount\", \"ShippingCost\", \"Cart\"}\n",
	"shop/cart_test.go":             "package shop\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal(\"empty cart\")\n\t}\n}\n",
	"billing/test_tax.py":           "from billing.tax import compute_vat\n\n\ndef test_de():\n    assert compute_vat(100, \"DE\") == 19\n",
}

// lineOf returns the 1-based line of the first line of requestsRepo's
// file containing s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	return fileLine(t, requestsRepo, file, s)
}

type relevanceCase struct {
	class   string
	request string
	open    []ctxd.OpenFile
	target  string
	marker  string // a line of the target function's body
}

func relevanceCases(t *testing.T) []relevanceCase {
	const (
		cart     = "shop/cart.go"
		shipping = "shop/shipping.go"
		invoice  = "billing/invoice.py"
		tax      = "billing/tax.py"
		format   = "web/src/format.ts"
		checkout = "web/src/checkout.ts"
		orders   = "server/src/main/java/com/shop/OrderService.java"
	)
	l := func(file, s string) int { return lineOf(t, file, s) }
	pyTrace := func(frames ...string) string {
		return "Traceback (most recent call last):\n" + strings.Join(frames, "\n") + "\n"
	}
	pyFrame := func(prefix, file, marker, fn string) string {
		return fmt.Sprintf("  File \"%s/%s\", line %d, in %s\n    %s", prefix, file, l(file, marker), fn, strings.TrimSpace(marker))
	}
	goTrace := func(msg, fn, file, marker string) string {
		return fmt.Sprintf("panic: %s\n\ngoroutine 1 [running]:\n%s(...)\n\t/home/dev/shop/%s:%d +0x1d\nmain.main()\n\t/home/dev/shop/main.go:7 +0x25\nexit status 2\n", msg, fn, file, l(file, marker))
	}
	tsTrace := func(msg, fn, file, marker, outer string) string {
		return fmt.Sprintf("%s\n    at %s (/app/%s:%d:11)\n    at %s\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)\n", msg, fn, file, l(file, marker), outer)
	}
	javaTrace := func(msg, fn, marker string) string {
		return fmt.Sprintf("Exception in thread \"main\" %s\n\tat com.shop.OrderService.%s(OrderService.java:%d)\n\tat com.shop.Main.main(Main.java:5)\n", msg, fn, l(orders, marker))
	}
	sel := func(file, from, to string) []ctxd.OpenFile {
		return []ctxd.OpenFile{{Path: file, Selection: &ctxd.LineRange{Start: l(file, from), End: l(file, to)}}}
	}
	cursor := func(file, at string) []ctxd.OpenFile {
		return []ctxd.OpenFile{{Path: file, Line: l(file, at)}}
	}
	return []relevanceCase{
		// A symbol named.
		{"symbol", "rename `Cart.ApplyDiscount` to ApplyCoupon everywhere", nil, cart, "discountMarker := c.Total() * pct / 100"},
		{"symbol", "Invoice.add_line_item should also reject a zero quantity", nil, invoice, `raise ValueError("negative quantity")`},
		{"symbol", "formatPrice prints the sign twice for negative amounts", nil, format, `const sign = price.cents < 0 ? "-" : "";`},
		{"symbol", "OrderService.cancelOrder must not release stock twice", nil, orders, "inventory.release(order.getSku(), order.getQuantity());"},
		{"symbol", "compute_vat needs the Italian rate", nil, tax, `rates = {"DE": 19, "FR": 20, "AT": 20}`},
		// Debug: Python tracebacks (one from an installed copy of the project).
		{"debug-python", pyTrace(pyFrame("/home/dev/shop", "billing/invoice.py", "averageMarker", "total")) + "ZeroDivisionError: division by zero", nil, invoice, "averageMarker"},
		{"debug-python", pyTrace(pyFrame("/home/dev/shop", "billing/invoice.py", "compute_vat(net, self.country)", "total"), pyFrame("/home/dev/shop", "billing/tax.py", "return round_cents(net * rates[country] / 100)", "compute_vat")) + "KeyError: 'IT'", nil, tax, `rates = {"DE": 19, "FR": 20, "AT": 20}`},
		{"debug-python", pyTrace(pyFrame("/usr/lib/python3.12/site-packages", "billing/tax.py", "roundMarker", "round_cents")) + "TypeError: unsupported operand type(s) for +: 'NoneType' and 'float'", nil, tax, "roundMarker"},
		{"debug-python", pyTrace(pyFrame("/home/dev/shop", "billing/invoice.py", `raise ValueError("negative quantity")`, "add_line_item")) + "ValueError: negative quantity", nil, invoice, "self.lines.append((sku, quantity, cents))"},
		// Debug: Go panics.
		{"debug-go", goTrace("runtime error: index out of range [3] with length 3", "example.com/shop/shop.(*Cart).Total", cart, "totalMarker"), nil, cart, "totalMarker"},
		{"debug-go", goTrace("runtime error: integer divide by zero", "example.com/shop/shop.(*Cart).ApplyDiscount", cart, "discountMarker"), nil, cart, "discountMarker"},
		{"debug-go", goTrace("runtime error: invalid memory address or nil pointer dereference", "example.com/shop/shop.ShippingCost", shipping, "heavyParcelMarker"), nil, shipping, "heavyParcelMarker"},
		{"debug-go", "--- FAIL: TestTotal (0.00s)\n    cart_test.go:7: empty cart\n" + goTrace("test failed", "example.com/shop/shop.(*Cart).Total", cart, "return n"), nil, cart, "totalMarker"},
		// Debug: TypeScript stack traces.
		{"debug-ts", tsTrace("TypeError: Cannot read properties of undefined (reading 'cents')", "formatPrice", format, "const sign = price.cents", "renderTotal (/app/web/src/checkout.ts:20:10)"), nil, format, "const abs = Math.abs(price.cents);"},
		{"debug-ts", tsTrace("TypeError: Cannot read properties of undefined (reading 'cents')", "renderTotal", checkout, "renderMarker", "Object.<anonymous> (/app/web/src/main.ts:3:1)"), nil, checkout, "renderMarker"},
		{"debug-ts", tsTrace("RangeError: Invalid array length", "shippingCost", checkout, "perKiloMarker", "Object.<anonymous> (/app/web/src/main.ts:4:1)"), nil, checkout, "return Math.ceil(grams / 1000) * perKilo;"},
		{"debug-ts", " FAIL  web/src/format.test.ts > formatPrice > pads cents\nAssertionError: expected '1.5' to be '1.05'\n ❯ formatPrice web/src/format.ts:" + fmt.Sprint(l(format, "return `${sign}")) + ":10\n", nil, format, "const abs = Math.abs(price.cents);"},
		// Debug: Java stack traces.
		{"debug-java", javaTrace("java.lang.IllegalStateException: order already shipped", "cancelOrder", `throw new IllegalStateException("order already shipped");`), nil, orders, "inventory.release(order.getSku(), order.getQuantity());"},
		{"debug-java", javaTrace("java.lang.NullPointerException: Cannot invoke \"Order.getSku()\"", "shipOrder", "stock.put(order.getSku()"), nil, orders, "shipMarker"},
		{"debug-java", javaTrace("java.lang.NullPointerException", "cancelOrder", "if (order.isShipped())"), nil, orders, "inventory.release(order.getSku(), order.getQuantity());"},
		{"debug-java", javaTrace("java.util.ConcurrentModificationException", "shipOrder", "shipMarker"), nil, orders, "stock.put(order.getSku(), stock.get(order.getSku()) - order.getQuantity());"},
		// Refactor.
		{"refactor", "refactor Cart.Total to use a lineTotal helper method", nil, cart, "totalMarker"},
		{"refactor", "refactor ShippingCost so the heavy parcel threshold is a named constant", nil, shipping, "heavyParcelMarker"},
		{"refactor", "refactor Invoice.total to return a named tuple", nil, invoice, "averageMarker"},
		{"refactor", "refactor shipOrder in OrderService to use computeIfPresent", nil, orders, "shipMarker"},
		// Test.
		{"test", "write unit tests for round_cents", nil, tax, "roundMarker"},
		{"test", "add tests for ApplyDiscount with out of range percentages", nil, cart, "discountMarker"},
		{"test", "write tests for shippingCost with express delivery", nil, checkout, "perKiloMarker"},
		{"test", "add a test that formatPrice pads single-digit cents", nil, format, `padStart(2, "0")`},
		// How does X work.
		{"how", "how does ShippingCost work for heavy parcels?", nil, shipping, "heavyParcelMarker"},
		{"how", "how does compute_vat work?", nil, tax, `rates = {"DE": 19, "FR": 20, "AT": 20}`},
		{"how", "explain how renderTotal formats the total", nil, checkout, "renderMarker"},
		{"how", "how does OrderService.cancelOrder release stock?", nil, orders, "inventory.release(order.getSku(), order.getQuantity());"},
		// Selection and cursor.
		{"selection", "refactor this to be clearer", sel(cart, "func (c *Cart) ApplyDiscount", "return c.Total() - discountMarker"), cart, "discountMarker"},
		{"selection", "simplify the selected code", sel(invoice, "def total(self):", "return net + compute_vat"), invoice, "averageMarker"},
		{"selection", "what does this do?", cursor(checkout, "perKiloMarker"), checkout, "return Math.ceil(grams / 1000) * perKilo;"},
		{"selection", "add error handling here", cursor(orders, "shipMarker"), orders, "stock.put(order.getSku(), stock.get(order.getSku()) - order.getQuantity());"},
		// Plain words that name no code: a large target file is kept to
		// the functions that match the words best (FocusLines), so the
		// body shows instead of a head-and-tail cut or an outline.
		{"words", "heavy parcels cost too much to ship", nil, shipping, "heavyParcelMarker"},
		{"words", "the invoice average is wrong when there are no lines", nil, invoice, "averageMarker"},
		{"words", "the discount percentage is taken off the wrong subtotal", nil, cart, "discountMarker"},
		{"words", "stock is released twice when an order is cancelled", nil, orders, "inventory.release(order.getSku(), order.getQuantity());"},
		{"words", "the price sign shows twice for amounts below zero", nil, format, `const sign = price.cents < 0 ? "-" : "";`},
		// A source file's own tests repeat the words of the code they test:
		// the code's body shows, not the test's (Rust's mod tests).
		{"words", "why does the search quit on a binary file with a NUL byte", nil, "search/src/binary.rs", "binaryMarker"},
	}
}

func TestRelevanceRequests(t *testing.T) {
	dir := testutil.GitRepo(t, requestsRepo)
	e := newEngine(t, dir)
	cases := relevanceCases(t)
	classes := map[string]int{}
	for _, c := range cases {
		classes[c.class]++
	}
	for _, class := range []string{"symbol", "debug-python", "debug-go", "debug-ts", "debug-java", "refactor", "test", "how", "selection", "words"} {
		if classes[class] < 4 {
			t.Errorf("class %s has %d requests, want at least 4", class, classes[class])
		}
	}
	for i, tc := range cases {
		name := fmt.Sprintf("%02d-%s", i, tc.class)
		t.Run(name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tc.request, OpenFiles: tc.open}, tc.target)
			if !strings.Contains(got.Content, tc.marker) {
				t.Errorf("target %s at view %q hides the body line %q (task %s); included %v", tc.target, got.Truncation, tc.marker, env.TaskType, order)
			}
			for _, o := range tc.open {
				want := fmt.Sprintf("Cursor: line %d", o.Line)
				if o.Selection != nil {
					want = fmt.Sprintf("Selection: lines %d-%d", o.Selection.Start, o.Selection.End)
				}
				if !strings.Contains(env.Prompt, want) {
					t.Errorf("the prompt does not say %q", want)
				}
			}
			if len(got.ScoreBreakdown) == 0 {
				t.Errorf("target has no score breakdown")
			}
			var shares float64
			for _, term := range got.ScoreBreakdown {
				shares += math.Abs(term.Share)
			}
			if math.Abs(shares-1) > 0.01 {
				t.Errorf("target's shares add up to %.3f: %+v", shares, got.ScoreBreakdown)
			}
			for _, s := range env.Context.Skipped {
				if s.Source != "" && len(s.ScoreBreakdown) == 0 && s.Score != 0 {
					t.Errorf("skipped %s without its breakdown", s.Source)
				}
			}
		})
	}
}

// targetChunk checks that the context is within its budget and returns the
// chunk of target (nil when it was left out) and every included chunk as
// "source(view,tokens,score)" for failure messages.
// promptTarget builds req at a total budget of 8,000 and returns the
// envelope and its chunk of target, failing the test when it is absent.
func promptTarget(t *testing.T, e *Engine, req PromptRequest, target string) (*ctxd.Envelope, *ctxd.Chunk, []string) {
	t.Helper()
	req.TokenBudget = &BudgetRequest{Total: 8000}
	env, err := e.BuildPrompt(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, order := targetChunk(t, &env.Context, target)
	if got == nil {
		t.Fatalf("target %s not in the envelope (task %s); included %v", target, env.TaskType, order)
	}
	return env, got, order
}

func targetChunk(t *testing.T, cc *ctxd.CompressedContext, target string) (*ctxd.Chunk, []string) {
	t.Helper()
	if cc.TokensUsed > cc.Budget {
		t.Errorf("over budget: %d of %d", cc.TokensUsed, cc.Budget)
	}
	var got *ctxd.Chunk
	var order []string
	for i := range cc.Chunks {
		c := &cc.Chunks[i]
		order = append(order, fmt.Sprintf("%s(%s,%d,%.0f)", c.Source, c.Truncation, c.Tokens, c.Score))
		if c.Source == target {
			got = c
		}
	}
	return got, order
}
