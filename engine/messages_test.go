package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// commitAs commits files to the repository at dir with subject as its
// message.
func commitAs(t *testing.T, dir, subject string, files map[string]string) {
	t.Helper()
	testutil.WriteFiles(t, dir, files)
	testutil.Git(t, dir, "add", "-A")
	testutil.Git(t, dir, "commit", "-q", "-m", subject)
}

// TestMessagesRankTheFileSuchWorkChanged: a request worded like the
// project's earlier commits ("Fix parsing extra Form parameter list")
// is about the file those commits changed (fastapi's
// dependencies/utils.py, the 31st lexical match among modules that say
// "form", "parameter" and "list" more often). Twelve modules repeat the
// request's words; the solver says them once each, and four earlier
// commits whose subjects share the request's words changed it. It must
// be in the envelope with read_value (where such a fix goes) shown, and
// among the best ten files by score (twelve modules hold more of the
// request's words), at 8k and 32k. Without the messages' signal the
// solver was not gathered at either budget.
func TestMessagesRankTheFileSuchWorkChanged(t *testing.T) {
	files := map[string]string{
		"app/__init__.py": "\"\"\"A small web framework.\"\"\"\n",
		"app/dependencies/solver.py": "\"\"\"Solves a call's dependencies from the request.\"\"\"\n\n\n" +
			"def solve(call, request):\n    \"\"\"Return the values of call's dependencies.\"\"\"\n    values = {}\n    for name, kind in signature(call):\n        values[name] = read_value(request, name, kind)\n    return values\n\n\n" +
			"def read_value(request, name, kind):\n    \"\"\"One parameter's value: from the form body or the query, a list from repeated keys.\"\"\"\n    if kind == \"form\":\n        return request.body.get(name)\n    return request.query.get(name)\n\n\n" +
			"def signature(call):\n    return [(n, getattr(call, \"kind\", \"query\")) for n in call.__code__.co_varnames]\n",
		"app/routing.py": "\"\"\"Routes.\"\"\"\n\n\ndef route(path, call):\n    return (path, call)\n",
	}
	// Modules that repeat the request's words (a forms library, list
	// helpers, parameter docs in code), each large enough to rank.
	for i, words := range [][]string{
		{"form", "parameter", "list"}, {"form", "extra", "list"}, {"parameter", "list", "parsing"},
		{"form", "parsing", "extra"}, {"form", "parameter"}, {"extra", "parameter", "list"},
		{"list", "form"}, {"parsing", "form", "list"}, {"parameter", "extra"},
		{"form", "list", "extra", "parameter"}, {"parsing", "parameter"}, {"form", "extra"},
	} {
		files[fmt.Sprintf("app/widgets/widget%02d.py", i)] = "\"\"\"Widgets.\"\"\"\n" + pyFuncs(fmt.Sprintf("%s_widget", words[0]), 8, words...)
	}
	dir := testutil.GitRepo(t, files)
	solver := files["app/dependencies/solver.py"]
	for i, subject := range []string{
		"Fix Form parameter parsing for sequences",
		"Support extra parameter lists",
		"Fix parsing Form fields with defaults",
		"Fix list parameter parsing with aliases",
	} {
		solver += fmt.Sprintf("\n\ndef fix%d(value):\n    return value\n", i)
		commitAs(t, dir, subject, map[string]string{"app/dependencies/solver.py": solver})
	}
	commitAs(t, dir, "Add route names", map[string]string{"app/routing.py": files["app/routing.py"] + "\n\ndef name(route):\n    return route[0]\n"})
	// Five later commits, so that the solver's changes are not recent.
	for i := range 5 {
		commitAs(t, dir, fmt.Sprintf("Release %d", i), map[string]string{"NOTES.txt": fmt.Sprintf("release %d\n", i)})
	}
	e := newEngine(t, dir)
	const request, answer = "Fix parsing extra Form parameter list", "app/dependencies/solver.py"
	for _, budget := range []int{8000, 32000} {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if env.Context.TokensUsed > env.Context.Budget {
			t.Errorf("@%d: over budget: %d of %d", budget, env.Context.TokensUsed, env.Context.Budget)
		}
		ranked := rankedFiles(env)
		if p := place(ranked, answer); p < 1 || p > 10 {
			t.Errorf("@%d: %s placed %d, want 1-10:\n%s", budget, answer, p, strings.Join(ranked, "\n"))
			continue
		}
		shown, view := false, "absent"
		for _, c := range env.Context.Chunks {
			if c.Source == answer {
				shown, view = strings.Contains(c.Content, "def read_value(request, name, kind):"), string(c.Shown())
			}
		}
		if !shown {
			t.Errorf("@%d: %s not in the context with read_value whole (%s):\n%s", budget, answer, view, strings.Join(ranked, "\n"))
		}
	}
}
