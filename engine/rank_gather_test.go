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

// place returns answer's 1-based place among the envelope's file chunks
// by score (included and skipped together), 0 when it is not there, and
// fails the test when the context is over its budget or the answer is
// included without its content.
func place(t *testing.T, env *ctxd.Envelope, answer string) int {
	t.Helper()
	if env.Context.TokensUsed > env.Context.Budget {
		t.Errorf("over budget: %d of %d", env.Context.TokensUsed, env.Context.Budget)
	}
	ranked := rankedFiles(env)
	return slices.IndexFunc(ranked, func(s string) bool { return strings.HasPrefix(s, answer+" ") }) + 1
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
	e := newEngine(t, dir)
	for _, budget := range []int{8000, 32000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "Minor tweaks and cleanup", TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p := place(t, env, "cli.go"); p != 1 {
				t.Errorf("cli.go (changed in the last commit) placed %d, want 1:\n%s", p, strings.Join(rankedFiles(env), "\n"))
			}
			c := findChunk(env, "cli.go")
			if c == nil || !strings.Contains(c.Content, "Usage string") {
				t.Errorf("cli.go not shown with its fields: %+v", c)
			}
		})
	}
}

// findChunk returns the included chunk of source, or nil.
func findChunk(env *ctxd.Envelope, source string) *ctxd.Chunk {
	for i := range env.Context.Chunks {
		if env.Context.Chunks[i].Source == source && env.Context.Chunks[i].Content != "" {
			return &env.Context.Chunks[i]
		}
	}
	return nil
}

// TestTestsAreNoLexicalTargets: when the request names no file, its best
// lexical matches become targets (HIGH, and the task's boost); a test
// that repeats the request's words (fastapi's tests/test_ws_router.py
// for "include router into itself") took that place from the module the
// change is about. A test is no lexical target unless the request is
// about tests; it is still gathered, beside its source.
func TestTestsAreNoLexicalTargets(t *testing.T) {
	var tests strings.Builder
	tests.WriteString("from app.routing import Router\n")
	for i := range 12 {
		fmt.Fprintf(&tests, "\n\ndef test_include_router_into_itself_%d():\n    router = Router()\n    router.include_router(router)  # include the router into itself\n    assert router.routes == []\n", i)
	}
	var routing strings.Builder
	routing.WriteString("\"\"\"Routing.\"\"\"\n\n\nclass Router:\n    \"\"\"Holds routes.\"\"\"\n\n    def __init__(self):\n        self.routes = []\n\n    def include_router(self, other, prefix=\"\"):\n        \"\"\"Add the routes of other under prefix.\"\"\"\n        if other is self:\n            raise ValueError(\"cannot include a router into itself\")\n        for route in other.routes:\n            self.routes.append(prefix + route)\n")
	for i := range 30 {
		fmt.Fprintf(&routing, "\n    def handler_%d(self, request):\n        \"\"\"Serve request %d.\"\"\"\n        return request.path + %q\n", i, i, fmt.Sprint(i))
	}
	dir := testutil.GitRepo(t, map[string]string{
		"pyproject.toml":               "[project]\nname = \"app\"\n",
		"app/__init__.py":              "from app.routing import Router\n",
		"app/routing.py":               routing.String(),
		"app/params.py":                "\"\"\"Parameters.\"\"\"\n\n\ndef query(default=None):\n    return default\n",
		"tests/test_router_include.py": tests.String(),
	})
	// Five later commits elsewhere: none of these files is recent.
	for i := range 5 {
		testutil.WriteFiles(t, dir, map[string]string{"NOTES.txt": fmt.Sprintf("release %d\n", i)})
		testutil.GitCommitAll(t, dir)
	}
	e := newEngine(t, dir)
	for _, budget := range []int{8000, 32000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "Fix include router into itself", TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p := place(t, env, "app/routing.py"); p != 1 {
				t.Errorf("app/routing.py placed %d, want 1:\n%s", p, strings.Join(rankedFiles(env), "\n"))
			}
			if place(t, env, "tests/test_router_include.py") == 0 {
				t.Errorf("the test is no longer gathered:\n%s", strings.Join(rankedFiles(env), "\n"))
			}
		})
	}
}

// TestGuessedTargetsGetNoTaskBoost: the best lexical matches of a request
// that names no file are targets (HIGH); implement's and refactor's task
// boost on top outranked the file that defines the name the request
// writes (httpx's "Cleanup `Request` method parameter": _client.py, which
// builds Requests on every line, over _models.py, which defines Request).
// The boost goes to the files the user pointed at.
func TestGuessedTargetsGetNoTaskBoost(t *testing.T) {
	var client strings.Builder
	client.WriteString("\"\"\"The client.\"\"\"\n\nfrom netlib._models import Request\n\n\nclass Client:\n    \"\"\"Sends requests.\"\"\"\n")
	for i := range 25 {
		fmt.Fprintf(&client, "\n    def send_%d(self, method, url, params=None):\n        \"\"\"Build a Request with this method and parameter set, and send it.\"\"\"\n        request = Request(method, url, params=params)\n        return self._send(request, %d)\n", i, i)
	}
	var models strings.Builder
	models.WriteString("\"\"\"Requests and responses.\"\"\"\n\n\nclass Request:\n    \"\"\"An HTTP request.\"\"\"\n\n    def __init__(self, method, url, params=None):\n        self.method = method.upper()\n        self.url = url\n        self.params = params or {}\n\n\nclass Response:\n    \"\"\"An HTTP response.\"\"\"\n")
	for i := range 25 {
		fmt.Fprintf(&models, "\n    def header_%d(self, name):\n        \"\"\"Return header %d.\"\"\"\n        return self.headers.get(name, %q)\n", i, i, fmt.Sprint(i))
	}
	dir := testutil.GitRepo(t, map[string]string{
		"pyproject.toml":       "[project]\nname = \"netlib\"\n",
		"netlib/__init__.py":   "from netlib._client import Client\nfrom netlib._models import Request, Response\n",
		"netlib/_client.py":    client.String(),
		"netlib/_models.py":    models.String(),
		"netlib/_status.py":    "\"\"\"Status codes.\"\"\"\n\n\ndef is_error(code):\n    return code >= 400\n",
		"netlib/_urls.py":      "\"\"\"URLs.\"\"\"\n\n\nclass URL:\n    def __init__(self, url):\n        self.raw = url\n",
		"tests/test_client.py": "from netlib import Client\n\n\ndef test_send():\n    assert Client()\n",
	})
	for i := range 5 {
		testutil.WriteFiles(t, dir, map[string]string{"NOTES.txt": fmt.Sprintf("release %d\n", i)})
		testutil.GitCommitAll(t, dir)
	}
	e := newEngine(t, dir)
	for _, request := range []string{"Cleanup `Request` method parameter.", "Add a `Request` method parameter check"} {
		for _, budget := range []int{8000, 32000} {
			t.Run(fmt.Sprint(request, "@", budget), func(t *testing.T) {
				env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if p := place(t, env, "netlib/_models.py"); p != 1 {
					t.Errorf("netlib/_models.py placed %d, want 1 (task %s):\n%s", p, env.TaskType, strings.Join(rankedFiles(env), "\n"))
				}
			})
		}
	}
}
