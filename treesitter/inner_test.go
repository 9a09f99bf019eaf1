//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// innerSource builds a file whose one large function defines n inner
// functions with the language's syntax, each body lines long, and returns
// it with the 1-based line of each inner function's first body line.
func innerSource(lang string, n, body int) (string, []int) {
	var b strings.Builder
	line := 1
	w := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
		line++
	}
	var at []int
	switch lang {
	case "javascript", "typescript":
		w("'use strict';")
		w("function createRenderer(options) {")
		w("  const { insert, remove } = options;")
		for i := range n {
			switch i % 3 {
			case 0:
				w("  const patch%d = (n1, n2) => {", i)
			case 1:
				w("  function mount%d(vnode) {", i)
			default:
				w("  options.hook%d = function (vnode) {", i)
			}
			at = append(at, line)
			for j := range body {
				w("    insert(n%d_%d, remove(%d));", i, j, j)
			}
			w("  };")
		}
		w("  return { patch0 };")
		w("}")
		w("module.exports = { createRenderer };")
	case "python":
		w("import os")
		w("")
		w("def make_app(config):")
		w("    routes = []")
		for i := range n {
			if i%2 == 0 {
				w("    def handler%d(request):", i)
				at = append(at, line)
				for j := range body {
					w("        request.count += %d + %d", i, j)
				}
			} else {
				w("    class Router%d:", i)
				w("        def include_router%d(self, router, prefix=''):", i)
				at = append(at, line)
				for j := range body {
					w("            routes.append((prefix, %d, %d))", i, j)
				}
			}
			w("")
		}
		w("    return routes")
	case "go":
		w("package render")
		w("")
		w("import \"fmt\"")
		w("")
		w("func Render(items []string) string {")
		w("\tvar out string")
		for i := range n {
			if i%2 == 0 {
				w("\tformat%d := func(s string) string {", i)
			} else {
				w("\tvar walk%d = func(s string) string {", i)
			}
			at = append(at, line)
			for j := range body {
				w("\t\ts = fmt.Sprint(s, %d, %d)", i, j)
			}
			w("\t\treturn s")
			w("\t}")
		}
		w("\treturn out")
		w("}")
	}
	return b.String(), at
}

// innerName is the name of inner definition i of innerSource(lang).
func innerName(lang string, i int) string {
	switch lang {
	case "javascript", "typescript":
		return [...]string{"patch", "mount", "hook"}[i%3] + fmt.Sprint(i)
	case "python":
		if i%2 == 0 {
			return fmt.Sprint("handler", i)
		}
		return fmt.Sprint("include_router", i)
	}
	if i%2 == 0 {
		return fmt.Sprint("format", i)
	}
	return fmt.Sprint("walk", i)
}

