package tree

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/disk"
	gocmp "github.com/google/go-cmp/cmp"
)

// gatherSources returns this package's Go files as "gather/<name>".
func gatherSources(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".go") {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			files["gather/"+e.Name()] = b
		}
	}
	return files
}

// TestFullPostingsMatchScan checks that the full postings give, for every
// term of an index (and one of none), the entries a scan of the documents
// finds, with files that share content bags (copies), files of no content
// and terms found only in paths or only in definitions.
func TestFullPostingsMatchScan(t *testing.T) {
	c := newTermCounter()
	var docs []*indexDoc
	for p, b := range gatherSources(t) {
		d := newDoc(c, c.defs(), p, b)
		docs = append(docs, d)
		if strings.HasPrefix(p, "gather/l") || strings.HasPrefix(p, "gather/p") {
			// Copies elsewhere: same content bags, other paths.
			docs = append(docs, sharedDoc(c, "vendor/copy/"+strings.TrimPrefix(p, "gather/"), d))
			docs = append(docs, sharedDoc(c, "aaa/"+p, d))
		}
	}
	docs = append(docs, newDoc(c, c.defs(), "empty/nothing_here.txt", nil))
	// A term in the definitions only (newDoc never makes one: a name
	// defined is in the content too).
	c.reset()
	c.addIdent([]byte("Zebracorn"))
	docs = append(docs, &indexDoc{path: "defs/only.py", docBags: &docBags{defs: c.bag()}, name: c.pathTerms("defs/only.py")})
	ix := newIndex(docs)
	fp := buildFullPostings(ix.docs)
	seen := map[uint32]bool{TermsOf(query.Words("zzzznotaword"))[0]: true}
	for _, d := range ix.docs {
		for _, h := range slices.Concat(d.name.hash, d.content.hash, d.defs.hash) {
			seen[h] = true
		}
	}
	if len(seen) < 1000 {
		t.Fatalf("%d terms, want a real vocabulary", len(seen))
	}
	bad := 0
	for h := range seen {
		if d := gocmp.Diff(postingScan(ix, h), fp.posting(h), gocmp.AllowUnexported(posting{}, postingDoc{})); d != "" {
			t.Errorf("term %#x (-scan +full):\n%s", h, d)
			if bad++; bad > 3 {
				t.FailNow()
			}
		}
	}
	if groups := len(fp.groupOff) - 1; groups >= len(ix.docs)-1 {
		t.Errorf("%d content groups for %d documents, want copies to share one", groups, len(ix.docs))
	}
}

// postingsByPath is ix's postings of h by path: what stays the same
// whichever way an index of the same files was made.
func postingsByPath(ix *Index, h uint32) map[string]postingDoc {
	out := map[string]postingDoc{}
	for _, e := range ix.posting(h).docs {
		p := ix.docs[e.doc].path
		e.doc = 0
		out[p] = e
	}
	return out
}

