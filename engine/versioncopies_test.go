package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/lang"
)

// versionedRepo is a Python web framework shaped like fastapi: the
// parameter declarations in a module of many functions, and its tutorial
// examples in docs_src/ in a copy per Python version and per style
// (tutorial001.py, tutorial001_py39.py, tutorial001_py310.py,
// tutorial001_an.py, tutorial001_an_py39.py, tutorial001_an_py310.py).
// Every copy repeats the request's words, as fastapi's do.
func versionedRepo() map[string]string {
	var params strings.Builder
	params.WriteString("\"\"\"Parameter declarations.\"\"\"\n\nfrom typing import Any\n" + filler("python", 30))
	params.WriteString(`

class Param:
    """A path, query, header or cookie parameter and its alias."""

    def __init__(self, default: Any = None, *, alias: str | None = None, validation_alias: str | None = None):
        self.default = default
        self.alias = alias
        # the validation alias falls back to the alias: aliasFallbackMarker
        self.validation_alias = validation_alias if validation_alias is not None else alias


def get_param_name(param: Param, name: str) -> str:
    """The name a request carries the parameter under: its alias, else its own."""
    return param.alias or name
`)
	params.WriteString(strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"))
	files := map[string]string{
		"pyproject.toml":    "[project]\nname = \"webfw\"\nversion = \"0.1.0\"\n",
		"webfw/__init__.py": "\"\"\"A web framework.\"\"\"\n",
		"webfw/params.py":   params.String(),
	}
	for k := 1; k <= 4; k++ {
		for _, v := range []struct{ suffix, typ, ann string }{
			{"", "Union[str, None]", ""},
			{"_py39", "Union[str, None]", ""},
			{"_py310", "str | None", ""},
			{"_an", "Union[str, None]", "Annotated"},
			{"_an_py39", "Union[str, None]", "Annotated"},
			{"_an_py310", "str | None", "Annotated"},
		} {
			var b strings.Builder
			fmt.Fprintf(&b, "from typing import Union\n\nfrom webfw import FastAPI, Query\n\napp = FastAPI()\n\n")
			for i := range 6 {
				fmt.Fprintf(&b, "\n# parameter alias example %d: the query parameter alias item-query\n@app.get(\"/items%d/\")\nasync def read_items_%d_%d(q: %s = Query(default=None, alias=\"item-query\")):\n    \"\"\"Read the items by the query parameter alias %s.\"\"\"\n    results = {\"items\": [{\"item_id\": \"Foo\"}, {\"item_id\": \"Bar\"}]}\n    if q:\n        results.update({\"q\": q, \"alias\": \"item-query\"})\n    return results\n", i, i, k, i, v.typ, v.ann)
			}
			files[fmt.Sprintf("docs_src/query_params/tutorial%03d%s.py", k, v.suffix)] = b.String()
		}
	}
	return files
}

// TestVersionCopiesCountOnce: a request of issue 25's 32k misses ("Fix
// parameter aliases": eight copies of one docs_src example per Python
// version took 13 of the lexical places while params.py was left out).
// The code's changed line is visible, an example is in the context at
// most once (the plainest copy), within the budget; a request naming a
// copy gets that copy.
func TestVersionCopiesCountOnce(t *testing.T) {
	files := versionedRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	const code = "webfw/params.py"
	tests := []struct {
		name    string
		request string
		budget  int
		want    string // a copy that must be included
	}{
		{name: "8k", request: "Fix parameter aliases: a query parameter's alias is not used as its validation alias", budget: 8000},
		{name: "32k", request: "Fix parameter aliases: a query parameter's alias is not used as its validation alias", budget: 32000},
		{name: "copy named", request: "docs_src/query_params/tutorial002_an_py310.py: the parameter alias example reads the wrong alias", budget: 32000, want: "docs_src/query_params/tutorial002_an_py310.py"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TokenBudget: &BudgetRequest{Total: tt.budget}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, code)
			if tt.want == "" {
				if got == nil {
					t.Fatalf("%s not in the envelope; included %v", code, order)
				}
				if n := markerLine(files[code], "aliasFallbackMarker"); !visibleLine(got, files[code], n) {
					t.Errorf("%s at %q (%d tokens) hides line %d (elided %v); included %v", code, got.Truncation, got.Tokens, n, got.Elided, order)
				}
			}
			copies := map[string][]string{} // example -> copies included
			found := false
			for _, c := range env.Context.Chunks {
				found = found || c.Source == tt.want
				if !strings.HasPrefix(c.Source, "docs_src/") {
					continue
				}
				_, page := lang.VersionCopy(c.Source)
				copies[page] = append(copies[page], c.Source)
			}
			for page, cs := range copies {
				if len(cs) > 1 && tt.want == "" {
					t.Errorf("example %s is included %d times: %v; included %v", page, len(cs), cs, order)
				}
			}
			if tt.want != "" && !found {
				t.Errorf("%s is not included; included %v", tt.want, order)
			}
			if env.Context.TokensUsed > env.Context.Budget {
				t.Errorf("context uses %d tokens of %d", env.Context.TokensUsed, env.Context.Budget)
			}
		})
	}
}
