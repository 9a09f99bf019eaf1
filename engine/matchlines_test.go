package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestMatchLinesVisible: hand-written requests naming an identifier that
// only a line inside a function body holds (django-13933's case:
// ModelChoiceField.to_python's raise line holds invalid_choice, and the
// bodies view hid it). At every budget, whatever view the fitter chose
// for the file, the line is visible verbatim outside every elided range
// (an outline shows no source line: the rule is for the views that do),
// and the context is within its budget.
func TestMatchLinesVisible(t *testing.T) {
	py, golang := testutil.ChoiceSources(60, 80)
	files := map[string]string{
		"forms/models.py":  py,
		"forms/errors.py":  "class ValidationError(Exception):\n    pass\n",
		"choice/choice.go": golang,
		"go.mod":           "module example.com/c\n\ngo 1.26\n",
		"README.md":        "# c\n\nForms and choices.\n",
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	at := func(file, marker string) []ctxd.OpenFile {
		return []ctxd.OpenFile{{Path: file, Line: markerLine(files[file], marker)}}
	}
	tests := []struct {
		request, file, marker string
		open                  []ctxd.OpenFile // a cursor elsewhere in the file: no focus lines
	}{
		{"the invalid_choice error does not say which value was given", "forms/models.py", "pyMarker", nil},
		{"prepare_7 should raise invalid_choice for an unknown value", "forms/models.py", "pyMarker", nil},
		{"this should raise invalid_choice for an unknown value", "forms/models.py", "pyMarker", at("forms/models.py", "return 7")},
		{"return errUnknownChoice here for an empty value", "choice/choice.go", "goMarker", at("choice/choice.go", "return \"5\"")},
		{"clean5 should return errUnknownChoice for an empty value", "choice/choice.go", "goMarker", nil},
		{"include the value in the `invalid_choice` message of the model choice field", "forms/models.py", "pyMarker", nil},
		{"errUnknownChoice should name the value that was not found", "choice/choice.go", "goMarker", nil},
	}
	for _, tt := range tests {
		src := files[tt.file]
		n := markerLine(src, tt.marker)
		seen := map[ctxd.View]bool{}
		for _, budget := range []int{1500, 2500, 4000, 8000, 32000} {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, OpenFiles: tt.open, TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, tt.file)
			if got == nil || got.Truncation == ctxd.ViewOutline {
				continue
			}
			seen[got.Truncation] = true
			if !visibleLine(got, src, n) {
				t.Errorf("%q at %d: %s at %q (%d tokens) hides line %d (elided %v); included %v", tt.request, budget, tt.file, got.Truncation, got.Tokens, n, got.Elided, order)
			}
		}
		t.Logf("%q: views seen %v", tt.request, seen)
		if len(seen) < 2 {
			t.Errorf("%q: only the views %v were chosen: the budgets do not exercise the elision", tt.request, seen)
		}
	}
}

// TestMatchLinesCommonName: an identifier of the request that more than
// matchLinesCommon lines of a file hold (cmd in a CLI's command file)
// marks none of them, while a rarer one of the same request still marks
// its line, which stays visible at every budget but the outline's; one on
// fewer lines than that but more than matchLinesPerFile (InvalidURL, for
// a request about the error's message) still marks its first lines. With
// every name's first lines marked (the rule before), the first twelve
// uses of cmd kept a dozen functions whole at bodies and signatures and
// in every focus view, a cost the fitter paid for lines the request is
// not about (BENCHMARKS.md "h25small": cli 32k, requests 8k).
func TestMatchLinesCommonName(t *testing.T) {
	// 30 functions using cmd (60 lines), 14 raising InvalidURL.
	steps := make([]string, 30)
	for i := range steps {
		steps[i] = fmt.Sprintf("// step%d prepares a command.\nfunc step%d(cmd *Command) string {\n\tif cmd == nil {\n\t\treturn \"%d\"\n\t}\n\treturn strings.ToUpper(cmd.Usage)\n}\n\n", i, i, i)
	}
	checks := make([]string, 14)
	for i := range checks {
		checks[i] = fmt.Sprintf("def check_%d(url):\n    if not url:\n        raise InvalidURL(\"empty\")  # invalid%d\n    return url\n\n\n", i, i)
	}
	command := "package cli\n\nimport \"strings\"\n\n// Command is a command of the program.\ntype Command struct {\n\tName  string\n\tUsage string\n}\n\n" +
		strings.Join(steps, "") +
		"func printScript(c *Command, shell string) string {\n\tswitch shell {\n\tcase \"zsh\":\n\t\treturn zshTemplate // rareMarker\n\t}\n\treturn \"\"\n}\n\nconst zshTemplate = \"#compdef prog\"\n"
	files := map[string]string{
		"command.go":  command,
		"urlparse.py": "\"\"\"URL parsing.\"\"\"\n\n\nclass InvalidURL(Exception):\n    pass\n\n\n" + strings.Join(checks, ""),
		"go.mod":      "module example.com/cli\n\ngo 1.26\n",
		"README.md":   "# cli\n\nCommands.\n",
	}
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	tests := []struct {
		request, file, marker string
		want                  []int // the file's match lines
	}{
		// Name's field, zshTemplate's use and definition; cmd (on 60
		// lines) marks none.
		{"use `cmd.Name` in the zshTemplate completion script", "command.go", "rareMarker", []int{markerLine(files["command.go"], "Name  string"), markerLine(files["command.go"], "rareMarker"), markerLine(files["command.go"], "const zshTemplate")}},
		// InvalidURL on 15 lines: its first 12.
		{"Improve the InvalidURL error message", "urlparse.py", "invalid0", nil},
	}
	for n, l := range strings.Split(files["urlparse.py"], "\n") {
		if strings.Contains(l, "InvalidURL") && len(tests[1].want) < matchLinesPerFile {
			tests[1].want = append(tests[1].want, n+1)
		}
	}
	for _, tt := range tests {
		src := files[tt.file]
		line := markerLine(src, tt.marker)
		seen := map[ctxd.View]bool{}
		for _, budget := range []int{1500, 2500, 4000, 8000} {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TokenBudget: &BudgetRequest{Total: budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, tt.file)
			if got == nil {
				t.Fatalf("%q at %d: %s not included (%v)", tt.request, budget, tt.file, order)
			}
			if !slices.Equal(got.Facts.MatchLines, tt.want) {
				t.Errorf("%q at %d: match lines %v, want %v", tt.request, budget, got.Facts.MatchLines, tt.want)
			}
			if got.Truncation == ctxd.ViewOutline {
				continue
			}
			seen[got.Truncation] = true
			if !visibleLine(got, src, line) {
				t.Errorf("%q at %d: %s (%d tokens) hides line %d (elided %v)", tt.request, budget, got.Truncation, got.Tokens, line, got.Elided)
			}
		}
		t.Logf("%q: views seen %v", tt.request, seen)
	}
}
