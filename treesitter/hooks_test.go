//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"strings"
	"testing"
)

// hookLines are the outline lines pluginSource's hooks have, at their
// depth (a hook object's functions one deeper), by hook name.
func hookLines(at map[string]int) map[string]string {
	return map[string]string{
		"buildStart": fmt.Sprintf("  %d: buildStart()\n", at["buildStart"]),
		"resolveId":  fmt.Sprintf("  %d: resolveId: async (id) =>\n", at["resolveId"]),
		"load":       fmt.Sprintf("  %d: load: function (id)\n", at["load"]),
		"transform":  fmt.Sprintf("  %d: transform: {\n", at["transform"]),
		"handler":    fmt.Sprintf("    %d: async handler(code, id)\n", at["handler"]),
		"lookup":     fmt.Sprintf("  %d: lookup(name)\n", at["lookup"]),
	}
}

// withSetup is pluginSource's source followed by module-level calls
// (shown by the bodies and signatures views, not by the outline, which
// is never larger than the signatures view).
func withSetup(src string) string {
	var b strings.Builder
	b.WriteString(src)
	b.WriteString("\n")
	for i := range 30 {
		fmt.Fprintf(&b, "register('setup-step-%d', { order: %d, enabled: true });\n", i, i)
	}
	return b.String()
}

// TestOutlineListsHooks: the outline view lists the functions an object
// literal holds (a plugin factory's hooks: a method, an arrow and a
// function expression as property values, a nested hook object and its
// handler; a module-level object's method) under the definition around
// them, at their depth, after its line; a property holding no function
// is not listed. They stay out of the symbols (the symbol index, the
// focus candidates: hnoview), and every other view is as before.
func TestOutlineListsHooks(t *testing.T) {
	for _, body := range []int{12, 40} {
		src, at := pluginSource(body)
		src = withSetup(src)
		want := hookLines(at)
		for _, lang := range []string{"javascript", "typescript"} {
			t.Run(fmt.Sprintf("%s/%d", lang, body), func(t *testing.T) {
				vs, err := Views(t.Context(), lang, []byte(src), Options{})
				if err != nil {
					t.Fatal(err)
				}
				out, ok := viewAt(vs, Outline)
				if !ok {
					t.Fatalf("no outline view in %v", vs)
				}
				for name, line := range want {
					if !strings.Contains(out.Text, line) {
						t.Errorf("the outline does not list %s as %q:\n%s", name, line, out.Text)
					}
				}
				for _, data := range []string{"name", "version", "filter", "seen"} {
					if strings.Contains(out.Text, ": "+data) {
						t.Errorf("the outline lists %s, which holds no function:\n%s", data, out.Text)
					}
				}
				// In line order: the factory, its hooks, the registry, its hook.
				order := []string{"1: function assetPlugin(config)\n", want["buildStart"], want["resolveId"], want["load"], want["transform"], want["handler"], ": const registry = {\n", want["lookup"]}
				rest := out.Text
				for _, o := range order {
					i := strings.Index(rest, o)
					if i < 0 {
						t.Fatalf("%q not in order in the outline:\n%s", o, out.Text)
					}
					rest = rest[i+len(o):]
				}
				fs, err := Symbols(t.Context(), lang, []byte(src))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range fs.Symbols {
					if _, ok := want[s.Name]; ok {
						t.Errorf("a hook is a symbol: %+v", s)
					}
				}
				if len(fs.Hooks) != len(want) {
					t.Errorf("hooks %+v, want %d", fs.Hooks, len(want))
				}
				if o := fs.Outline(); len(o) != len(fs.Symbols)+len(fs.Hooks) || o[1].Name != "buildStart" {
					t.Errorf("Outline() %+v, want the symbols and hooks in line order", o)
				}
				for _, v := range vs {
					if v.Level != Outline && v.Level != Full && strings.Contains(v.Text, fmt.Sprintf("%d: buildStart", at["buildStart"])) {
						t.Errorf("the %s view holds an outline line:\n%s", v.Level, v.Text)
					}
				}
			})
		}
	}
}

// TestFocusViewListsHooks: the focus view (the outline with the focused
// definitions whole) lists the hooks of a factory that is not focused,
// in place; the focus-only view (what the focused code needs) does not.
// A hook inside the focused span is shown in it, not listed again.
func TestFocusViewListsHooks(t *testing.T) {
	src, at := pluginSource(40)
	src = withSetup(src) + "\nexport function other(x) {\n  return x + 1;\n}\n"
	want := hookLines(at)
	t.Run("factory not focused", func(t *testing.T) {
		vs, err := FocusViews(t.Context(), "typescript", []byte(src), Options{KeepFuncs: []string{"other"}})
		if err != nil {
			t.Fatal(err)
		}
		f, ok := viewAt(vs, Focus)
		if !ok {
			t.Fatalf("no focus view: %v", vs)
		}
		if !strings.Contains(f.Text, "return x + 1;") {
			t.Fatalf("other is not whole:\n%s", f.Text)
		}
		for name, line := range want {
			if !strings.Contains(f.Text, line) {
				t.Errorf("the focus view does not list %s as %q:\n%s", name, line, f.Text)
			}
		}
		if o, ok := viewAt(vs, FocusOnly); ok && strings.Contains(o.Text, "buildStart") {
			t.Errorf("the focus-only view lists a hook:\n%s", o.Text)
		}
	})
	t.Run("factory focused", func(t *testing.T) {
		vs, err := FocusViews(t.Context(), "typescript", []byte(src), Options{KeepLines: []int{at["lookup"] + 1}})
		if err != nil {
			t.Fatal(err)
		}
		f, ok := viewAt(vs, Focus)
		if !ok {
			t.Fatalf("no focus view: %v", vs)
		}
		if !strings.Contains(f.Text, "return table[name];") {
			t.Fatalf("the registry is not whole:\n%s", f.Text)
		}
		if strings.Contains(f.Text, want["lookup"]) {
			t.Errorf("a hook inside the focused span is listed again:\n%s", f.Text)
		}
		if !strings.Contains(f.Text, want["handler"]) {
			t.Errorf("the factory's hooks are not listed:\n%s", f.Text)
		}
	})
}
