package tree

import (
	"slices"
	"testing"

	"github.com/ctxd/ctxd/query"
)

// TestRankVersionsOnce: the ranking counts a page in several languages
// once, in the request's language, else the original, else English; a
// request about translations ranks every version; a folder named like a
// language whose page exists once (ca/ of certificates) is no translation.
func TestRankVersionsOnce(t *testing.T) {
	page := []byte("# Caching dependencies\n\nsolve_dependencies caches each sub-dependency per request.\n")
	ix := newTextIndex(map[string][]byte{
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
