package engine

import (
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
