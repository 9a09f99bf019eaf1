package tree

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/benchreq"
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
	root := testutil.IsolatedRepo(t)
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

// BenchmarkLinkGraph builds the import and reference graph of a tree
// (GOROOT/src, or CTXD_BENCH_TREE) from its index, the cost a cold request
// pays once per snapshot; it reports the edges and the graph's bytes.
//
//	go test -run '^$' -bench LinkGraph -count 5 ./gather
//	CTXD_BENCH_TREE=/work/data/ctxd-scale/stdlib-100k go test -run '^$' -bench LinkGraph -count 3 ./gather
func BenchmarkLinkGraph(b *testing.B) {
	s := benchTreeSnapshot(b)
	var lg *LinkGraph
	for b.Loop() {
		s.linksMu.Lock()
		s.linkG = nil
		s.linksMu.Unlock()
		lg = s.Links(b.Context(), nil)
	}
	b.ReportMetric(float64(lg.Graph.EdgeCount()), "edges")
	b.ReportMetric(float64(lg.Graph.Bytes()), "graph-bytes")
	b.ReportMetric(float64(len(s.Files)), "files")
}

// BenchmarkPageRank walks the GOROOT graph from the best lexical matches
// of a request (warm: the graph is built).
func BenchmarkPageRank(b *testing.B) {
	src := testutil.GOROOTSrc(b)
	s := treeSnapshot(b, src)
	lg := s.Links(b.Context(), nil)
	seeds := map[int32]float64{}
	for _, h := range s.Index.Rank(query.Parse(benchreq.GorootTrace), 10) {
		if i, ok := s.FileIndex(h.Path); ok {
			seeds[i] = 1
		}
	}
	for b.Loop() {
		lg.Graph.PageRank(seeds, DefaultLinks().Restart, 0)
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
			got, _ := parseLog([]byte(tt.out), tt.cut)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("parseLog = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzParseNameLog(f *testing.F) {
	f.Add([]byte("\x01p2\n\na.go\nb.go\n\x01p1\n\nc.go\n"), false)
	f.Add([]byte("\x01\n\nb.go\n"), true)
	f.Add([]byte("\x01p2\x02fix(css): keep the order\n\na.go\n\x01p1\x02feat: \x02x\n\nc.go\n"), false)
	f.Fuzz(func(t *testing.T, out []byte, cut bool) {
		commits, subjects := parseLog(out, cut)
		if len(commits) != len(subjects) {
			t.Fatalf("%d commits, %d subjects", len(commits), len(subjects))
		}
		for i, c := range commits {
			if strings.ContainsAny(subjects[i], "\n\x01") {
				t.Fatalf("bad subject %q", subjects[i])
			}
			for _, p := range c {
				if p == "" || strings.ContainsAny(p, "\n\x01") {
					t.Fatalf("bad path %q", p)
				}
			}
		}
		// The messages built from any log rank without failing, every
		// file ranked once and from the log.
		m := NewMessages(subjects, commits)
		seen := map[string]bool{}
		for _, s := range m.Rank(TermsOf(subjectWords(string(out))), 0, nil) {
			if seen[s.Path] || s.Score <= 0 {
				t.Fatalf("ranked %q twice or at %v", s.Path, s.Score)
			}
			seen[s.Path] = true
		}
	})
}
