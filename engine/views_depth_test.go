package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// depthRepo is a repository whose code the views must see into: a
// JavaScript renderer built from a thousand-line function of inner
// functions and closures, a Python application factory with nested defs
// and a class declared inside it, a Go router whose parser is one large
// function of closures, a Python module whose outline alone is larger
// than the budget, and a function used from several files.
func depthRepo() map[string]string {
	var js strings.Builder
	js.WriteString("'use strict';\n\n/**\n * createRenderer builds the renderer from host operations.\n */\nfunction createRenderer(options) {\n  const { insert, remove, createText } = options;\n\n")
	for i := range 60 {
		switch i {
		case 21:
			js.WriteString("  function mountChildren(children, container, anchor) {\n    for (let i = 0; i < children.length; i++) {\n      const child = children[i];\n      if (typeof child === 'string') {\n        continue; // mountChildrenMarker: text children are skipped\n      }\n      insert(child, container, anchor);\n    }\n  }\n\n")
		case 37:
			js.WriteString("  const patchKeyedChildren = (c1, c2, container) => {\n    const keyToIndex = new Map();\n    for (let i = 0; i < c2.length; i++) {\n      keyToIndex.set(c2[i].key, i); // patchKeyedMarker\n    }\n    for (const old of c1) {\n      if (!keyToIndex.has(old.key)) remove(old);\n    }\n  };\n\n")
		case 48:
			js.WriteString("  options.hydrateNode = function (node, vnode) {\n    const text = node.textContent;\n    if (text !== vnode.children) {\n      node.textContent = vnode.children; // hydrateMarker\n    }\n    return node.nextSibling;\n  };\n\n")
		}
		fmt.Fprintf(&js, "  function processStep%d(n1, n2, container) {\n    const el = n1 ? n1.el : createText('%d');\n    if (n2.type === %d) {\n      insert(el, container, null);\n    } else {\n      remove(el, %d);\n    }\n    return el;\n  }\n\n", i, i, i, i)
	}
	js.WriteString("  return { mountChildren, patchKeyedChildren };\n}\n\nmodule.exports = { createRenderer };\n")

	var py strings.Builder
	py.WriteString("\"\"\"Application factory.\"\"\"\n\nimport json\n\n\ndef make_app(config):\n    \"\"\"Build the application from a config.\"\"\"\n    routes = []\n\n")
	for i := range 150 {
		switch i {
		case 72:
			py.WriteString("    def validate_body(request):\n        payload = json.loads(request.body)\n        if not isinstance(payload, dict):\n            raise ValueError('body must be an object')  # validateBodyMarker\n        return payload\n\n")
		case 120:
			py.WriteString("    class Mounted:\n        def __init__(self, prefix):\n            self.prefix = prefix\n\n        def url_for(self, name):\n            return self.prefix.rstrip('/') + '/' + name  # urlForMarker\n\n")
		}
		fmt.Fprintf(&py, "    def handler_%d(request):\n        request.count = %d\n        if request.count > %d:\n            return None\n        return request\n\n", i, i, i*3)
	}
	py.WriteString("    return routes\n")

	var goSrc strings.Builder
	goSrc.WriteString("package router\n\nimport \"strings\"\n\n// parsePath splits a route pattern into its segments and parameters.\nfunc parsePath(pattern string) []string {\n\tvar out []string\n")
	for i := range 150 {
		if i == 97 {
			goSrc.WriteString("\tsplitParam := func(seg string) (string, string) {\n\t\tname, rest, _ := strings.Cut(seg, \".\")\n\t\treturn name, rest // splitParamMarker: dots end a parameter\n\t}\n")
		}
		fmt.Fprintf(&goSrc, "\tstep%d := func(s string) string {\n\t\tif strings.HasPrefix(s, \"%d\") {\n\t\t\treturn s[%d:]\n\t\t}\n\t\treturn s\n\t}\n\tout = append(out, step%d(pattern))\n", i, i, i%3+1, i)
	}
	goSrc.WriteString("\treturn out\n}\n")

	var routing strings.Builder
	routing.WriteString("\"\"\"Routing.\"\"\"\n\n\nclass APIRouter:\n    \"\"\"A router.\"\"\"\n\n")
	for i := range 400 {
		if i == 211 {
			routing.WriteString("    def include_router(self, router, prefix='', tags=None):\n        for route in router.routes:\n            self.routes.append((prefix + route[0], route[1]))  # includeRouterMarker\n\n")
		}
		fmt.Fprintf(&routing, "    def add_route_variant_%d(self, path, endpoint, methods=None, name=None, include_in_schema=True):\n        self.routes.append((path, endpoint, %d))\n\n", i, i)
	}

	return map[string]string{
		"renderer/renderer.js": js.String(),
		"app/factory.py":       py.String(),
		"router/path.go":       goSrc.String(),
		"app/routing.py":       routing.String(),
		"go.mod":               "module example.com/r\n\ngo 1.26\n",
		"billing/totals.py":    "\"\"\"Totals.\"\"\"\n" + filler("python", 8) + "\n\ndef compute_total(lines):\n    return sum(q * c for q, c in lines)\n" + strings.ReplaceAll(filler("python", 8), "_helper", "_mixer"),
		"billing/invoice.py":   "\"\"\"Invoices.\"\"\"\n\nfrom billing.totals import compute_total\n" + filler("python", 50) + "\n\ndef invoice_amount(invoice):\n    if invoice is None:\n        return 0\n    amount = compute_total(invoice.lines)  # invoiceUseMarker\n    if amount < 0:\n        raise ValueError('negative')\n    return amount\n" + strings.ReplaceAll(filler("python", 50), "_helper", "_mixer"),
		"billing/report.py":    "\"\"\"Reports.\"\"\"\n\nfrom billing.totals import compute_total\n" + filler("python", 50) + "\n\ndef monthly_report(invoices):\n    out = []\n    for inv in invoices:\n        out.append(compute_total(inv.lines))  # reportUseMarker\n    return out\n" + strings.ReplaceAll(filler("python", 50), "_helper", "_mixer"),
		"README.md":            "# r\n\nA renderer, an app factory, a router and billing.\n",
	}
}

