package engine

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// typeHeadsRepo is a repository whose answers are lines of a type's head,
// between its declaration and its first member: a named class's docstring
// (httpx's Client), the attributes of the class of a method the request's
// words match (fastapi's APIRoute).
func typeHeadsRepo() map[string]string {
	var doc strings.Builder
	doc.WriteString("    \"\"\"\n    An HTTP client, with connection pooling.\n\n")
	for i := range 24 {
		doc.WriteString("    * **option" + string(rune('a'+i)) + "** - *(optional)* a setting of the client.\n")
	}
	doc.WriteString("    * **timeout** - *(optional)* seconds before a request gives up.  # docMarker\n    \"\"\"\n")
	var methods strings.Builder
	for i := range 40 {
		n := string(rune('a'+i%26)) + string(rune('a'+i/26))
		methods.WriteString("\n    def step_" + n + "(self, value):\n        \"\"\"Mix a value.\"\"\"\n        total = value * 3\n        if total > 100:\n            return total - 7\n        return total + 11\n")
	}
	return map[string]string{
		"web/client.py": "\"\"\"Clients.\"\"\"\n\nimport json\n" + filler("python", 30) + "\n\nclass Client:\n" + doc.String() +
			"\n    def __init__(self, timeout=5):\n        self.timeout = timeout\n" + methods.String() + strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"),
		"web/routing.py": "\"\"\"Routes.\"\"\"\n\nimport json\n" + filler("python", 30) +
			"\n\nclass APIRoute:\n    response_model: object  # attrMarker\n    include_in_schema: bool\n\n    def __init__(self, path, endpoint):\n        self.path = path\n        self.endpoint = endpoint\n\n" +
			"    def matches_path_prefix(self, scope):\n        \"\"\"Match the route's path prefix against the scope.\"\"\"\n        prefix = scope[\"root_path\"]\n        return self.path.startswith(prefix)  # prefixMarker\n" +
			strings.ReplaceAll(strings.ReplaceAll(filler("python", 8), "def _helper", "    def _mixer"), "\n    ", "\n        ") +
			strings.ReplaceAll(filler("python", 30), "_helper", "_pad"),
		"web/util.py": "\"\"\"Utilities.\"\"\"\n" + strings.ReplaceAll(filler("python", 3), "_helper", "_util"),
	}
}

// TestTypeHeads: the head of a type (its lines between the declaration and
// its first member) is shown when the request names the type and it is
// too long to show whole, and when the request's words match a method of
// it; the context is never over budget (promptTarget).
func TestTypeHeads(t *testing.T) {
	files := typeHeadsRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	tests := []struct {
		name, request, target string
		markers               []string
	}{
		{"named class docstring", "the Client docstring says nothing of the default timeout of the Client class", "web/client.py",
			[]string{"class Client:", "docMarker"}},
		{"class of a matched method", "matches_path_prefix ignores the root path prefix of the scope", "web/routing.py",
			[]string{"class APIRoute:", "attrMarker", "prefixMarker"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, tt.target)
			if !got.Truncated {
				t.Fatalf("%s whole (%d tokens): the test tests nothing", tt.target, got.Tokens)
			}
			lines := strings.Split(files[tt.target], "\n")
			for _, m := range tt.markers {
				l := markerLine(files[tt.target], m)
				if l == 0 {
					t.Fatalf("%s has no %q", tt.target, m)
				}
				if !strings.Contains(got.Content, lines[l-1]) || ctxd.InRanges(got.Elided, l) {
					t.Errorf("%s at view %q (%d of %d tokens) hides line %d %q (task %s); included %v\n%s", tt.target, got.Truncation, got.Tokens, got.OriginalTokens, l, m, env.TaskType, order, got.Content)
				}
			}
		})
	}
}
