package treesitter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// matchSources are a Python and a Go file whose matching line sits in the
// body of a function the request does not name: a bodies view collapses
// it, as it hid django's ModelChoiceField.to_python (its raise line holds
// invalid_choice; BENCHMARKS.md "h25swe2").
func matchSources() map[string]string {
	var py strings.Builder
	py.WriteString("\"\"\"Fields.\"\"\"\n\n\nclass ChoiceField:\n    \"\"\"A field.\"\"\"\n\n")
	for i := range 8 {
		fmt.Fprintf(&py, "    def clean_%d(self, value):\n        if value is None:\n            return %d\n        value = value.strip()\n        return value\n\n", i, i)
	}
	py.WriteString("    def to_python(self, value):\n        if value in self.empty_values:\n            return None\n        try:\n            value = self.queryset.get(pk=value)\n        except (ValueError, TypeError):\n            raise ValidationError(self.error_messages['invalid_choice'], code='invalid_choice')  # matchMarker\n        return value\n")
	var g strings.Builder
	g.WriteString("package fields\n\nimport \"errors\"\n\nvar errInvalidChoice = errors.New(\"invalid choice\")\n\n")
	for i := range 8 {
		fmt.Fprintf(&g, "func clean%d(v string) (string, error) {\n\tif v == \"\" {\n\t\treturn \"%d\", nil\n\t}\n\treturn v, nil\n}\n\n", i, i)
	}
	g.WriteString("func toValue(v string, choices map[string]int) (int, error) {\n\tn, ok := choices[v]\n\tif !ok {\n\t\treturn 0, errInvalidChoice // matchMarker\n\t}\n\treturn n, nil\n}\n")
	return map[string]string{"python": py.String(), "go": g.String()}
}

// TestMatchLinesNeverElided: at every level but the outline (one line
// per definition, no source line), a MatchLines line is shown verbatim
// and outside every elided range; without it the same level hides it
// (the test can fail).
func TestMatchLinesNeverElided(t *testing.T) {
	for lang, src := range matchSources() {
		lines := strings.Split(src, "\n")
		n := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "matchMarker") }) + 1
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