// markerLine returns the 1-based line of the first line of content holding
// marker, 0 when none does.
func markerLine(content, marker string) int {
	for i, l := range strings.Split(content, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	return 0
}

// visibleLine reports whether line n of src (1-based) is shown verbatim
// in chunk c: outside every elided range and in its content.
func visibleLine(c *ctxd.Chunk, src string, n int) bool {
	if n < 1 || slices.ContainsFunc(c.Elided, func(r ctxd.LineRange) bool { return r.Start <= n && n <= r.End }) {
		return false
	}
	return strings.Contains(c.Content, strings.TrimSpace(strings.Split(src, "\n")[n-1]))
}

// TestViewsAtDepth: hand-written requests of the failure classes of
// issue 25 (an inner function named, the cursor inside an inner function,
// an outline that hid the line asked about, the uses of a name), each
// checked at 8k tokens against the envelope: the function's body, the
// outline line or the use is visible verbatim, outside any elided range,
// and the context is within its budget.
func TestViewsAtDepth(t *testing.T) {
	files := depthRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	open := func(path, marker string) []ctxd.OpenFile {
		return []ctxd.OpenFile{{Path: path, Line: markerLine(files[path], marker)}}
	}
	type want struct{ file, marker string }
	tests := []struct {
		name    string
		request string
		open    []ctxd.OpenFile
		want    []want
		outline bool // the marker's line is an outline line ("12: def name(...)")
	}{
		{name: "inner function named", request: "fix mountChildren in the renderer: text children are skipped", want: []want{{"renderer/renderer.js", "mountChildrenMarker"}}},
		{name: "closure assigned to a const named", request: "patchKeyedChildren loses the keys of moved nodes", want: []want{{"renderer/renderer.js", "patchKeyedMarker"}}},
		{name: "function assigned to a property named", request: "hydrateNode overwrites the text of matching nodes", want: []want{{"renderer/renderer.js", "hydrateMarker"}}},
		{name: "cursor in an inner function", request: "why is this wrong?", open: open("renderer/renderer.js", "mountChildrenMarker"), want: []want{{"renderer/renderer.js", "mountChildrenMarker"}}},
		{name: "cursor in a closure", request: "explain this", open: open("renderer/renderer.js", "patchKeyedMarker"), want: []want{{"renderer/renderer.js", "patchKeyedMarker"}}},
		{name: "python nested def named", request: "validate_body should accept a JSON list too", want: []want{{"app/factory.py", "validateBodyMarker"}}},
		{name: "cursor in a method of a class inside a function", request: "this drops the trailing slash", open: open("app/factory.py", "urlForMarker"), want: []want{{"app/factory.py", "urlForMarker"}}},
		{name: "go closure named", request: "fix splitParam: path parameters with dots are not matched", want: []want{{"router/path.go", "splitParamMarker"}}},
		{name: "cursor in a go closure", request: "what does this return for a dotted segment?", open: open("router/path.go", "splitParamMarker"), want: []want{{"router/path.go", "splitParamMarker"}}},
		{name: "outline keeps the named method", request: "how does include_router merge prefixes of APIRouter?", want: []want{{"app/routing.py", "def include_router("}}, outline: true},
		{name: "where is it used", request: "where is compute_total used?", want: []want{{"billing/invoice.py", "invoiceUseMarker"}, {"billing/report.py", "reportUseMarker"}}},
		{name: "callers", request: "find all callers of compute_total", want: []want{{"billing/invoice.py", "invoiceUseMarker"}, {"billing/report.py", "reportUseMarker"}}},
		{name: "rename", request: "rename compute_total to total_cents", want: []want{{"billing/invoice.py", "invoiceUseMarker"}, {"billing/report.py", "reportUseMarker"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range tt.want {
				env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request, OpenFiles: tt.open}, w.file)
				src := files[w.file]
				n := markerLine(src, w.marker)
				if n == 0 {
					t.Fatalf("no %q in %s", w.marker, w.file)
				}
				if tt.outline {
					sig := strings.TrimSuffix(strings.TrimSpace(strings.Split(src, "\n")[n-1]), ":")
					if !strings.Contains(got.Content, fmt.Sprintf("%d: %s", n, sig)) && !visibleLine(got, src, n) {
						t.Errorf("%s at %q (%d tokens) hides line %d %q (task %s); included %v\n%s", w.file, got.Truncation, got.Tokens, n, sig, env.TaskType, order, got.Content)
					}
					continue
				}
				if !visibleLine(got, src, n) {
					t.Errorf("%s at %q (%d tokens) hides line %d (%s; task %s, elided %v); included %v", w.file, got.Truncation, got.Tokens, n, w.marker, env.TaskType, got.Elided, order)
				}
			}
		})
	}
}
