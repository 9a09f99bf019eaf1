package treesitter

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestSignaturesKeepMatchingDoc: the signatures view cuts a doc comment
// to its first sentence, but not one holding a line the request matches
// (MatchLines) or points at (KeepLines): that line is shown verbatim,
// outside every elided range, and the other doc comments are still cut.
// Without the line the same view hides it (the test can fail). gin's
// "NoMethod sets the handlers called when... TODO." and express's
// res.location examples were such lines, changed by their commits and
// hidden by the signatures view the fitter bought (BENCHMARKS.md "hview").
func TestSignaturesKeepMatchingDoc(t *testing.T) {
	cases := []struct {
		lang, src, marker, other string
	}{
		{"go", `package p

// Serve starts the server.
// It listens on addr and blocks.
// The trustedMarker proxies are checked here.
// It returns when the listener closes.
func Serve(addr string) error {
	return nil
}

// Stop stops the server.
// It waits for the open requests first.
// Then it closes the listener.
func Stop() error {
	return nil
}
`, "trustedMarker", "It waits for the open requests first."},
		{"javascript", `'use strict';

/**
 * Set the location header to url.
 *
 * Examples:
 *
 *    res.location('../login'); // locationMarker
 *
 * @param {String} url
 */
res.location = function location(url) {
  return this.set('Location', url);
};

/**
 * Send a response.
 *
 * Examples:
 *
 *    res.send('hello');
 */
res.send = function send(body) {
  return this.end(body);
};
`, "locationMarker", "res.send('hello');"},
		{"python", `def str_query_param(value):
    """
    Coerce a primitive into a string.

    Note that we prefer pythonMarker JSON-style values here.
    And more words follow.
    """
    if value is True:
        return "true"
    return str(value)


def other(value):
    """
    Another function.

    Its doc says more than one sentence.
    And more words follow.
    """
    return value
`, "pythonMarker", "Its doc says more than one sentence."},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			lines := strings.Split(c.src, "\n")
			at := func(s string) int {
				return slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, s) }) + 1
			}
			n, m := at(c.marker), at(c.other)
			view := func(o Options) View {
				v, err := Render(context.Background(), c.lang, []byte(c.src), Signatures, o)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			shown := func(v View, l int) bool {
				return !slices.ContainsFunc(v.Elided, func(r ctxd.LineRange) bool { return r.Start <= l && l <= r.End }) &&
					strings.Contains(v.Text, strings.TrimSpace(lines[l-1]))
			}
			if v := view(Options{}); shown(v, n) || shown(v, m) {
				t.Fatalf("lines %d and %d: one shown without a match (elided %v): the check cannot fail\n%s", n, m, v.Elided, v.Text)
			}
			for _, o := range []Options{{MatchLines: []int{n}}, {KeepLines: []int{n}}} {
				v := view(o)
				if !shown(v, n) {
					t.Errorf("%+v: line %d %q hidden (elided %v):\n%s", o, n, strings.TrimSpace(lines[n-1]), v.Elided, v.Text)
				}
				if shown(v, m) {
					t.Errorf("%+v: line %d of a doc the request does not match shown:\n%s", o, m, v.Text)
				}
			}
		})
	}
}