// TestInnerDefinitions: definitions inside a large function are symbols
// under it, and a cursor inside one, or its name, keeps that inner
// function whole at every level that focuses (Bodies, Signatures, Focus)
// while its siblings stay collapsed, in views that parse.
func TestInnerDefinitions(t *testing.T) {
	for _, lang := range []string{"javascript", "typescript", "python", "go"} {
		t.Run(lang, func(t *testing.T) {
			src, at := innerSource(lang, 12, 8)
			ctx := slowCtx()
			fs, err := Symbols(ctx, lang, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			for i := range at {
				name := innerName(lang, i)
				found := false
				for _, s := range fs.Symbols {
					if s.Name == name {
						found = true
						if !s.Inner || s.Depth < 1 || s.Start != at[i]-1 {
							t.Errorf("%s: got %+v, want an inner symbol at depth >= 1 from line %d", name, s, at[i]-1)
						}
					}
				}
				if !found {
					t.Errorf("no symbol %s in %+v", name, fs.Symbols)
				}
			}
			lines := strings.SplitAfter(src, "\n")
			bodyOf := func(i int) string { return strings.Join(lines[at[i]-1:at[i]+7], "") }
			target, sibling := 7, 4
			for _, tt := range []struct {
				name string
				opts Options
			}{
				{"cursor", Options{KeepLines: []int{at[target] + 3}}},
				{"named", Options{KeepFuncs: []string{innerName(lang, target)}}},
			} {
				t.Run(tt.name, func(t *testing.T) {
					vs, err := Views(ctx, lang, []byte(src), tt.opts)
					if err != nil {
						t.Fatal(err)
					}
					fvs, err := FocusViews(ctx, lang, []byte(src), tt.opts)
					if err != nil {
						t.Fatal(err)
					}
					levels := map[Level]View{}
					for _, v := range append(vs, fvs...) {
						levels[v.Level] = v
					}
					for _, l := range []Level{Bodies, Signatures, Focus, FocusOnly} {
						v, ok := levels[l]
						if !ok {
							t.Errorf("no %s view", l)
							continue
						}
						if !strings.Contains(v.Text, bodyOf(target)) {
							t.Errorf("%s view lacks the body of %s:\n%s", l, innerName(lang, target), v.Text)
						}
						if strings.Contains(v.Text, bodyOf(sibling)) {
							t.Errorf("%s view shows the body of the sibling %s", l, innerName(lang, sibling))
						}
						for _, r := range v.Elided {
							if r.Start <= at[target]+3 && at[target]+3 <= r.End {
								t.Errorf("%s view elides line %d of the kept function: %v", l, at[target]+3, v.Elided)
							}
						}
					}
				})
			}
		})
	}
}

// TestInnerSmallStaysWhole: a kept function under largeBody lines shows
// its closures whole (only a large function is outlined), and inner
// definitions of a small function are not symbols.
func TestInnerSmallStaysWhole(t *testing.T) {
	src, at := innerSource("go", 3, 4) // a body of about 25 lines
	vs, err := Views(slowCtx(), "go", []byte(src), Options{KeepLines: []int{at[0]}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Level == Bodies && !strings.Contains(v.Text, "return out") || strings.Contains(v.Text, "/* ...") && v.Level == Bodies {
			t.Errorf("bodies view of a small kept function is not whole:\n%s", v.Text)
		}
	}
	fs, err := Symbols(slowCtx(), "go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range fs.Symbols {
		if s.Inner {
			t.Errorf("inner symbol %+v in a function under %d lines", s, innerMinLines)
		}
	}
}

// TestInnerOutlineCheap: the outline is never larger than the signatures
// view (it drops the inner definitions when they would make it so).
func TestInnerOutlineCheap(t *testing.T) {
	for _, n := range []int{3, 40} {
		src, _ := innerSource("javascript", n, 8)
		vs, err := Views(slowCtx(), "javascript", []byte(src), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var sig, out View
		for _, v := range vs {
			switch v.Level {
			case Signatures:
				sig = v
			case Outline:
				out = v
			}
		}
		if len(out.Text) > len(sig.Text) {
			t.Errorf("n=%d: outline (%d bytes) larger than signatures (%d)", n, len(out.Text), len(sig.Text))
		}
	}
}

// TestFocusInnerOfSmallFunction: a kept line or a kept name at an inner
// function of a function under largeBody lines focuses that function, its
// own lines included (fastapi's setup: the focus views showed its inner
// openapi alone, without the lines of setup around it); in a function of
// largeBody lines or more the inner function is focused alone.
func TestFocusInnerOfSmallFunction(t *testing.T) {
	small := "class App:\n    def setup(self):\n        urls = [s.get('url') for s in self.servers]  # ownLineMarker\n        server_urls = {u for u in urls if u}\n\n        async def openapi(req):\n            root_path = req.scope.get('root_path', '')\n            if root_path not in server_urls:\n                server_urls.add(root_path)\n            return self.openapi_schema()\n\n"
	for i := range 6 {
		small += fmt.Sprintf("        async def page_%d(req):\n            value = req.scope.get('v%d')\n            return self.render(value, %d)\n\n", i, i, i)
	}
	small += "        return server_urls\n\n    def other(self):\n        return 1\n"
	large := strings.Replace(small, "        return server_urls\n", strings.Repeat("        self.count += 1\n", 60)+"        return server_urls\n", 1)
	inner := func(src string) int {
		for i, l := range strings.Split(src, "\n") {
			if strings.Contains(l, "async def openapi") {
				return i + 1
			}
		}
		return 0
	}
	tests := []struct {
		name     string
		src      string
		opts     Options
		wantOwn  bool // setup's own line is shown
		wantBody bool // openapi's body is shown
	}{
		{"line in inner of small", small, Options{KeepLines: []int{inner(small) + 2}}, true, true},
		{"name of inner of small", small, Options{KeepFuncs: []string{"openapi"}}, true, true},
		{"line in inner of large", large, Options{KeepLines: []int{inner(large) + 2}}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := Symbols(slowCtx(), "python", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(fs.Symbols, func(s Symbol) bool { return s.Name == "openapi" && s.Inner }) {
				t.Fatalf("openapi is not an inner symbol: %+v", fs.Symbols)
			}
			vs, err := FocusViews(slowCtx(), "python", []byte(tt.src), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			// FocusOnly, or Focus standing in when it is no smaller.
			slices.SortFunc(vs, func(a, b View) int { return len(a.Text) - len(b.Text) })
			for _, v := range vs {
				if v.Level != FocusOnly && v.Level != Focus {
					continue
				}
				if got := strings.Contains(v.Text, "ownLineMarker"); got != tt.wantOwn {
					t.Errorf("setup's own line shown: %v, want %v\n%s", got, tt.wantOwn, v.Text)
				}
				if got := strings.Contains(v.Text, "server_urls.add(root_path)"); got != tt.wantBody {
					t.Errorf("openapi's body shown: %v, want %v\n%s", got, tt.wantBody, v.Text)
				}
				return
			}
			t.Fatal("no focus view")
		})
	}
}

// TestDefsAtAnyDepthCached: DefsAtAnyDepth parses a content once; asked
// again (find_symbol of another name, the next request) it returns the
// same definitions from its cache, a copy the caller may change.
func TestDefsAtAnyDepthCached(t *testing.T) {
	src := []byte("def outer():\n    def wrapped():\n        return 1\n    return wrapped\n\n\ndef other():\n    pass\n")
	first, err := DefsAtAnyDepth(t.Context(), "python", src)
	if err != nil || len(first) == 0 {
		t.Fatalf("got %v, %v", first, err)
	}
	want := slices.Clone(first)
	first[0].Name = "changed by the caller"
	n := parsesStarted.Load()
	again, err := DefsAtAnyDepth(t.Context(), "python", src)
	if err != nil {
		t.Fatal(err)
	}
	if parsesStarted.Load() != n {
		t.Error("the same content was parsed again")
	}
	if !reflect.DeepEqual(again, want) {
		t.Errorf("cached defs differ:\n got %+v\nwant %+v", again, want)
	}
}
