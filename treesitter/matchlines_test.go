package treesitter

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// matchSources are a Python and a Go file whose matching line (its
// marker's) sits in the body of a function the request does not name: a
// bodies view collapses it.
func matchSources() map[string]string {
	py, golang := testutil.ChoiceSources(8, 8)
	return map[string]string{"python": py, "go": golang}
}

var matchMarkers = map[string]string{"python": "pyMarker", "go": "goMarker"}

// TestMatchLinesNeverElided: at every level but the outline (one line
// per definition, no source line), a MatchLines line is shown verbatim
// and outside every elided range; without it the same level hides it
// (the test can fail).
func TestMatchLinesNeverElided(t *testing.T) {
	for lang, src := range matchSources() {
		lines := strings.Split(src, "\n")
		n := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, matchMarkers[lang]) }) + 1
		text := strings.TrimSpace(lines[n-1])
		for _, level := range []Level{Bodies, Signatures, Focus, FocusOnly} {
			t.Run(lang+"/"+string(level), func(t *testing.T) {
				shown := func(o Options) (bool, View) {
					v, err := Render(context.Background(), lang, []byte(src), level, o)
					if err != nil {
						t.Fatal(err)
					}
					elided := slices.ContainsFunc(v.Elided, func(r ctxd.LineRange) bool { return r.Start <= n && n <= r.End })
					return !elided && strings.Contains(v.Text, text), v
				}
				if ok, v := shown(Options{MatchLines: []int{n}}); !ok {
					t.Errorf("line %d %q hidden (elided %v):\n%s", n, text, v.Elided, v.Text)
				}
				if level == Bodies || level == Signatures {
					if ok, v := shown(Options{}); ok {
						t.Errorf("line %d shown without MatchLines: the check cannot fail\n%s", n, v.Text)
					}
				}
			})
		}
	}
}
