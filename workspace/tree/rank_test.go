package tree

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/query"
)

// rankDocAtATime is the ranking as it was before postings carried the
// fields' counts: every candidate's bags searched for every query term. It
// is the reference the postings-driven rank must equal, score for score.
func rankDocAtATime(ix *Index, q RankQuery, limit int, keep func(string) bool) []Hit {
	qt := q.terms
	if len(qt) == 0 || len(ix.docs) == 0 {
		return nil
	}
	n := float64(len(ix.docs))
	idfP, idfB, idfD := make([]float64, len(qt)), make([]float64, len(qt)), make([]float64, len(qt))
	seen := map[int]bool{}
	var cand []int
	for i, h := range qt {
		var dfp, dfb, dfd float64
		for k, d := range ix.docs {
			if d.name.count(h) == 0 && d.content.count(h) == 0 && d.defs.count(h) == 0 {
				continue
			}
			if !seen[k] {
				seen[k] = true
				cand = append(cand, k)
			}
			if d.name.count(h) > 0 {
				dfp++
			}
			if d.content.count(h) > 0 {
				dfb++
			}
			if d.defs.count(h) > 0 {
				dfd++
			}
		}
		idfP[i] = math.Sqrt(math.Log(1+(n-dfp+0.5)/(dfp+0.5)) * math.Log(1+(n-max(dfp, dfb)+0.5)/(max(dfp, dfb)+0.5)))
		idfB[i] = math.Log(1 + (n-dfb+0.5)/(dfb+0.5))
		idfD[i] = math.Sqrt(math.Log(1+(n-dfd+0.5)/(dfd+0.5)) * math.Log(1+(n-max(dfd, dfb)+0.5)/(max(dfd, dfb)+0.5)))
	}
	var ref float64
	for i := range qt {
		ref += idfB[i]
	}
	priors := &codePriors
	if q.explain {
		priors = &explainPriors
	}
	var hits []Hit
	for _, k := range cand {
		d := ix.docs[k]
		if keep != nil && !keep(d.path) {
			continue
		}
		var sp, sc, sd float64
		lp := float64(d.name.n) / ix.avgPath
		lb := float64(d.content.n) / ix.avgBody
		ld := float64(d.defs.n) / ix.avgDefs
		for i, h := range qt {
			if tf := float64(d.name.count(h)); tf > 0 {
				sp += pathWeight * idfP[i] * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*lp))
			}
			if tf := float64(d.content.count(h)); tf > 0 {
				sc += idfB[i] * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*lb))
			}
			if tf := float64(d.defs.count(h)); tf > 0 {
				sd += defWeight * idfD[i] * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25BDefs+bm25BDefs*ld))
			}
		}
		s := sp + sc + sd
		if s <= 0 {
			continue
		}
		share := func(v float64) float64 { return math.Round(v/s*1000) / 1000 }
		m := ctxd.LexicalMatch{Path: share(sp), Content: share(sc), Definitions: share(sd), Role: d.role.String(), Prior: priors[d.role]}
		s *= priors[d.role]
		if d.test && !q.aboutTests {
			s *= testPenalty
		}
		hits = append(hits, Hit{Path: d.path, Score: s, Relevance: math.Min(1, s/ref), Match: m})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Path < hits[j].Path
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// TestRankMatchesDocAtATime checks that ranking from postings gives exactly
// the scores, shares, order and ties of scoring each candidate's bags, on
// ctxd's own sources (several languages, docs, tests), with and without a
// filter and a limit, twice (the second time from cached postings).
func TestRankMatchesDocAtATime(t *testing.T) {
	files := map[string][]byte{}
	root := filepath.Join("..", "..") // the module
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || len(files) >= 600 {
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".ts", ".lua", ".json", ".sh":
			if b, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(root, p)
				files[filepath.ToSlash(rel)] = b
			}
		}
		return nil
	})
	// Twins: equal bags at other paths tie on content and differ by path.
	files["copy/a/lexical.go"] = files["workspace/tree/lexical.go"]
	files["copy/b/lexical.go"] = files["workspace/tree/lexical.go"]
	if len(files) < 100 {
		t.Fatalf("only %d files", len(files))
	}
	ix := newTextIndex(files)
	even := func(p string) bool { return len(p)%2 == 0 }
	tests := []struct {
		name  string
		query string
		tests bool
		limit int
		keep  func(string) bool
	}{
		{name: "plain", query: "rank files with bm25 over postings"},
		{name: "explain", query: "explain how the token budget is split between context and response"},
		{name: "tests", query: "add a test for the index round trip", tests: true},
		{name: "limit", query: "secret scanner clean set", limit: 7},
		{name: "keep", query: "compress fit views budget", keep: even},
		{name: "identifier", query: "where is newSnapshot called from parseConfig HTTPServer"},
		{name: "no match", query: "zzzqqq xyzzy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewRankQuery(query.Parse(tt.query), tt.tests)
			want := rankDocAtATime(ix, q, tt.limit, tt.keep)
			for pass := range 2 {
				got := ix.RankBy(q, tt.limit, tt.keep)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("pass %d (-want +got):\n%s", pass, d)
				}
			}
			// The lookup a gathering uses: every hit at its place, with its
			// split; a file that did not match is not found.
			r := ix.Ranking(q, tt.limit, tt.keep)
			for i, w := range want {
				h, place := r.Hit(w.Path)
				if h == nil || place != i+1 || h.Score != w.Score || r.Score(w.Path) != w.Score || r.Match(i) != w.Match {
					t.Errorf("hit(%s) = %v at %d, match %v; want %v at %d", w.Path, h, place, r.Match(i), w, i+1)
				}
			}
			if h, place := r.Hit("no/such/file.go"); h != nil || place != 0 || r.Score("no/such/file.go") != 0 {
				t.Errorf("hit of an unknown path: %v at %d", h, place)
			}
		})
	}
}

