package gather

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
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
