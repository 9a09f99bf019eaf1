package gather

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// TestRankVersionsOnce: the ranking counts a page in several languages
// once, in the request's language, else the original, else English; a
// request about translations ranks every version; a folder named like a
// language whose page exists once (ca/ of certificates) is no translation.
func TestRankVersionsOnce(t *testing.T) {
	page := []byte("# Caching dependencies\n\nsolve_dependencies caches each sub-dependency per request.\n")
	ix := NewIndex(map[string][]byte{
		"docs/en/docs/deps.md":      page,
		"docs/zh/docs/deps.md":      append([]byte("依赖缓存\n"), page...),
		"docs/zh-hant/docs/deps.md": page,
		"docs/es/docs/deps.md":      page,
		"docs/ja/docs/only.md":      page, // one version: no translation
		"docs/ko/docs/only2.md":     page,
		"README.md":                 page,
		"README.zh-CN.md":           page,
		"certs/ca/deps.md":          page, // "ca" is a language, but nothing else holds the page
		"app/deps.py":               []byte("def solve_dependencies(request):\n    \"\"\"Caches each sub-dependency.\"\"\"\n"),
	})
	tests := []struct {
		request string
		want    []string // the hits, in path order
	}{
		{"how are sub-dependencies cached?", []string{"README.md", "app/deps.py", "certs/ca/deps.md", "docs/en/docs/deps.md", "docs/ja/docs/only.md", "docs/ko/docs/only2.md"}},
		{"子依赖 sub-dependencies 是如何缓存的？", []string{"README.zh-CN.md", "app/deps.py", "certs/ca/deps.md", "docs/ja/docs/only.md", "docs/ko/docs/only2.md", "docs/zh/docs/deps.md"}},
		{"the Spanish page on caching sub-dependencies", []string{"README.md", "app/deps.py", "certs/ca/deps.md", "docs/es/docs/deps.md", "docs/ja/docs/only.md", "docs/ko/docs/only2.md"}},
		{"translate the sub-dependencies caching page", []string{"README.md", "README.zh-CN.md", "app/deps.py", "certs/ca/deps.md", "docs/en/docs/deps.md", "docs/es/docs/deps.md", "docs/ja/docs/only.md", "docs/ko/docs/only2.md", "docs/zh-hant/docs/deps.md", "docs/zh/docs/deps.md"}},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range ix.Rank(query.Parse(tt.request), 0) {
			got = append(got, h.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Rank(%q) = %q, want %q", tt.request, got, tt.want)
		}
	}
}

// TestDocsTakeNoCodePlaces: for a code task, documentation that matches
// the request better than the code takes none of the code's lexical
// places (at most maxDocMatches docs beside Depth code files); an
// explanation counts docs as any match.
func TestDocsTakeNoCodePlaces(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 8 {
		// Each page says the request's words more often than any code.
		files[fmt.Sprintf("docs/guide/cache%d.md", i)] = strings.Repeat("The dependency cache resolves sub-dependencies once per request.\n", 12)
	}
	for i := range 6 {
		files[fmt.Sprintf("app/dep%d.py", i)] = fmt.Sprintf("def resolve_%d(request, cache):\n    \"\"\"Resolve a dependency from the cache.\"\"\"\n    return cache.get(request)\n", i)
	}
	testutil.WriteFiles(t, root, files)
	w := newTestWorkspace(t, root, Options{})
	for _, tt := range []struct {
		request  string
		maxDocs  int
		wantCode int
	}{
		{"fix the dependency cache: sub-dependencies are resolved twice per request", maxDocMatches, 6},
		{"how does the dependency cache resolve sub-dependencies per request?", 8, 0},
	} {
		q := query.Parse(tt.request)
		res, err := w.Gather(t.Context(), Request{Task: ctxd.TaskImplement, Query: q, Depth: 6})
		if err != nil {
			t.Fatal(err)
		}
		docs, code := 0, 0
		for _, c := range res.Chunks {
			switch {
			case strings.HasPrefix(c.Source, "docs/"):
				docs++
			case strings.HasPrefix(c.Source, "app/"):
				code++
			}
		}
		if docs > tt.maxDocs || code < tt.wantCode {
			t.Errorf("%q: %d docs (at most %d), %d code files (at least %d)", tt.request, docs, tt.maxDocs, code, tt.wantCode)
		}
	}
}
