package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestLocaleCopiesTakeNoBudget: hand-written requests against a repository
// holding a module per language (conf/locale/<lang>/formats.py, django's
// layout) and gettext catalogues that repeat the request's words more than
// the code does (django-12747's and sphinx-8506's cases). At every budget
// the context holds at most one copy of formats.py and no catalogue in
// another language, stays within its budget, and once the budget holds
// the code file whole, the line to change is visible in it.
func TestLocaleCopiesTakeNoBudget(t *testing.T) {
	var del strings.Builder
	// An import of the formats module, as django's admin/utils.py has:
	// a Python import resolves by its module's tail, so it had brought
	// every locale's formats.py.
	del.WriteString("\"\"\"Deletion of objects and what they cascade to.\"\"\"\n\nfrom web.utils import formats\n\n\nclass Collector:\n    \"\"\"Collects the objects a delete reaches.\"\"\"\n\n")
	for i := range 40 {
		fmt.Fprintf(&del, "    def collect_%d(self, objs):\n        \"\"\"Collect related objects of kind %d.\"\"\"\n        for obj in objs:\n            self.data.setdefault(obj.model, set()).add(obj)\n        return objs\n\n", i, i)
	}
	del.WriteString("    def delete(self):\n        \"\"\"Delete the collected objects; return the result format (count, per-model dict).\"\"\"\n        deleted = {model: len(objs) for model, objs in self.data.items()}\n        return sum(deleted.values()), deleted  # delMarker\n")
	var std strings.Builder
	std.WriteString("\"\"\"The standard domain.\"\"\"\n\n\n")
	for i := range 40 {
		fmt.Fprintf(&std, "def directive_%d(env, text):\n    \"\"\"Run directive %d.\"\"\"\n    node = env.parse(text)\n    return [node]\n\n\n", i, i)
	}
	std.WriteString("def make_option(env, desc):\n    \"\"\"Parse one option of a program.\"\"\"\n    if not desc.startswith('-'):\n        logger.warning(__('Malformed option description %r, should look like \"opt\", \"-opt args\"'), desc)  # stdMarker\n    return desc\n")
	files := map[string]string{
		"web/db/deletion.py":   del.String(),
		"web/domains/std.py":   std.String(),
		"web/locale/web.pot":   "msgid \"Malformed option description %r, should look like \\\"opt\\\", \\\"-opt args\\\"\"\nmsgstr \"\"\n",
		"README.md":            "# web\n\nA web framework.\n",
		"web/utils/formats.py": "def localize(value):\n    \"\"\"Format a value for the current locale.\"\"\"\n    return str(value)\n",
	}
	for _, l := range []string{"en", "de", "fr", "it", "ja", "pt_BR", "ru", "es", "nl"} {
		var f strings.Builder
		fmt.Fprintf(&f, "# This file is distributed under the same license as the web package.\n# The result format of dates and numbers for the %s locale.\n", l)
		for i := range 12 {
			fmt.Fprintf(&f, "DATE_INPUT_FORMAT_%d = ['%%Y-%%m-%%d', '%%d.%%m.%%Y']  # the result format of deleted objects counts\n", i)
		}
		files["web/conf/locale/"+l+"/formats.py"] = f.String()
		var po strings.Builder
		for i := range 10 {
			fmt.Fprintf(&po, "#: web/domains/std.py:%d\nmsgid \"Malformed option description %%r, should look like \\\"opt\\\", \\\"-opt args\\\"\"\nmsgstr \"option %s %d\"\n\n", 100+i, l, i)
		}
		files["web/locale/"+l+"/LC_MESSAGES/web.po"] = po.String()
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	tests := []struct {
		request, file, marker string
	}{
		{"QuerySet.delete: the result format is inconsistent when zero objects are deleted", "web/db/deletion.py", "delMarker"},
		{"the \"Malformed option description\" warning rejects [enable=]PATTERN, which should be accepted", "web/domains/std.py", "stdMarker"},
	}
	for _, tt := range tests {
		src := files[tt.file]
		n := markerLine(src, tt.marker)
		for _, budget := range []int{2000, 4000, 8000, 16000} {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, tt.file)
			copies := 0
			for _, c := range env.Context.Chunks {
				switch {
				case strings.HasPrefix(c.Source, "web/conf/locale/"):
					copies++
				case strings.Contains(c.Source, "/LC_MESSAGES/") && !strings.Contains(c.Source, "/en/"):
					t.Errorf("%q at %d: catalogue %s in the context: %v", tt.request, budget, c.Source, order)
				}
			}
			if copies > 1 {
				t.Errorf("%q at %d: %d copies of formats.py in the context: %v", tt.request, budget, copies, order)
			}
			if got == nil {
				t.Errorf("%q at %d: %s not in the context: %v", tt.request, budget, tt.file, order)
				continue
			}
			if env.Context.Budget >= 2*got.Tokens && got.Tokens > 0 && !visibleLine(got, src, n) {
				t.Errorf("%q at %d: %s at %s hides line %d: %v", tt.request, budget, tt.file, got.Truncation, n, order)
			}
		}
	}
}
