package tree

import (
	"slices"
	"strings"
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
		checkRankedPaths(t, ix, tt.request, tt.want)
	}
}

// TestRankCopiesOnce: copies of a code file per locale (django's
// conf/locale/<lang>/formats.py) and gettext catalogues count once, like a
// translated page; a catalogue ranks as documentation below the code that
// holds its message unless the request is about translations; two
// folders named like languages holding one file are not copies.
func TestRankCopiesOnce(t *testing.T) {
	formats := []byte("# The date result format of this locale.\nDATE_FORMAT = 'j F Y'\nRESULT_FORMAT = 'N j, Y'\n")
	catalogue := []byte("msgid \"Malformed option description %r, should look like opt\"\nmsgstr \"\"\n")
	ix := newTextIndex(map[string][]byte{
		"app/conf/locale/en/formats.py":             formats,
		"app/conf/locale/de/formats.py":             formats,
		"app/conf/locale/fr/formats.py":             formats,
		"app/conf/locale/pt_BR/formats.py":          formats,
		"app/conf/locale/__init__.py":               []byte("LANG_INFO = {}\n"),
		"app/models/deletion.py":                    []byte("def delete(objs):\n    \"\"\"Return the result format: a count and a dict.\"\"\"\n    return 0, {}\n"),
		"app/locale/de/LC_MESSAGES/app.po":          catalogue,
		"app/locale/fr/LC_MESSAGES/app.po":          catalogue,
		"app/locale/ca@valencia/LC_MESSAGES/app.po": catalogue,
		"app/locale/en_GB/LC_MESSAGES/app.po":       catalogue,
		"app/locale/app.pot":                        catalogue,
		"app/domains/std.py":                        []byte("def make_option(desc):\n    logger.warning(__('Malformed option description %r, should look like opt'), desc)\n"),
		"src/es/option.js":                          []byte("export const malformed = 'option description';\n"),
		"src/it/option.js":                          []byte("export const malformed = 'option description';\n"),
	})
	tests := []struct {
		request string
		want    []string // the hits, best first
	}{
		{"the result format of delete is inconsistent", []string{"app/models/deletion.py", "app/conf/locale/en/formats.py"}},
		{"the German date result format", []string{"app/conf/locale/de/formats.py", "app/models/deletion.py"}},
		// The code first, the catalogue kept and the template after it
		// (as documentation), no other language's catalogue; two
		// coincidental "language" folders both stay.
		{"Malformed option description warning", []string{"app/domains/std.py", "src/es/option.js", "src/it/option.js", "app/locale/app.pot", "app/locale/en_GB/LC_MESSAGES/app.po"}},
		{"translate the malformed option description", []string{"app/domains/std.py", "app/locale/app.pot", "app/locale/ca@valencia/LC_MESSAGES/app.po", "app/locale/de/LC_MESSAGES/app.po", "app/locale/en_GB/LC_MESSAGES/app.po", "app/locale/fr/LC_MESSAGES/app.po", "src/es/option.js", "src/it/option.js"}},
	}
	for _, tt := range tests {
		hits := ix.Rank(query.Parse(tt.request), 0)
		var got []string
		about := strings.HasPrefix(tt.request, "translate")
		for _, h := range hits {
			got = append(got, h.Path)
			if cat := strings.Contains(h.Path, ".po"); cat && (h.Match.Role == "doc") == about {
				t.Errorf("Rank(%q): catalogue %s ranked as %s", tt.request, h.Path, h.Match.Role)
			}
		}
		if about {
			slices.Sort(got) // every version, as code: no order asked
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Rank(%q) = %q, want %q", tt.request, got, tt.want)
		}
	}
}

