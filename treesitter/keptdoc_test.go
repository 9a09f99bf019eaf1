package treesitter

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestSignaturesKeptFunctionDoc: a function the signatures view keeps
// whole (KeepFuncs, KeepLines, a match inside it) shows its doc comment
// whole too, a Python docstring inside it and a Go or JSDoc comment above
// it; the doc of a function it collapses is still cut to its first
// sentence. A focus function's docstring was cut while its body was
// shown, so a commit changing both had hidden lines in a "whole"
// function.
func TestSignaturesKeptFunctionDoc(t *testing.T) {
	cases := []struct {
		lang, src, keep, fnLine, keptDoc, cutDoc string
	}{
		{"python", `def str_query_param(value):
    """
    Coerce a primitive into a string.

    Note that we prefer JSON-style values here.
    """
    if value is True:
        return "true"
    return str(value)


def other(value):
    """
    Another function.

    Its doc says more than one sentence.
    """
    return value
`, "str_query_param", "def str_query_param(", "Note that we prefer JSON-style values here.", "Its doc says more than one sentence."},
		{"go", `package p

// Serve starts the server.
// It listens on addr and blocks until the listener closes.
func Serve(addr string) error {
	for i := 0; i < 3; i++ {
		_ = i
	}
	return nil
}

// Stop stops the server.
// It waits for the open requests first.
func Stop() error {
	for i := 0; i < 3; i++ {
		_ = i
	}
	return nil
}
`, "Serve", "func Serve(", "It listens on addr and blocks until the listener closes.", "It waits for the open requests first."},
		{"javascript", `'use strict';

/**
 * Set the location header to url.
 *
 *    res.location('../login');
 */
res.location = function location(url) {
  var loc = url;
  return this.set('Location', loc);
};

/**
 * Send a response.
 *
 *    res.send('hello');
 */
res.send = function send(body) {
  var b = body;
  return this.end(b);
};
`, "location", "function location(", "res.location('../login');", "res.send('hello');"},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			lines := strings.Split(c.src, "\n")
			at := func(s string) int {
				return slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, s) }) + 1
			}
			shown := func(v View, l int) bool {
				return !slices.ContainsFunc(v.Elided, func(r ctxd.LineRange) bool { return r.Start <= l && l <= r.End }) &&
					strings.Contains(v.Text, strings.TrimSpace(lines[l-1]))
			}
			render := func(o Options) View {
				v, err := Render(context.Background(), c.lang, []byte(c.src), Signatures, o)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			kept, cut := at(c.keptDoc), at(c.cutDoc)
			if v := render(Options{}); shown(v, kept) || shown(v, cut) {
				t.Fatalf("with nothing kept a doc line is shown: the check cannot fail\n%s", v.Text)
			}
			fn := at(c.fnLine)
			for _, o := range []Options{{KeepFuncs: []string{c.keep}}, {KeepLines: []int{fn}}} {
				v := render(o)
				if !shown(v, kept) {
					t.Errorf("%+v: the kept function's doc line %d %q hidden (elided %v):\n%s", o, kept, strings.TrimSpace(lines[kept-1]), v.Elided, v.Text)
				}
				if shown(v, cut) {
					t.Errorf("%+v: the collapsed function's doc line %d shown:\n%s", o, cut, v.Text)
				}
			}
		})
	}
}
