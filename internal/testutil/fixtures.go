package testutil

import (
	"fmt"
	"strings"
)

// ToolOutput is the i-th tool output of a test conversation: 600 lines of
// varied code, so condensing it is worth a reference. Each i gives other
// text.
func ToolOutput(i int) string {
	words := []string{"alpha", "beta", "gamma", "delta", "store", "cart", "item", "limit", "error", "value", "index", "buffer"}
	var sb strings.Builder
	for j := range 600 {
		k := i*7919 + j*31
		fmt.Fprintf(&sb, "func %s%d(%s int) %s { return %s[%d] + %d }\n", words[k%12], j, words[(k/3)%12], words[(k/5)%12], words[(k/7)%12], j, k%997)
	}
	return sb.String()
}

// ChoiceSources are a Python and a Go file whose one matching line sits in
// the body of a function a request does not name, as django's
// ModelChoiceField.to_python's raise line holds invalid_choice
// (BENCHMARKS.md "h25swe2"): pyDefs small methods before to_python (its
// raise line marked "# pyMarker"), goDefs small functions before lookup
// (its return of errUnknownChoice marked "// goMarker"). A bodies view
// collapses the marked line unless something keeps it; the sizes choose
// whether the file fits whole at a budget.
func ChoiceSources(pyDefs, goDefs int) (py, golang string) {
	var p strings.Builder
	p.WriteString("\"\"\"Model fields.\"\"\"\n\nfrom forms.errors import ValidationError\n\n\nclass ModelChoiceField:\n    \"\"\"A choice field over a queryset.\"\"\"\n\n")
	for i := range pyDefs {
		fmt.Fprintf(&p, "    def prepare_%d(self, value):\n        \"\"\"Prepare a value.\"\"\"\n        if value is None:\n            return %d\n        value = value.strip()\n        return value\n\n", i, i)
	}
	p.WriteString("    def to_python(self, value):\n        if value in self.empty_values:\n            return None\n        try:\n            value = self.queryset.get(pk=value)\n        except (ValueError, TypeError):\n            raise ValidationError(self.error_messages['invalid_choice'], code='invalid_choice')  # pyMarker\n        return value\n")
	var g strings.Builder
	g.WriteString("package choice\n\nimport \"errors\"\n\nvar errUnknownChoice = errors.New(\"unknown choice\")\n\n")
	for i := range goDefs {
		fmt.Fprintf(&g, "// clean%d cleans a value.\nfunc clean%d(v string) (string, error) {\n\tif v == \"\" {\n\t\treturn \"%d\", nil\n\t}\n\treturn v, nil\n}\n\n", i, i, i)
	}
	g.WriteString("func lookup(v string, choices map[string]int) (int, error) {\n\tn, ok := choices[v]\n\tif !ok {\n\t\treturn 0, errUnknownChoice // goMarker\n\t}\n\treturn n, nil\n}\n")
	return p.String(), g.String()
}
