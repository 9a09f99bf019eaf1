package query

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

var stackTraceTests = []struct {
	name string
	text string
	want []Location
}{
	{
		name: "go panic",
		text: `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]

goroutine 1 [running]:
github.com/acme/shop/internal/cart.(*Cart).Total(0x0)
	/home/dev/shop/internal/cart/cart.go:42 +0x1d
main.main()
	/home/dev/shop/cmd/shop/main.go:17 +0x25
exit status 2`,
		want: []Location{
			{Path: "/home/dev/shop/internal/cart/cart.go", Line: 42, Func: "github.com/acme/shop/internal/cart.(*Cart).Total"},
			{Path: "/home/dev/shop/cmd/shop/main.go", Line: 17, Func: "main.main"},
		},
	},
	{
		name: "go test failure",
		text: "--- FAIL: TestTotal (0.00s)\n    cart_test.go:31: Total() = 3, want 4\nFAIL",
		want: []Location{{Path: "cart_test.go", Line: 31}},
	},
	{
		name: "go compiler",
		text: "# github.com/acme/shop/internal/cart\ninternal/cart/cart.go:12:2: undefined: total",
		want: []Location{{Path: "internal/cart/cart.go", Line: 12, Col: 2}},
	},
	{
		name: "python traceback",
		text: `Traceback (most recent call last):
  File "/srv/app/manage.py", line 22, in <module>
    main()
  File "/srv/app/billing/invoice.py", line 88, in render
    total = sum(line.amount for line in lines)
TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'`,
		want: []Location{
			{Path: "/srv/app/manage.py", Line: 22, Func: "<module>"},
			{Path: "/srv/app/billing/invoice.py", Line: 88, Func: "render"},
		},
	},
	{
		name: "node",
		text: `TypeError: Cannot read properties of undefined (reading 'id')
    at getUser (/app/src/services/user.js:14:23)
    at async Router.handle (/app/src/routes/api.ts:51:9)
    at /app/src/index.js:8:3
    at Module._compile (node:internal/modules/cjs/loader:1256:14)`,
		want: []Location{
			{Path: "/app/src/services/user.js", Line: 14, Col: 23, Func: "getUser"},
			{Path: "/app/src/routes/api.ts", Line: 51, Col: 9, Func: "Router.handle"},
			{Path: "/app/src/index.js", Line: 8, Col: 3},
		},
	},
	{
		name: "java",
		text: `Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()"
	at com.acme.billing.InvoiceService.total(InvoiceService.java:57)
	at com.acme.billing.InvoiceService$Line.amount(InvoiceService.java:120)
	at com.acme.App.main(App.java:9)`,
		want: []Location{
			{Path: "com/acme/billing/InvoiceService.java", Line: 57, Func: "com.acme.billing.InvoiceService.total"},
			{Path: "com/acme/billing/InvoiceService.java", Line: 120, Func: "com.acme.billing.InvoiceService$Line.amount"},
			{Path: "com/acme/App.java", Line: 9, Func: "com.acme.App.main"},
		},
	},
	{
		name: "kotlin",
		text: "\tat com.acme.Parser.parse(Parser.kt:33)",
		want: []Location{{Path: "com/acme/Parser.kt", Line: 33, Func: "com.acme.Parser.parse"}},
	},
	{
		name: "rust panic",
		text: "thread 'main' panicked at src/parser.rs:118:17:\ncalled `Option::unwrap()` on a `None` value\nnote: run with `RUST_BACKTRACE=1`",
		want: []Location{{Path: "src/parser.rs", Line: 118, Col: 17}},
	},
	{
		name: "rust compiler",
		text: "error[E0308]: mismatched types\n  --> src/lib.rs:4:5\n   |\n4  |     \"x\"\n",
		want: []Location{{Path: "src/lib.rs", Line: 4, Col: 5}},
	},
	{
		name: "rust backtrace",
		text: "   3: mycrate::tokenize\n             at ./src/lexer.rs:27:9",
		want: []Location{{Path: "src/lexer.rs", Line: 27, Col: 9}},
	},
	{
		name: "ruby",
		text: "app/models/order.rb:12:in `total': undefined method `+' for nil (NoMethodError)\n\tfrom app/controllers/orders_controller.rb:8:in `show'",
		want: []Location{
			{Path: "app/models/order.rb", Line: 12, Func: "total"},
			{Path: "app/controllers/orders_controller.rb", Line: 8, Func: "show"},
		},
	},
	{
		name: "generic file:line:col",
		text: "src/components/Header.tsx:10:5 - error TS2322: Type 'string' is not assignable\nlib/util.c:7: warning: unused variable",
		want: []Location{
			{Path: "src/components/Header.tsx", Line: 10, Col: 5},
			{Path: "lib/util.c", Line: 7},
		},
	},
	{
		name: "error text with line",
		text: `the failure is in config_loader.py, line 40 when the file is empty`,
		want: []Location{{Path: "config_loader.py", Line: 40}},
	},
	{
		name: "urls and times are not files",
		text: "see https://example.com/docs/x.html:80 at 10:30:00 and version 1.2:3",
		want: nil,
	},
	{
		name: "duplicates once",
		text: "a.go:1:1 a.go:1:1 a.go:2",
		want: []Location{{Path: "a.go", Line: 1, Col: 1}, {Path: "a.go", Line: 2}},
	},
	{
		name: "nothing",
		text: "the checkout total is wrong when the cart is empty",
		want: nil,
	},
}

func TestParseStackTrace(t *testing.T) {
	for _, tt := range stackTraceTests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseStackTrace(tt.text)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseStackTrace (-want +got):\n%s", d)
			}
		})
	}
}

// go test -fuzz=FuzzParseStackTrace ./query
func FuzzParseStackTrace(f *testing.F) {
	for _, tt := range stackTraceTests {
		f.Add(tt.text)
	}
	f.Add("\t:0 +0x")
	f.Add("File \"\", line 99999999999999999999")
	f.Fuzz(func(t *testing.T, text string) {
		locs := ParseStackTrace(text)
		if len(locs) > maxTraceLocations {
			t.Fatalf("%d locations, cap %d", len(locs), maxTraceLocations)
		}
		seen := map[Location]bool{}
		for _, l := range locs {
			if l.Path == "" || l.Line <= 0 || l.Col < 0 {
				t.Fatalf("bad location %+v", l)
			}
			if seen[l] {
				t.Fatalf("duplicate location %+v", l)
			}
			seen[l] = true
		}
		if d := cmp.Diff(locs, ParseStackTrace(text)); d != "" {
			t.Fatalf("not deterministic:\n%s", d)
		}
	})
}
