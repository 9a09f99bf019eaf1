package gather

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

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
	w := newTestWorkspace(t, root, tree.Options{})
	for _, tt := range []struct {
		request  string
		maxDocs  int
		wantCode int
	}{
		{"fix the dependency cache: sub-dependencies are resolved twice per request", maxDocMatches, 6},
		{"how does the dependency cache resolve sub-dependencies per request?", 8, 0},
	} {
		q := query.Parse(tt.request)
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Query: q, Depth: 6})
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

// TestLocaleCopiesTakeNoCodePlaces: copies of a module per language
// (conf/locale/<lang>/formats.py) and gettext catalogues that repeat the
// request's words more than the code count once: one formats.py (English
// for an English request), no catalogue in another language, and for a
// code task no catalogue takes a code file's place; a request about
// translations gathers them.
func TestLocaleCopiesTakeNoCodePlaces(t *testing.T) {
	files := map[string]string{
		"web/db/deletion.py": "class Collector:\n    def delete(self):\n        \"\"\"Return the result: the number of deleted objects and a dict.\"\"\"\n        return sum(self.counts.values()), dict(self.counts)\n",
		"web/db/query.py":    "class QuerySet:\n    def delete(self):\n        \"\"\"Delete the objects; return the deleted count.\"\"\"\n        return Collector().delete()\n",
		"web/domains/std.py": "def make_option(desc):\n    logger.warning(__('Malformed option description %r, should look like \"opt\"'), desc)\n",
		"web/locale/web.pot": "msgid \"Malformed option description %r, should look like \\\"opt\\\"\"\nmsgstr \"\"\n",
	}
	for _, l := range []string{"en", "de", "fr", "it", "ja", "pt_BR", "ru"} {
		// Each says "result", "format", "deleted", "objects" and the
		// message more often than the code does.
		files["web/conf/locale/"+l+"/formats.py"] = strings.Repeat("# The result format of deleted objects counts, per locale.\n", 6) + "DATE_FORMAT = 'j F Y'\n"
		files["web/locale/"+l+"/LC_MESSAGES/web.po"] = strings.Repeat("# The deleted objects result format.\nmsgid \"Malformed option description %r, should look like \\\"opt\\\"\"\nmsgstr \"option\"\n", 4)
	}
	w := workspaceOf(t, files)
	formats := func(p string) bool { return strings.HasSuffix(p, "/formats.py") }
	catalogue := func(p string) bool { return strings.Contains(p, "LC_MESSAGES/") || strings.HasSuffix(p, ".pot") }
	tests := []struct {
		request           string
		code              []string
		maxFormats        int
		maxCatalogues     int
		foreignCatalogues bool // a catalogue in another language than English may come
	}{
		{"QuerySet.delete: the result format is inconsistent when zero objects are deleted", []string{"web/db/deletion.py", "web/db/query.py"}, 1, maxDocMatches, false},
		{"the \"Malformed option description\" warning is wrong for [enable=]PATTERN", []string{"web/domains/std.py"}, 1, maxDocMatches, false},
		{"update the translations of \"Malformed option description\" in every locale", nil, 7, 8, true},
	}
	for _, tt := range tests {
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Query: query.Parse(tt.request), Depth: 6})
		got := sources(res)
		nf, nc := 0, 0
		for _, p := range got {
			switch {
			case formats(p):
				nf++
				if !strings.Contains(p, "/en/") && !tt.foreignCatalogues {
					t.Errorf("%q: %s gathered (not the English copy)", tt.request, p)
				}
			case catalogue(p):
				nc++
				if !strings.Contains(p, "/en/") && !strings.HasSuffix(p, ".pot") && !tt.foreignCatalogues {
					t.Errorf("%q: %s gathered (a catalogue in another language)", tt.request, p)
				}
			}
		}
		for _, p := range tt.code {
			if !slices.Contains(got, p) {
				t.Errorf("%q: %s not gathered; got %q", tt.request, p, got)
			}
		}
		if nf > tt.maxFormats || nc > tt.maxCatalogues {
			t.Errorf("%q: %d copies of formats.py (at most %d), %d catalogues (at most %d); got %q", tt.request, nf, tt.maxFormats, nc, tt.maxCatalogues, got)
		}
		if tt.foreignCatalogues && nc < 3 {
			t.Errorf("%q: a request about translations gathered %d catalogues; got %q", tt.request, nc, got)
		}
	}
}

// TestTestsTakeNoCodePlaces: for a request that is not about tests, the
// tests that repeat the request's words more than the code are gathered
// by those words at most maxTestMatches times; one past them keeps its
// lexical place, so the code ranked below the tests does not come in
// their stead (measured: it took the tokens of the answers above it);
// from a context of compress.RoomyBudget tokens or an unknown one. A request
// about tests still gathers them.
func TestTestsTakeNoCodePlaces(t *testing.T) {
	files := map[string]string{
		// The best code match (a target) in its own folder.
		"lib/session.py": "def refresh(token):\n    \"\"\"Refresh an expired session token.\"\"\"\n    return renew(token)\n\n\ndef renew(token):\n    return token + 1\n\n\ndef close(s):\n    s.done = True\n",
	}
	for i := range 3 {
		// Code that says some of the words, ranked past the tests.
		files[fmt.Sprintf("app/util%d.py", i)] = fmt.Sprintf("def helper_%d(x):\n    \"\"\"Refresh the expired session token of the cache.\"\"\"\n    return x\n", i)
	}
	for i := range 6 {
		// Each test says the request's words more often than any code.
		files[fmt.Sprintf("tests/test_case%d.py", i)] = strings.Repeat("def test_refresh_expired_session_token():\n    assert refresh(expired_session_token())\n", 2+i%2)
	}
	w := workspaceOf(t, files)
	isTest := func(c *ctxd.Chunk) bool { return strings.HasPrefix(c.Source, "tests/") }
	for _, tt := range []struct {
		request  string
		budget   int
		maxTests int
		minTests int
		want     []string
		notWant  []string
	}{
		{"refresh an expired session token", 0, maxTestMatches, 1, []string{"lib/session.py"}, []string{"app/util0.py", "app/util1.py", "app/util2.py"}},
		{"refresh an expired session token", compress.RoomyBudget, maxTestMatches, 1, []string{"lib/session.py"}, []string{"app/util0.py", "app/util1.py", "app/util2.py"}},
		// Below compress.RoomyBudget the tests take the places as before.
		{"refresh an expired session token", 4733, 4, 4, []string{"lib/session.py"}, nil},
		{"add tests: refresh an expired session token", 0, 6, 3, nil, nil},
	} {
		res := gather(t, w, Request{Task: ctxd.TaskImplement, Query: query.Parse(tt.request), Depth: 4, ContextBudget: tt.budget})
		got := sources(res)
		tests := sourcesWhere(res, isTest)
		if len(tests) > tt.maxTests || len(tests) < tt.minTests {
			t.Errorf("%q at %d: %d tests gathered (%d-%d); got %q", tt.request, tt.budget, len(tests), tt.minTests, tt.maxTests, got)
		}
		for _, p := range tt.want {
			if !slices.Contains(got, p) {
				t.Errorf("%q: %s not gathered; got %q", tt.request, p, got)
			}
		}
		for _, p := range tt.notWant {
			if slices.Contains(got, p) {
				t.Errorf("%q: %s gathered in a test's place; got %q", tt.request, p, got)
			}
		}
	}
}
