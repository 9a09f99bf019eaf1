package gather

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// linksRepo builds a repository where the answers to its requests share
// no word with them: api/handler.go (matches "refund payment endpoint")
// imports store, whose ledger.go defines the name the handler calls;
// billing/charge.py (matches "charge card declined") changed together with
// audit/trail.py three times, and nothing imports trail.py. Noise files
// fill the tree; the first commit, which adds everything, is too big to
// count as co-change.
func linksRepo(t *testing.T) string {
	t.Helper()
	isolateGit(t)
	root := t.TempDir()
	gitInit(t, root)
	files := map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.22\n",
		"api/handler.go": "package api\n\nimport \"example.com/app/store\"\n\n// RefundPayment is the refund payment endpoint.\n" +
			"func RefundPayment(id string) int {\n\tl := store.OpenLedger()\n\t_ = l\n\treturn 200 // refund payment endpoint status\n}\n",
		"store/ledger.go":   "package store\n\n// Journal keeps balances.\ntype Journal struct{ rows []int }\n\n// OpenLedger opens the journal.\nfunc OpenLedger() *Journal { return &Journal{} }\n",
		"store/other.go":    "package store\n\nfunc unrelatedThing() int { return 1 }\n",
		"billing/charge.py": "\"\"\"Charges.\"\"\"\n\n\ndef charge_card(card):\n    \"\"\"Charge a card; a declined card raises.\"\"\"\n    raise ValueError(\"card declined\")\n",
		"audit/trail.py":    "\"\"\"Bookkeeping.\"\"\"\n\n\ndef record(entry):\n    return [entry]\n",
	}
	for i := range 40 {
		files[fmt.Sprintf("noise/n%02d.go", i)] = fmt.Sprintf("package noise\n\n// Widget%d spins gears.\nfunc Widget%d() int { return %d }\n", i, i, i)
	}
	testutil.WriteFiles(t, root, files)
	gitCommitAll(t, root, "initial import", "2024-01-01T10:00:00Z")
	for i := range 3 {
		testutil.WriteFiles(t, root, map[string]string{
			"billing/charge.py": files["billing/charge.py"] + strings.Repeat("\n# v\n", i+1),
			"audit/trail.py":    files["audit/trail.py"] + strings.Repeat("\n# v\n", i+1),
		})
		gitCommitAll(t, root, fmt.Sprintf("change %d", i), fmt.Sprintf("2024-01-0%dT10:00:00Z", i+2))
	}
	// A later commit pairs trail.py with a noise file once: less evidence.
	testutil.WriteFiles(t, root, map[string]string{"noise/n00.go": files["noise/n00.go"] + "\n", "noise/n01.go": files["noise/n01.go"] + "\n"})
	gitCommitAll(t, root, "noise", "2024-01-09T10:00:00Z")
	return root
}