// TestPostingsBounded checks that the postings cache keeps at most
// maxPostingEntries entries and still answers terms that do not fit.
func TestPostingsBounded(t *testing.T) {
	files := map[string][]byte{}
	// Every file holds "common"; term i is in files i..: postings of
	// growing length.
	for i := range 300 {
		var b strings.Builder
		b.WriteString("common ")
		for j := range i + 1 {
			fmt.Fprintf(&b, "word%c%c ", 'a'+j%26, 'a'+j/26)
		}
		files[fmt.Sprintf("f%03d.txt", i)] = []byte(b.String())
	}
	defer func(n int) { maxPostingEntries = n }(maxPostingEntries)
	maxPostingEntries = 5000
	ix := newTextIndex(files)
	for j := range 300 {
		ix.posting(TermsOf(query.Words(fmt.Sprintf("word%c%c", 'a'+j%26, 'a'+j/26)))[0])
	}
	h := TermsOf(query.Words("common"))[0]
	if p := ix.posting(h); len(p.docs) != 300 || p.dfBody != 300 {
		t.Fatalf("common: %d postings, df %d, want 300", len(p.docs), p.dfBody)
	}
	if ix.postingsLen > maxPostingEntries || ix.postingsLen < maxPostingEntries-300 {
		t.Fatalf("%d entries cached, bound %d (filled to within one term)", ix.postingsLen, maxPostingEntries)
	}
	sum := 0
	for _, p := range ix.postings {
		sum += len(p.docs)
	}
	if sum != ix.postingsLen {
		t.Fatalf("postingsLen %d, entries %d", ix.postingsLen, sum)
	}
}

// TestEqualContentSharesBags checks that files with the same bytes share
// their content-derived term bags after indexing (not copies), keep their
// own path terms, and rank as before.
func TestEqualContentSharesBags(t *testing.T) {
	dir := t.TempDir()
	text := "package x\n\n// Serve handles keep-alive connections.\nfunc Serve(conn Conn) error { return nil }\n"
	for _, rel := range []string{"a/serve.go", "b/serve.go", "c/other.go"} {
		writeFile(t, dir, rel, text)
	}
	writeFile(t, dir, "d/unlike.go", "package d\n\nfunc Unlike() {}\n")
	s := treeSnapshot(t, dir)
	a, b, c, d := s.ByRel["a/serve.go"].doc, s.ByRel["b/serve.go"].doc, s.ByRel["c/other.go"].doc, s.ByRel["d/unlike.go"].doc
	for _, o := range []*indexDoc{b, c} {
		if &o.content.hash[0] != &a.content.hash[0] || &o.defs.hash[0] != &a.defs.hash[0] {
			t.Errorf("%s: content bags copied, want shared with %s", o.path, a.path)
		}
	}
	if &d.content.hash[0] == &a.content.hash[0] {
		t.Errorf("different content shares bags")
	}
	if cmp.Equal(a.name, c.name, cmp.AllowUnexported(terms{})) {
		t.Errorf("path terms shared between %s and %s", a.path, c.path)
	}
	fresh := newTextIndex(map[string][]byte{"a/serve.go": []byte(text), "b/serve.go": []byte(text), "c/other.go": []byte(text), "d/unlike.go": []byte("package d\n\nfunc Unlike() {}\n")})
	q := "serve keep-alive connections"
	if d := cmp.Diff(fresh.Rank(query.Parse(q), 0), s.Index.Rank(query.Parse(q), 0)); d != "" {
		t.Errorf("ranking (-separate bags +shared):\n%s", d)
	}
}

