package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/lang"
)

// translatedRepo is a Python web framework shaped like fastapi: the
// dependency resolution in a module of many functions, and its tutorial
// page in English and six translations (docs/<lang>/docs/...), plus a
// README with two translations by suffix (README.zh-CN.md, README.ja.md).
// Every version of the page repeats the request's words in its code
// samples, as translated docs do.
func translatedRepo() map[string]string {
	var utils strings.Builder
	utils.WriteString("\"\"\"Dependency utilities.\"\"\"\n\nfrom typing import Any\n" + filler("python", 30))
	utils.WriteString(`

def solve_dependencies(request, dependant, dependency_cache=None):
    """Resolve the sub-dependencies of dependant, each once per request."""
    cache = dependency_cache if dependency_cache is not None else {}
    values = {}
    for sub in dependant.dependencies:
        key = (sub.call, tuple(sub.scopes))
        if sub.use_cache and key in cache:
            values[sub.name] = cache[key]  # cachedSubDependencyMarker
            continue
        solved = sub.call(request)
        cache[key] = solved
        values[sub.name] = solved
    return values, cache
`)
	utils.WriteString(strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"))

	page := func(intro string) string {
		var b strings.Builder
		b.WriteString("# " + intro + "\n\n")
		for i := range 6 {
			fmt.Fprintf(&b, "%s (%d)\n\n```python\nasync def common_parameters_%d(q: str | None = None):\n    return {\"q\": q}\n\n# sub-dependencies are resolved once: solve_dependencies caches each dependency\n# (use_cache=True) for the request, the dependency cache keyed by the call\nvalues, cache = solve_dependencies(request, dependant, dependency_cache)\n```\n\n", intro, i, i)
		}
		return b.String()
	}
	files := map[string]string{
		"pyproject.toml":                "[project]\nname = \"webfw\"\nversion = \"0.1.0\"\n",
		"webfw/__init__.py":             "\"\"\"A web framework.\"\"\"\n",
		"webfw/dependencies/utils.py":   utils.String(),
		"webfw/dependencies/models.py":  "\"\"\"Dependency models.\"\"\"\n\n\nclass Dependant:\n    def __init__(self, call, dependencies=None, use_cache=True):\n        self.call = call\n        self.dependencies = dependencies or []\n        self.use_cache = use_cache\n",
		"README.md":                     "# webfw\n\nA web framework with dependency injection: sub-dependencies are resolved and cached per request.\n\n" + page("Installation and dependency cache"),
		"README.zh-CN.md":               "# webfw\n\n一个带依赖注入的 Web 框架：子依赖在每个请求中解析并缓存。\n\n" + page("安装与依赖缓存"),
		"README.ja.md":                  "# webfw\n\n依存性注入を備えた Web フレームワーク：サブ依存関係はリクエストごとに解決されキャッシュされます。\n\n" + page("インストールと依存関係のキャッシュ"),
		"docs/en/docs/tutorial/deps.md": page("Sub-dependencies: resolving and caching dependencies"),
		"docs/es/docs/tutorial/deps.md": page("Sub-dependencias: resolver y cachear dependencies"),
		"docs/pt/docs/tutorial/deps.md": page("Subdependências: resolver e cachear dependencies"),
		"docs/zh/docs/tutorial/deps.md": page("子依赖项：解析与缓存依赖项 dependencies"),
		"docs/ja/docs/tutorial/deps.md": page("サブ依存関係：依存関係の解決とキャッシュ dependencies"),
		"docs/ko/docs/tutorial/deps.md": page("하위 의존성: 의존성 해결과 캐시 dependencies"),
		"docs/ru/docs/tutorial/deps.md": page("Подзависимости: разрешение и кэширование dependencies"),
	}
	return files
}

// TestTranslationsCountOnce: hand-written requests of issue 25's fifth
// failure class (five translations of one docs page took a fifth of the
// context while the dependency-resolution function stayed collapsed). At
// 8k tokens: the function's body is visible verbatim, a translated page is
// in the context at most once (in the request's language, else English),
// and the context is within its budget. A request about a translation
// still gets that translation.
func TestTranslationsCountOnce(t *testing.T) {
	files := translatedRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	const code = "webfw/dependencies/utils.py"
	english := []string{"README.md", "docs/en/docs/tutorial/deps.md"}
	tests := []struct {
		name    string
		request string
		// body: the function's marker line must be visible in code.
		body bool
		// keep: the versions of the translated pages that may be
		// included; want: paths that must be.
		keep []string
		want []string
	}{
		{name: "function named", request: "fix solve_dependencies: a cached sub-dependency is resolved twice", body: true, keep: english},
		{name: "words only", request: "cached sub-dependencies are resolved twice in the dependency cache", body: true, keep: english},
		{name: "request in Chinese", request: "修复 solve_dependencies：子依赖的缓存被解析了两次", body: true, keep: []string{"README.zh-CN.md", "docs/zh/docs/tutorial/deps.md"}},
		{name: "explain, docs may rise", request: "how does the dependency cache resolve sub-dependencies?", keep: english},
		{name: "about a Spanish page", request: "the Spanish sub-dependencies tutorial page says the cache is per app", keep: []string{"README.md", "docs/es/docs/tutorial/deps.md"}, want: []string{"docs/es/docs/tutorial/deps.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, code)
			if tt.body {
				if n := markerLine(files[code], "cachedSubDependencyMarker"); !visibleLine(got, files[code], n) {
					t.Errorf("%s at %q (%d tokens) hides solve_dependencies' line %d (task %s, elided %v); included %v", code, got.Truncation, got.Tokens, n, env.TaskType, got.Elided, order)
				}
			}
			versions := map[string][]string{} // page -> versions included
			var included []string
			for _, c := range env.Context.Chunks {
				included = append(included, c.Source)
				if tag, page := lang.Locale(c.Source); tag != "" || isTranslated(files, c.Source) {
					versions[page] = append(versions[page], c.Source)
					if !slices.Contains(tt.keep, c.Source) {
						t.Errorf("%s is included, not the version for this request (%v); included %v", c.Source, tt.keep, order)
					}
				}
			}
			for page, vs := range versions {
				if len(vs) > 1 {
					t.Errorf("page %s is included %d times: %v; included %v", page, len(vs), vs, order)
				}
			}
			for _, w := range tt.want {
				if !slices.Contains(included, w) {
					t.Errorf("%s is not included; included %v", w, order)
				}
			}
		})
	}
}

// isTranslated reports whether an untagged file has translations in files
// (README.md beside README.zh-CN.md).
func isTranslated(files map[string]string, rel string) bool {
	for p := range files {
		if tag, page := lang.Locale(p); tag != "" && page == rel {
			return true
		}
	}
	return false
}