func TestLinkSignals(t *testing.T) {
	root := linksRepo(t)
	w, err := NewWorkspace(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		name, request, seed, answer, reason string
		rank                                func(f ctxd.Facts) int
	}{
		{"imported by the seed", "the refund payment endpoint answers with a wrong status", "api/handler.go", "store/ledger.go",
			reasonGraph + " api/handler.go", func(f ctxd.Facts) int { return f.GraphRank }},
		{"changed with the seed", "charge card declined raises for a valid card", "billing/charge.py", "audit/trail.py",
			reasonCoChange, func(f ctxd.Facts) int { return f.CoChangeRank }},
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
			res, err := w.Gather(t.Context(), Request{Query: query.Parse(tt.request), Task: ctxd.TaskImplement, Depth: 1})
			if err != nil {
				t.Fatal(err)
			}
			var got *ctxd.Chunk
			for i := range res.Chunks {
				if res.Chunks[i].Source == tt.answer {
					got = &res.Chunks[i]
				}
			}
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
	root := linksRepo(t)
	w, err := NewWorkspace(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	graphOf := func() *linkGraph {
		t.Helper()
		if _, err := w.Gather(t.Context(), Request{Query: query.Parse("refund payment endpoint"), Task: ctxd.TaskImplement}); err != nil {
			t.Fatal(err)
		}
		w.snapMu.Lock()
		s := w.snap
		w.snapMu.Unlock()
		s.linksMu.Lock()
		defer s.linksMu.Unlock()
		return s.linkG
	}
	g1 := graphOf()
	if g1 == nil || g1.g.EdgeCount() == 0 {
		t.Fatalf("no graph built: %v", g1)
	}
	if g2 := graphOf(); g2 != g1 {
		t.Error("unchanged tree rebuilt the graph")
	}
	writeFile(t, root, "store/new.go", "package store\n\nfunc Fresh() {}\n")
	if g3 := graphOf(); g3 == g1 {
		t.Error("changed tree reused the old graph")
	}
}

// BenchmarkLinkGraph builds the import and reference graph of a tree
// (GOROOT/src, or CTXD_BENCH_TREE) from its index, the cost a cold request
// pays once per snapshot; it reports the edges and the graph's bytes.
//
//	go test -run '^$' -bench LinkGraph -count 5 ./gather
//	CTXD_BENCH_TREE=/work/data/ctxd-scale/stdlib-100k go test -run '^$' -bench LinkGraph -count 3 ./gather
func BenchmarkLinkGraph(b *testing.B) {
	s := benchTreeSnapshot(b)
	var lg *linkGraph
	for b.Loop() {
		s.linksMu.Lock()
		s.linkG = nil
		s.linksMu.Unlock()
		lg = s.links(b.Context(), nil)
	}
	b.ReportMetric(float64(lg.g.EdgeCount()), "edges")
	b.ReportMetric(float64(lg.g.Bytes()), "graph-bytes")
	b.ReportMetric(float64(len(s.files)), "files")
}

// BenchmarkPageRank walks the GOROOT graph from the best lexical matches
// of a request (warm: the graph is built).
func BenchmarkPageRank(b *testing.B) {
	src := gorootSrc(b)
	s := benchSnapshot(b, src)
	lg := s.links(b.Context(), nil)
	seeds := map[int32]float64{}
	for _, h := range s.index.Rank(gorootRequest.Query, 10) {
		if i, ok := s.fileIndex(h.Path); ok {
			seeds[i] = 1
		}
	}
	for b.Loop() {
		lg.g.PageRank(seeds, Links.Restart, 0)
	}
}

func TestParseNameLog(t *testing.T) {
	tests := []struct {
		name string
		out  string
		cut  bool
		want [][]string
	}{
		{"commits", "\x01p2\n\na.go\nb.go\n\x01p1\n\nc.go\n", false, [][]string{{"a.go", "b.go"}, {"c.go"}}},
		{"root commit dropped", "\x01p1\n\na.go\n\x01\n\nb.go\nc.go\n", false, [][]string{{"a.go"}}},
		{"cut last commit dropped", "\x01p2\n\na.go\nb.go\n\x01p1\n\nc.", true, [][]string{{"a.go", "b.go"}}},
		{"empty", "", false, nil},
		{"no files", "\x01p1\n\n", false, [][]string{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseNameLog([]byte(tt.out), tt.cut)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("parseNameLog = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzParseNameLog(f *testing.F) {
	f.Add([]byte("\x01p2\n\na.go\nb.go\n\x01p1\n\nc.go\n"), false)
	f.Add([]byte("\x01\n\nb.go\n"), true)
	f.Fuzz(func(t *testing.T, out []byte, cut bool) {
		for _, c := range parseNameLog(out, cut) {
			for _, p := range c {
				if p == "" || strings.ContainsAny(p, "\n\x01") {
					t.Fatalf("bad path %q", p)
				}
			}
		}
	})
}

// TestCoChangeSkipsConfigNoise: files of no language (.editorconfig,
// .gitignore) that changed with the request's file more often than its
// real partner are not pulled in by co-change; the partner still is.
func TestCoChangeSkipsConfigNoise(t *testing.T) {
	root := linksRepo(t)
	for i := range 4 {
		testutil.WriteFiles(t, root, map[string]string{
			"billing/charge.py": "\"\"\"Charges.\"\"\"\n\n\ndef charge_card(card):\n    \"\"\"Charge a card; a declined card raises.\"\"\"\n    raise ValueError(\"card declined\")\n" + strings.Repeat("\n# w\n", i+1),
			".editorconfig":     "root = true\n" + strings.Repeat("[*]\n", i+1),
			".gitignore":        "*.pyc\n" + strings.Repeat("build/\n", i+1),
		})
		gitCommitAll(t, root, fmt.Sprintf("tidy %d", i), fmt.Sprintf("2024-02-0%dT10:00:00Z", i+1))
	}
	w, err := NewWorkspace(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, err := w.Gather(t.Context(), Request{Query: query.Parse("charge card declined raises for a valid card"), Task: ctxd.TaskDebug, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	partner := false
	for _, c := range res.Chunks {
		switch {
		case c.Source == ".editorconfig" || c.Source == ".gitignore":
			if c.Facts.CoChangeRank > 0 || containsPrefix(c.Facts.Reasons, reasonCoChange) {
				t.Errorf("%s pulled in by co-change: rank %d, reasons %q", c.Source, c.Facts.CoChangeRank, c.Facts.Reasons)
			}
		case c.Source == "audit/trail.py":
			partner = containsPrefix(c.Facts.Reasons, reasonCoChange)
		}
	}
	if !partner {
		t.Errorf("audit/trail.py not gathered as changed together with charge.py; chunks %v", sources(res))
	}
}
