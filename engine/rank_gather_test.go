package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// The gathering suite (issue 25, h25gather): hand-written requests whose
// answer file a rule of candidate selection or file scoring brings into
// the envelope's top places, each on a repository built here. Each case
// fails without its rule.

// firstAt builds the prompt for request at 8k and 32k and fails unless
// answer is the first file by score (included and skipped together) and
// the context is within its budget; it returns the envelopes.
func firstAt(t *testing.T, e *Engine, request, answer string) []*ctxd.Envelope {
	t.Helper()
	var envs []*ctxd.Envelope
	for _, budget := range []int{8000, 32000} {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if env.Context.TokensUsed > env.Context.Budget {
			t.Errorf("%q@%d: over budget: %d of %d", request, budget, env.Context.TokensUsed, env.Context.Budget)
		}
		ranked := rankedFiles(env)
		if p := place(ranked, answer); p != 1 {
			t.Errorf("%q@%d: %s placed %d, want 1 (task %s):\n%s", request, budget, answer, p, env.TaskType, strings.Join(ranked, "\n"))
		}
		envs = append(envs, env)
	}
	return envs
}

// place returns file's 1-based place in rankedFiles' list, 0 when absent.
func place(ranked []string, file string) int {
	return slices.IndexFunc(ranked, func(s string) bool { return strings.HasPrefix(s, file+" ") }) + 1
}

// repeated returns head and then n copies of def, formatted with their
// index (%[1]d): a module large enough to rank as real ones do.
func repeated(head string, n int, def string) string {
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		fmt.Fprintf(&b, def, i)
	}
	return b.String()
}

// laterCommits commits five changes to a notes file, so that no file of
// the first commit counts as recently changed.
func laterCommits(t *testing.T, dir string) {
	t.Helper()
	for i := range 5 {
		testutil.WriteFiles(t, dir, map[string]string{"NOTES.txt": fmt.Sprintf("release %d\n", i)})
		testutil.GitCommitAll(t, dir)
	}
}

// TestRecentCodeFillsAWordlessRequest: a request whose words match no
// file ("Minor tweaks and cleanup", urfave/cli's early history) gathered
// nothing, and a 16k context stayed empty; the code files of the recent
// commits fill in, the newest first.
func TestRecentCodeFillsAWordlessRequest(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":    "module example.com/cli\n\ngo 1.22\n",
		"cli.go":    "package cli\n\n// App is a command line application.\ntype App struct {\n\tName string\n\tFlags []Flag\n}\n\n// Run parses the arguments and runs the action.\nfunc (a *App) Run(args []string) error {\n\treturn nil\n}\n",
		"flag.go":   "package cli\n\n// Flag is a command line flag.\ntype Flag interface {\n\tApply(set map[string]string)\n}\n",
		"README.md": "# cli\n\nA package for command line applications.\n",
	})
	testutil.WriteFiles(t, dir, map[string]string{
		"cli.go": "package cli\n\n// App is a command line application.\ntype App struct {\n\tName  string\n\tUsage string\n\tFlags []Flag\n}\n\n// Run parses the arguments and runs the action.\nfunc (a *App) Run(args []string) error {\n\tif len(args) == 0 {\n\t\treturn nil\n\t}\n\treturn nil\n}\n",
	})
	testutil.Git(t, dir, "commit", "-q", "-am", "usage text")
	for _, env := range firstAt(t, newEngine(t, dir), "Minor tweaks and cleanup", "cli.go") {
		if c := chunkOf(env, "cli.go"); c == nil || !strings.Contains(c.Content, "Usage string") {
			t.Errorf("cli.go not shown with its fields: %+v", c)
		}
	}
}

