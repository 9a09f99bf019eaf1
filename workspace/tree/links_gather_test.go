package tree_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

func TestLinkSignals(t *testing.T) {
	root := tree.LinksRepo(t)
	w := tree.NewTestWorkspace(t, root, tree.Options{})
	tests := []struct {
		name, request, seed, answer, reason string
		rank                                func(f ctxd.Facts) int
	}{
		{"imported by the seed", "the refund payment endpoint answers with a wrong status", "api/handler.go", "store/ledger.go",
			"linked to" + " api/handler.go", func(f ctxd.Facts) int { return f.GraphRank }},
		{"changed with the seed", "charge card declined raises for a valid card", "billing/charge.py", "audit/trail.py",
			"changed together with", func(f ctxd.Facts) int { return f.CoChangeRank }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The answer shares no word with the request.
			hits, err := w.Rank(t.Context(), query.Parse(tt.request), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) == 0 || hits[0].Path != tt.seed {
				t.Fatalf("lexical hits %v: want %s first", hits, tt.seed)
			}
			for _, h := range hits {
				if h.Path == tt.answer {
					t.Fatalf("%s matches the request lexically; the test needs it not to", tt.answer)
				}
			}
			res := gatherOf(t, w, gather.Request{Query: query.Parse(tt.request), Task: ctxd.TaskImplement, Depth: 1})
			got := chunk(res, tt.answer)
			if got == nil {
				t.Fatalf("%s not gathered; chunks %v", tt.answer, sources(res))
			}
			if !containsPrefix(got.Facts.Reasons, tt.reason) {
				t.Errorf("reasons %q, want one starting %q", got.Facts.Reasons, tt.reason)
			}
			if r := tt.rank(got.Facts); r < 1 || r > 3 {
				t.Errorf("rank %d, want 1..3", r)
			}
			// An unrelated file is not reached.
			for _, c := range res.Chunks {
				if strings.HasPrefix(c.Source, "noise/n1") && (c.Facts.GraphRank > 0 || c.Facts.CoChangeRank > 0) {
					t.Errorf("unrelated %s got graph %d co-change %d", c.Source, c.Facts.GraphRank, c.Facts.CoChangeRank)
				}
			}
		})
	}
}

// TestLinkGraphCached: a second request on an unchanged tree reuses the
// snapshot's graph; a change builds a new one.
func TestLinkGraphCached(t *testing.T) {
	root := tree.LinksRepo(t)
	w := tree.NewTestWorkspace(t, root, tree.Options{})
	graphOf := func() *tree.LinkGraph {
		t.Helper()
		if _, err := gather.Gather(t.Context(), w, gather.Request{Query: query.Parse("refund payment endpoint"), Task: ctxd.TaskImplement}); err != nil {
			t.Fatal(err)
		}
		return tree.BuiltLinks(tree.Current(w))
	}
	g1 := graphOf()
	if g1 == nil || g1.Graph.EdgeCount() == 0 {
		t.Fatalf("no graph built: %v", g1)
	}
	if g2 := graphOf(); g2 != g1 {
		t.Error("unchanged tree rebuilt the graph")
	}
	tree.WriteFile(t, root, "store/new.go", "package store\n\nfunc Fresh() {}\n")
	if g3 := graphOf(); g3 == g1 {
		t.Error("changed tree reused the old graph")
	}
}

// TestCoChangeSkipsConfigNoise: files of no language (.editorconfig,
// .gitignore) that changed with the request's file more often than its
// real partner are not pulled in by co-change; the partner still is.
func TestCoChangeSkipsConfigNoise(t *testing.T) {
	root := tree.LinksRepo(t)
	for i := range 4 {
		testutil.WriteFiles(t, root, map[string]string{
			"billing/charge.py": "\"\"\"Charges.\"\"\"\n\n\ndef charge_card(card):\n    \"\"\"Charge a card; a declined card raises.\"\"\"\n    raise ValueError(\"card declined\")\n" + strings.Repeat("\n# w\n", i+1),
			".editorconfig":     "root = true\n" + strings.Repeat("[*]\n", i+1),
			".gitignore":        "*.pyc\n" + strings.Repeat("build/\n", i+1),
		})
		tree.GitCommitAll(t, root, fmt.Sprintf("tidy %d", i), fmt.Sprintf("2024-02-0%dT10:00:00Z", i+1))
	}
	w := tree.NewTestWorkspace(t, root, tree.Options{})
	res := gatherOf(t, w, gather.Request{Query: query.Parse("charge card declined raises for a valid card"), Task: ctxd.TaskDebug, Depth: 1})
	partner := false
	for _, c := range res.Chunks {
		switch {
		case c.Source == ".editorconfig" || c.Source == ".gitignore":
			if c.Facts.CoChangeRank > 0 || containsPrefix(c.Facts.Reasons, "changed together with") {
				t.Errorf("%s pulled in by co-change: rank %d, reasons %q", c.Source, c.Facts.CoChangeRank, c.Facts.Reasons)
			}
		case c.Source == "audit/trail.py":
			partner = containsPrefix(c.Facts.Reasons, "changed together with")
		}
	}
	if !partner {
		t.Errorf("audit/trail.py not gathered as changed together with charge.py; chunks %v", sources(res))
	}
}

// containsPrefix reports a string of ss starting with prefix.
func containsPrefix(ss []string, prefix string) bool {
	return slices.ContainsFunc(ss, func(s string) bool { return strings.HasPrefix(s, prefix) })
}