// TestWithDocsMatchesFreshIndex checks that an index made from another by
// replacing and adding documents (unsaved buffers) ranks exactly as an
// index built from scratch over the same files, whether the base has met
// the query's terms before or not.
func TestWithDocsMatchesFreshIndex(t *testing.T) {
	files := map[string][]byte{
		"server/http.go":      []byte("package server\n// Serve handles keep-alive connections.\nfunc Serve(conn Conn) {}\n"),
		"server/http_test.go": []byte("package server\nfunc TestServe(t *T) { Serve(nil) }\n"),
		"client/dial.go":      []byte("package client\nfunc Dial(addr string) Conn { return nil }\n"),
		"docs/keepalive.md":   []byte("# Keep-alive\nConnections are kept alive by the server.\n"),
		"zz/last.go":          []byte("package zz\nfunc Timeout() {}\n"),
	}
	for i := range 40 {
		files[fmt.Sprintf("pkg%02d/f.go", i)] = []byte(fmt.Sprintf("package pkg%02d\nfunc Helper%d(conn Conn) error { return nil }\n", i, i))
	}
	overlay := map[string]string{
		"server/http.go": "package server\n// Serve closes idle keep-alive connections after a timeout.\nfunc Serve(conn Conn, timeout Duration) {}\n",
		"aa/first.go":    "package aa\nfunc KeepAliveTimeout() {}\n",
		"new/idle.go":    "package idle\n// idle connections\nfunc CloseIdle() {}\n",
		"zz/last.go":     "package zz\n",
	}
	merged := map[string][]byte{}
	for p, b := range files {
		merged[p] = b
	}
	c := newTermCounter()
	var add []*indexDoc
	for p, text := range overlay {
		merged[p] = []byte(text)
		add = append(add, newDoc(c, c.defs(), p, []byte(text)))
	}
	queries := []string{"keep-alive connections timeout", "close idle connections", "helper conn error", "dial address"}
	for _, warm := range []bool{false, true} {
		base := newTextIndex(files)
		if warm {
			for _, q := range queries {
				base.Rank(query.Parse(q), 0)
			}
		}
		ov := base.withDocs(func(p string) bool { _, ok := overlay[p]; return ok }, add)
		fresh := newTextIndex(merged)
		for _, q := range queries {
			if d := cmp.Diff(fresh.Rank(query.Parse(q), 0), ov.Rank(query.Parse(q), 0)); d != "" {
				t.Errorf("warm base %v, %q (-fresh +overlay):\n%s", warm, q, d)
			}
		}
	}
}

// postingScan is a term's postings worked out alone, one pass over the
// documents for the term (for an index made from a base, the base's
// postings renumbered, then the added documents): the reference
// [Index.postingsOf] must equal.
func postingScan(ix *Index, h uint32) *posting {
	p := &posting{}
	addDoc := func(i int32, d *indexDoc) {
		tp, tb, td := d.name.count(h), d.content.count(h), d.defs.count(h)
		if tp != 0 || tb != 0 || td != 0 {
			p.add(postingDoc{doc: i, path: uint16(tp), body: uint16(tb), defs: uint16(td)})
		}
	}
	if ix.base != nil {
		for _, e := range postingScan(ix.base, h).docs {
			if m := ix.fromBase[e.doc]; m >= 0 {
				e.doc = m
				p.add(e)
			}
		}
		for _, k := range ix.added {
			addDoc(k, ix.docs[k])
		}
		return p
	}
	for i, d := range ix.docs {
		addDoc(int32(i), d)
	}
	return p
}

// TestPostingsOfMatchesScan checks that postings worked out for many terms
// in one pass (over more terms than one batch, some cached, some repeated,
// some in no document) equal each term's own scan, for an index and for
// one made from it with unsaved buffers.
func TestPostingsOfMatchesScan(t *testing.T) {
	files := gatherSources(t)
	q := "snapshot index posting ranking workspace gather file terms hash count doc path defs overlay follow watcher git commit zzznotaword request chunk"
	hs := TermsOf(query.Words(q))
	if len(hs) < 20 {
		t.Fatalf("%d query terms, want over 2 batches", len(hs))
	}
	hs = append(hs, hs[3], hs[0]) // repeated terms
	overlay := map[string]string{"gather/index.go": "package gather\n// posting of a snapshot\nfunc Snapshot() {}\n", "gather/zz_new.go": "package gather\nfunc RankingOverlay(doc int) {}\n"}
	c := newTermCounter()
	var add []*indexDoc
	for p, text := range overlay {
		add = append(add, newDoc(c, c.defs(), p, []byte(text)))
	}
	for _, cached := range []int{0, 5} {
		base := newTextIndex(files)
		for _, h := range hs[:cached] {
			base.posting(h)
		}
		ov := base.withDocs(func(p string) bool { _, ok := overlay[p]; return ok }, add)
		for _, ix := range []*Index{base, ov} {
			got := ix.postingsOf(hs)
			for i, h := range hs {
				if d := cmp.Diff(postingScan(ix, h), got[i], cmp.AllowUnexported(posting{}, postingDoc{})); d != "" {
					t.Errorf("cached %d, base %v, term %d (-scan +postingsOf):\n%s", cached, ix == base, i, d)
				}
			}
		}
	}
}