// TestRankVersionCopiesOnce: copies of an example per Python version
// (fastapi's docs_src/<topic>/tutorial001.py, tutorial001_py310.py,
// tutorial001_an_py39.py, ...) count once, as the original, else the newest
// version without Annotated; a request in another language keeps the
// same copy; a file with a version tail and no other version is itself.
func TestRankVersionCopiesOnce(t *testing.T) {
	example := []byte("from webfw import Query\n\n\nasync def read_items(q: str = Query(alias=\"item-query\")):\n    return {\"q\": q}\n")
	ix := newTextIndex(map[string][]byte{
		"docs_src/query/tutorial001.py":          example,
		"docs_src/query/tutorial001_py39.py":     example,
		"docs_src/query/tutorial001_py310.py":    example,
		"docs_src/query/tutorial001_an.py":       example,
		"docs_src/query/tutorial001_an_py39.py":  example,
		"docs_src/query/tutorial001_an_py310.py": example,
		"docs_src/query/tutorial002_py310.py":    example,
		"docs_src/query/tutorial002_an_py310.py": example,
		"docs_src/query/tutorial002_an_py39.py":  example,
		"docs_src/query/tutorial003_an_py310.py": example, // one version: itself
		"docs_src/files/tutorial001_an_py310.py": example, // two versions
		"docs_src/files/tutorial001_py310.py":    example,
		"webfw/params.py":                        []byte("class Query:\n    def __init__(self, alias=None):\n        self.alias = alias  # the query alias\n"),
	})
	tests := []struct {
		request string
		want    []string // the hits, in path order
	}{
		{"the query alias item-query is ignored", []string{"docs_src/files/tutorial001_py310.py", "docs_src/query/tutorial001.py", "docs_src/query/tutorial002_py310.py", "docs_src/query/tutorial003_an_py310.py", "webfw/params.py"}},
		{"查询参数 query alias item-query 被忽略", []string{"docs_src/files/tutorial001_py310.py", "docs_src/query/tutorial001.py", "docs_src/query/tutorial002_py310.py", "docs_src/query/tutorial003_an_py310.py", "webfw/params.py"}},
	}
	for _, tt := range tests {
		checkRankedPaths(t, ix, tt.request, tt.want)
	}
}

// TestVersionTailOnTestsIsNoCopy: a test file named for a Python version
// (fastapi's tests/test_stringified_annotation_dependency_py314.py beside
// tests/test_stringified_annotation_dependency.py, a test.py beside
// test_py310.py at the root) is a test of what that version does, not a
// copy of the other: both rank, and gathering does not leave either out.
func TestVersionTailOnTestsIsNoCopy(t *testing.T) {
	ix := newTextIndex(map[string][]byte{
		"tests/test_stringified_dependency.py":       []byte("from __future__ import annotations\n\n\ndef test_stringified_dependency():\n    assert get_people_dependency() == ['John']\n"),
		"tests/test_stringified_dependency_py314.py": []byte("from .utils import needs_py314\n\n\n@needs_py314\ndef test_stringified_dependency_py314():\n    assert get_people_dependency() == ['Jane']\n"),
		"test.py":       []byte("def test_people_dependency():\n    assert get_people_dependency()\n"),
		"test_py310.py": []byte("def test_people_dependency_match():\n    match get_people_dependency():\n        case _: pass\n"),
		"app/people.py": []byte("def get_people_dependency():\n    return ['John']\n"),
	})
	r := ix.Ranking(NewRankQuery(query.Parse("get_people_dependency stringified test fails"), true), 0, nil)
	var got []string
	for _, h := range r.Hits {
		got = append(got, h.Path)
	}
	slices.Sort(got)
	want := []string{"app/people.py", "test.py", "test_py310.py", "tests/test_stringified_dependency.py", "tests/test_stringified_dependency_py314.py"}
	if !slices.Equal(got, want) {
		t.Errorf("hits %q, want %q", got, want)
	}
	for _, p := range want {
		if r.LeftOut(p) {
			t.Errorf("%s left out as another version", p)
		}
	}
}

// checkRankedPaths checks the paths ix ranks for request, in path order,
// against want.
func checkRankedPaths(t *testing.T, ix *Index, request string, want []string) {
	t.Helper()
	var got []string
	for _, h := range ix.Rank(query.Parse(request), 0) {
		got = append(got, h.Path)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Rank(%q) = %q, want %q", request, got, want)
	}
}