// TestIndexFromFollowsChanges checks that a daemon's index, made from the
// previous snapshot's after files are created, edited, deleted and
// renamed (and anew past maxDerivedDocs changes), ranks exactly as an
// index built from scratch over the files on disk, with the same postings,
// whether the previous index had met the query's terms or not.
func TestIndexFromFollowsChanges(t *testing.T) {
	defer func(n int) { maxDerivedDocs = n }(maxDerivedDocs)
	maxDerivedDocs = 3
	root, w, _ := followedRepo(t, 30)
	queries := []string{"func zebracorn", "quokkamatic return", "func12 pkg2", "moved narwhal", "package main"}
	var first *Index
	// check compares the current index with one built from scratch;
	// wantFirst: it is made from the first index (few changes since), or
	// else not (past maxDerivedDocs: a new index, or one made from a newer
	// new index when the watcher delivered the changes in two batches).
	check := func(name string, wantFirst bool) {
		t.Helper()
		s, err := w.refresh(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = s.Index
		} else if fromFirst := s.Index.base == first; fromFirst != wantFirst {
			t.Errorf("%s: index made from the first one: %v, want %v", name, fromFirst, wantFirst)
		}
		disk := map[string][]byte{}
		for _, f := range s.Files {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Rel)))
			if err != nil {
				t.Fatal(err)
			}
			disk[f.Rel] = b
		}
		fresh := newTextIndex(disk)
		for _, q := range queries {
			if d := gocmp.Diff(fresh.Rank(query.Parse(q), 0), s.Index.Rank(query.Parse(q), 0)); d != "" {
				t.Errorf("%s: %q (-fresh +followed):\n%s", name, q, d)
			}
			for _, h := range TermsOf(query.Words(q)) {
				if d := gocmp.Diff(postingsByPath(fresh, h), postingsByPath(s.Index, h), gocmp.AllowUnexported(postingDoc{})); d != "" {
					t.Errorf("%s: postings of a term of %q (-fresh +followed):\n%s", name, q, d)
				}
			}
		}
	}
	check("first", true)
	if w.current().Index.fullPostings() == nil {
		t.Fatal("a followed workspace's first index has no full postings")
	}
	steps := []struct {
		name      string
		change    func()
		seen      func() bool
		fromFirst bool
	}{
		{"created", func() { writeFile(t, root, "pkg1/zebra.go", "package pkg1\n\nfunc Zebracorn() {}\n") },
			func() bool { return topHit(t, w, "zebracorn") == "pkg1/zebra.go" }, true},
		{"edited", func() { writeFile(t, root, "pkg2/file2.go", "package pkg2\n\nfunc Quokkamatic() {}\n") },
			func() bool { return topHit(t, w, "quokkamatic") == "pkg2/file2.go" }, true},
		{"deleted", func() { must(t, os.Remove(filepath.Join(root, "pkg3", "file3.go"))) },
			func() bool { ok, _ := hasFile(t, w, "pkg3/file3.go"); return !ok }, true},
		{"renamed", func() {
			must(t, os.Rename(filepath.Join(root, "pkg4", "file4.go"), filepath.Join(root, "pkg4", "narwhal_moved.go")))
		},
			func() bool { return topHit(t, w, "narwhal moved") == "pkg4/narwhal_moved.go" }, true},
		{"many edited", func() {
			for _, i := range []int{5, 6, 7, 8} {
				writeFile(t, root, fmt.Sprintf("pkg%d/file%d.go", i, i), fmt.Sprintf("package pkg%d\n\nfunc Func%d() string { return \"moved\" }\n", i, i))
			}
		}, func() bool {
			s, _ := w.refresh(t.Context())
			for _, i := range []int{5, 6, 7, 8} {
				if s == nil || s.ByRel[fmt.Sprintf("pkg%d/file%d.go", i, i)] == nil || s.ByRel[fmt.Sprintf("pkg%d/file%d.go", i, i)].size < 45 {
					return false
				}
			}
			return true
		}, false},
		{"edited again", func() {
			writeFile(t, root, "pkg1/zebra.go", "package pkg1\n\nfunc Zebracorn() int { return 12 }\n")
		}, func() bool {
			s, _ := w.refresh(t.Context())
			return s != nil && s.ByRel["pkg1/zebra.go"] != nil && s.ByRel["pkg1/zebra.go"].size > 40
		}, false},
	}
	for _, st := range steps {
		st.change()
		eventually(t, st.name, func() (bool, string) { return st.seen(), "" })
		check(st.name, st.fromFirst)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// BenchmarkBuildFullPostings measures building the full postings of the
// index of GOROOT/src or CTXD_BENCH_TREE and reports their size.
//
//	CTXD_BENCH_TREE=/work/data/ctxd-scale/stdlib-100k go test -run '^$' -bench BuildFullPostings -benchtime 3x ./gather
func BenchmarkBuildFullPostings(b *testing.B) {
	s := benchTreeSnapshot(b)
	var fp *fullPostings
	for b.Loop() {
		fp = buildFullPostings(s.Index.docs)
	}
	b.ReportMetric(float64(fp.bytes())/(1<<20), "MiB")
	b.ReportMetric(float64(len(fp.groupOff)-1), "groups")
	b.ReportMetric(float64(len(fp.content.terms)), "terms")
}

// TestPersistedEqualContentSharesBags checks that files of equal content
// loaded from the persisted index share one set of content bags, as they
// do when indexed (TestEqualContentSharesBags).
func TestPersistedEqualContentSharesBags(t *testing.T) {
	root := testutil.IsolatedRepo(t)
	for i := range 40 {
		writeFile(t, root, fmt.Sprintf("pkg%d/file%d.go", i%10, i), fmt.Sprintf("package pkg%d\n\nfunc Func%d() int { return %d }\n", i%10, i, i))
	}
	same := "package twin\n\n// Serve handles keep-alive connections.\nfunc Serve() {}\n"
	writeFile(t, root, "a/twin.go", same)
	writeFile(t, root, "b/twin.go", same)
	gitCommitAll(t, root, "first commit", "2024-01-01T00:00:00Z")
	ageTree(t, root)
	idx := filepath.Join(t.TempDir(), "state", "index", "files.idx")
	for run := range 2 {
		w, err := Open(root, Options{State: disk.New(filepath.Dir(idx))})
		if err != nil {
			t.Fatal(err)
		}
		s, err := w.refresh(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 && w.follow.lastReused == 0 {
			t.Fatal("second run loaded nothing from the persisted index")
		}
		a, b := s.ByRel["a/twin.go"].doc, s.ByRel["b/twin.go"].doc
		if a.docBags != b.docBags {
			t.Errorf("run %d: equal files have separate content bags", run)
		}
		w.Close()
	}
}

// TestSortScoredRadix checks the radix sort of many candidates against a
// comparison sort: by score, highest first, ties (many) by document.
func TestSortScoredRadix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{radixScored, 5000} {
		order := make([]scored, n)
		for i := range order {
			s := float64(r.IntN(50)+1) / 7 // few distinct scores: ties
			if r.IntN(3) == 0 {
				s = r.Float64()*100 + 1e-9
			}
			order[i] = scored{s: s, doc: int32(i), a: int32(r.IntN(n))}
		}
		want := slices.Clone(order)
		slices.SortStableFunc(want, func(x, y scored) int { return cmp.Compare(y.s, x.s) })
		sortScored(order)
		if !slices.Equal(want, order) {
			t.Errorf("%d candidates: radix order differs", n)
		}
	}
}

// TestRankManyCandidates checks ranking with more candidates than
// radixScored (the radix sort, candidates taken by document) against
// scoring each document, with ties: equal files at paths the query does
// not name.
func TestRankManyCandidates(t *testing.T) {
	files := map[string][]byte{}
	for i := range 3000 {
		files[fmt.Sprintf("d%02d/f%04d.go", i%37, i)] = fmt.Appendf(nil, "package p\n// serve keep alive %s\nfunc F() { conn(%d) }\n", strings.Repeat("conn ", i%5), i%11)
	}
	ix := newTextIndex(files)
	for _, q := range []string{"serve conn", "keep alive connections", "package"} {
		rq := rankQueryOf(q)
		got := ix.RankBy(rq, 0, nil)
		if len(got) < radixScored {
			t.Fatalf("%q: %d hits, want over %d", q, len(got), radixScored)
		}
		if d := gocmp.Diff(rankDocAtATime(ix, rq, 0, nil), got); d != "" {
			t.Errorf("%q (-doc at a time +postings):\n%s", q, d)
		}
	}
}