// TestLexicalTargets: when the request names no file, its best lexical
// matches become targets (HIGH). Two rules keep a guess from taking the
// first place from the file the change is about:
//   - a test is no lexical target unless the request is about tests (a
//     test repeating the request's words, fastapi's tests/test_ws_router.py
//     for "include router into itself", took that place and the task's
//     boost from the module it tests); it is still gathered;
//   - implement's and refactor's task boost goes to the targets the user
//     pointed at, not to guessed ones (httpx's "Cleanup `Request` method
//     parameter": _client.py, which builds Requests on every line, over
//     _models.py, which defines Request).
func TestLexicalTargets(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		requests []string
		answer   string
		gathered string // a file that must still be gathered
	}{
		{
			name: "tests are no lexical targets",
			files: map[string]string{
				"pyproject.toml":               "[project]\nname = \"app\"\n",
				"app/__init__.py":              "from app.routing import Router\n",
				"app/routing.py":               repeated("\"\"\"Routing.\"\"\"\n\n\nclass Router:\n    \"\"\"Holds routes.\"\"\"\n\n    def __init__(self):\n        self.routes = []\n\n    def include_router(self, other, prefix=\"\"):\n        \"\"\"Add the routes of other under prefix.\"\"\"\n        if other is self:\n            raise ValueError(\"cannot include a router into itself\")\n        for route in other.routes:\n            self.routes.append(prefix + route)\n", 30, "\n    def handler_%[1]d(self, request):\n        \"\"\"Serve request %[1]d.\"\"\"\n        return request.path + \"%[1]d\"\n"),
				"app/params.py":                "\"\"\"Parameters.\"\"\"\n\n\ndef query(default=None):\n    return default\n",
				"tests/test_router_include.py": repeated("from app.routing import Router\n", 12, "\n\ndef test_include_router_into_itself_%[1]d():\n    router = Router()\n    router.include_router(router)  # include the router into itself\n    assert router.routes == []\n"),
			},
			requests: []string{"Fix include router into itself"},
			answer:   "app/routing.py",
			gathered: "tests/test_router_include.py",
		},
		{
			name: "guessed targets get no task boost",
			files: map[string]string{
				"pyproject.toml":       "[project]\nname = \"netlib\"\n",
				"netlib/__init__.py":   "from netlib._client import Client\nfrom netlib._models import Request, Response\n",
				"netlib/_client.py":    repeated("\"\"\"The client.\"\"\"\n\nfrom netlib._models import Request\n\n\nclass Client:\n    \"\"\"Sends requests.\"\"\"\n", 25, "\n    def send_%[1]d(self, method, url, params=None):\n        \"\"\"Build a Request with this method and parameter set, and send it.\"\"\"\n        request = Request(method, url, params=params)\n        return self._send(request, %[1]d)\n"),
				"netlib/_models.py":    repeated("\"\"\"Requests and responses.\"\"\"\n\n\nclass Request:\n    \"\"\"An HTTP request.\"\"\"\n\n    def __init__(self, method, url, params=None):\n        self.method = method.upper()\n        self.url = url\n        self.params = params or {}\n\n\nclass Response:\n    \"\"\"An HTTP response.\"\"\"\n", 25, "\n    def header_%[1]d(self, name):\n        \"\"\"Return header %[1]d.\"\"\"\n        return self.headers.get(name, \"%[1]d\")\n"),
				"netlib/_status.py":    "\"\"\"Status codes.\"\"\"\n\n\ndef is_error(code):\n    return code >= 400\n",
				"netlib/_urls.py":      "\"\"\"URLs.\"\"\"\n\n\nclass URL:\n    def __init__(self, url):\n        self.raw = url\n",
				"tests/test_client.py": "from netlib import Client\n\n\ndef test_send():\n    assert Client()\n",
			},
			requests: []string{"Cleanup `Request` method parameter.", "Add a `Request` method parameter check"},
			answer:   "netlib/_models.py",
			gathered: "netlib/_client.py",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testutil.GitRepo(t, tt.files)
			laterCommits(t, dir) // no file counts as recently changed
			e := newEngine(t, dir)
			for _, request := range tt.requests {
				for _, env := range firstAt(t, e, request, tt.answer) {
					if ranked := rankedFiles(env); place(ranked, tt.gathered) == 0 {
						t.Errorf("%q: %s not gathered:\n%s", request, tt.gathered, strings.Join(ranked, "\n"))
					}
				}
			}
		})
	}
}
