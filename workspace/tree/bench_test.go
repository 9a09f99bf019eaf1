package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/ctxd/ctxd/internal/benchreq"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// gitBenchRepo builds a repository of 200 commits over 100 files, packed
// like a cloned repository.
func gitBenchRepo(b *testing.B) string {
	b.Helper()
	isolateGit(b)
	root := b.TempDir()
	run := func(args ...string) { gitCmd(b, root, args...) }
	run("init", "-q", "-b", "main")
	for i := range 200 {
		for j := range 3 {
			rel := fmt.Sprintf("d%d/f%d.go", (i+j)%10, (i*7+j)%100)
			testutil.WriteFiles(b, root, map[string]string{rel: strings.Repeat(fmt.Sprintf("// commit %d line\n", i), 50+i)})
		}
		run("add", "-A")
		run("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
	}
	run("gc", "-q")
	return root
}

// BenchmarkGitLog compares go-git's simple open with the open this
// package uses (kept descriptors and an object LRU), reading the last 5
// commits and the files each changed.
//
//	go test -run '^$' -bench GitLog -count 5 ./gather
func BenchmarkGitLog(b *testing.B) {
	root := gitBenchRepo(b)
	benchLogs(b, root, "open=", true)
	b.Run("cached-handle", func(b *testing.B) {
		h, err := openRepo(root)
		if err != nil {
			b.Fatal(err)
		}
		defer h.close()
		for b.Loop() {
			if cs, err := h.log(b.Context(), 5); err != nil || len(cs) != 5 {
				b.Fatal(err, len(cs))
			}
		}
	})
	benchDiffs(b, root, "diff=")
}

// BenchmarkRank ranks a request over the GOROOT index (warm).
//
//	go test -run '^$' -bench Rank -count 5 ./gather
func BenchmarkRank(b *testing.B) {
	src := testutil.GOROOTSrc(b)
	s := treeSnapshot(b, src)
	b.ReportAllocs()
	for b.Loop() {
		s.Index.Rank(query.Parse(benchreq.GorootTrace), 10)
	}
}

// BenchmarkRankOverlay ranks a request over the GOROOT index with one
// unsaved editor buffer, as a daemon does for every request while a file
// is modified in the editor: an index over the buffer and the rest,
// ranked (postings warm in the snapshot's index after the first run).
//
//	go test -run '^$' -bench RankOverlay -count 5 ./gather
func BenchmarkRankOverlay(b *testing.B) {
	src := testutil.GOROOTSrc(b)
	s := treeSnapshot(b, src)
	overlay := map[string]string{"net/http/server.go": "package http\n\n// Serve closes idle keep-alive connections.\nfunc (srv *Server) Serve(l net.Listener) error { return nil }\n"}
	q := NewRankQuery(query.Parse(benchreq.GorootTrace), false)
	b.ReportAllocs()
	for b.Loop() {
		s.WithOverlay(overlay).RankBy(q, 10, nil)
	}
}

// BenchmarkGitDiffRepo compares the CLI and go-git for the uncommitted
// changes of a real, large repository named by CTXD_BENCH_GIT_REPO (skipped
// without it).
//
//	CTXD_BENCH_GIT_REPO=/path/to/repo go test -run '^$' -bench GitDiffRepo -count 5 ./gather
func BenchmarkGitDiffRepo(b *testing.B) {
	root := testutil.Env(b, "CTXD_BENCH_GIT_REPO", "")
	benchDiffs(b, root, "")
	benchLogs(b, root, "log=", false)
}

// benchLogs runs the sub-benchmarks that read the newest five commits of
// the repository at root, opening it every time ("plain") and through the
// kept handle ("keep+lru"), their names prefixed with prefix; full asks
// for five commits back.
func benchLogs(b *testing.B, root, prefix string, full bool) {
	check := func(b *testing.B, cs []Commit, err error) {
		if err != nil || full && len(cs) != 5 {
			b.Fatal(err, len(cs))
		}
	}
	b.Run(prefix+"plain", func(b *testing.B) {
		for b.Loop() {
			repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
			if err != nil {
				b.Fatal(err)
			}
			st, ok := repo.Storer.(*filesystem.Storage)
			if !ok {
				b.Fatalf("storage %T", repo.Storer)
			}
			h := &repoHandle{storage: st, worktree: osfs.New(root), top: root}
			cs, err := h.log(b.Context(), 5)
			check(b, cs, err)
		}
	})
	b.Run(prefix+"keep+lru", func(b *testing.B) {
		for b.Loop() {
			cs, err := gitLog(b.Context(), root, 5)
			check(b, cs, err)
		}
	})
}

// benchDiffs runs the uncommitted-changes sub-benchmarks of the repository
// at root, by the CLI and by go-git, their names prefixed with prefix.
func benchDiffs(b *testing.B, root, prefix string) {
	b.Run(prefix+"cli", func(b *testing.B) {
		for b.Loop() {
			if _, err := GitDiff(b.Context(), root, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(prefix+"go-git", func(b *testing.B) {
		h, err := openRepo(root)
		if err != nil || h == nil {
			b.Fatal(err)
		}
		defer h.close()
		for b.Loop() {
			if _, err := h.goGitDiff(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchTreeSnapshot is treeSnapshot of $CTXD_BENCH_TREE, else of
// GOROOT/src.
func benchTreeSnapshot(b *testing.B) *Snapshot {
	src := os.Getenv("CTXD_BENCH_TREE")
	if src == "" {
		src = testutil.GOROOTSrc(b)
	}
	return treeSnapshot(b, src)
}

// BenchmarkNewDoc measures lexical term extraction (identifiers split,
// lowered, stemmed and counted; definitions), one counter reused across
// files as an indexing worker does: over the Go files of GOROOT/src/net,
// and over every text file of GOROOT/src (what a cold index reads).
//
//	go test -run '^$' -bench NewDoc -benchtime 3x ./gather
func BenchmarkNewDoc(b *testing.B) {
	src := testutil.GOROOTSrc(b)
	for _, bb := range []struct {
		name string
		dir  string
		keep func(path string) bool
	}{
		{"net", filepath.Join(src, "net"), func(p string) bool { return strings.HasSuffix(p, ".go") }},
		{"goroot", src, func(string) bool { return true }},
	} {
		var files [][]byte
		var total int64
		filepath.WalkDir(bb.dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Type().IsRegular() && bb.keep(p) {
				if data, err := os.ReadFile(p); err == nil && len(data) <= 1<<20 && !IsBinary(data) {
					files = append(files, data)
					total += int64(len(data))
				}
			}
			return nil
		})
		if len(files) == 0 {
			b.Skip("no GOROOT sources")
		}
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(total)
			c := newTermCounter()
			c0 := testutil.CPUTime()
			for b.Loop() {
				for _, f := range files {
					newDoc(c, c.defs(), "net/x.go", f)
				}
			}
			b.ReportMetric(float64((testutil.CPUTime()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkRankNovel ranks requests the index has not met (each run
// empties the postings cache first, as a term new to a daemon finds it),
// over GOROOT/src or CTXD_BENCH_TREE; it reports the index's (term,
// document) pairs.
//
//	go test -run '^$' -bench RankNovel -count 5 ./gather
//	CTXD_BENCH_TREE=/work/data/ctxd-scale/stdlib-100k go test -run '^$' -bench RankNovel -count 3 ./gather
func BenchmarkRankNovel(b *testing.B) {
	s := benchTreeSnapshot(b)
	reqs := append(slices.Clip(benchreq.StdlibNovel), benchreq.StdlibNovelB...)
	pairs := 0
	for _, d := range s.Index.docs {
		pairs += len(d.content.hash) + len(d.name.hash) + len(d.defs.hash)
	}
	// scan: a CLI's index (a pass over the documents for new terms);
	// full: a daemon's (full postings, built in the background).
	for _, full := range []bool{false, true} {
		b.Run(map[bool]string{false: "scan", true: "full"}[full], func(b *testing.B) {
			ix := newIndex(s.Index.docs)
			if full {
				ix.full.Store(buildFullPostings(ix.docs))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ix.postingsMu.Lock()
				ix.postings, ix.postingsLen = nil, 0
				ix.postingsMu.Unlock()
				q := reqs[i%len(reqs)]
				i++
				ix.Ranking(rankQueryOf(q), 0, nil)
			}
			b.ReportMetric(float64(pairs), "pairs")
			b.ReportMetric(float64(len(ix.docs)), "docs")
		})
	}
}
