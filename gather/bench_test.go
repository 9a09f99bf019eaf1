package gather

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/benchreq"
	"github.com/ctxd/ctxd/internal/procstat"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// gorootSrc returns $(go env GOROOT)/src, or skips.
func gorootSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		tb.Skipf("no GOROOT source: %v", err)
	}
	return src
}

var gorootRequest = Request{
	Task: ctxd.TaskDebug,
	Query: query.Parse("http server closes idle keep-alive connections too early when the TLS handshake times out\n" +
		"goroutine 7 [running]:\nnet/http.(*conn).serve(0xc000100000)\n\t/usr/local/go/src/net/http/server.go:2009 +0x1d\n"),
}

// BenchmarkGatherGoroot gathers over the Go standard library source
// (~11k files, 157 MB): cold is a new Workspace per run (the CLI case),
// warm a second Gather on the same Workspace (the daemon case).
//
//	go test -run '^$' -bench GatherGoroot -benchtime 5x -count 5 ./gather
func BenchmarkGatherGoroot(b *testing.B) {
	src := gorootSrc(b)
	b.Run("cold", func(b *testing.B) {
		c0 := procstat.CPU()
		for b.Loop() {
			w, err := NewWorkspace(src, Options{})
			if err != nil {
				b.Fatal(err)
			}
			res, err := w.Gather(b.Context(), gorootRequest)
			if err != nil {
				b.Fatal(err)
			}
			if res.FilesScanned < 5000 {
				b.Fatalf("scanned %d files", res.FilesScanned)
			}
			w.Close()
		}
		b.ReportMetric(float64((procstat.CPU()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("warm", func(b *testing.B) {
		w, err := NewWorkspace(src, Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if _, err := w.Gather(b.Context(), gorootRequest); err != nil {
			b.Fatal(err)
		}
		c0 := procstat.CPU()
		for b.Loop() {
			if _, err := w.Gather(b.Context(), gorootRequest); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((procstat.CPU()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}

// TestGatherGoroot checks that gathering over GOROOT/src finds the files
// of the request and stays fast. Skipped under -short.
func TestGatherGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy: walks GOROOT/src")
	}
	src := gorootSrc(t)
	w := newTestWorkspace(t, src, Options{})
	t0 := time.Now()
	res, err := w.Gather(t.Context(), gorootRequest)
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(t0)
	t0 = time.Now()
	if _, err := w.Gather(t.Context(), gorootRequest); err != nil {
		t.Fatal(err)
	}
	warm := time.Since(t0)
	t.Logf("GOROOT/src: %d files scanned, %d chunks, cold %v, warm %v", res.FilesScanned, len(res.Chunks), cold, warm)
	if c := chunk(res, "net/http/server.go"); c == nil || c.Priority != ctxd.PriorityCritical {
		t.Errorf("net/http/server.go not gathered as the error location: %v", sources(res))
	}
	hits, err := w.Rank(t.Context(), query.Parse("keep-alive idle connection TLS handshake timeout http server"), 10)
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, h := range hits {
		top = append(top, h.Path)
	}
	if !strings.Contains(strings.Join(top, " "), "net/http/") {
		t.Errorf("no net/http file in the top 10: %v", top)
	}
}

// gitBenchRepo builds a repository of 200 commits over 100 files, packed
// like a cloned repository.
func gitBenchRepo(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git CLI not installed")
	}
	root := b.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	for i := range 200 {
		for j := range 3 {
			p := filepath.Join(root, fmt.Sprintf("d%d", (i+j)%10), fmt.Sprintf("f%d.go", (i*7+j)%100))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("// commit %d line\n", i), 50+i)), 0o644); err != nil {
				b.Fatal(err)
			}
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
	b.Run("open=plain", func(b *testing.B) {
		for b.Loop() {
			repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
			if err != nil {
				b.Fatal(err)
			}
			h := &repoHandle{repo: repo, top: root}
			if cs, err := h.log(b.Context(), 5); err != nil || len(cs) != 5 {
				b.Fatal(err, len(cs))
			}
		}
	})
	b.Run("open=keep+lru", func(b *testing.B) {
		for b.Loop() {
			cs, err := GitLog(b.Context(), root, 5)
			if err != nil || len(cs) != 5 {
				b.Fatal(err, len(cs))
			}
		}
	})
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
	b.Run("diff=cli", func(b *testing.B) {
		for b.Loop() {
			if _, err := GitDiff(b.Context(), root, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("diff=go-git", func(b *testing.B) {
		h, err := openRepo(root)
		if err != nil {
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

// BenchmarkRank ranks a request over the GOROOT index (warm).
//
//	go test -run '^$' -bench Rank -count 5 ./gather
func BenchmarkRank(b *testing.B) {
	src := gorootSrc(b)
	s := benchSnapshot(b, src)
	b.ReportAllocs()
	for b.Loop() {
		s.index.Rank(gorootRequest.Query, 10)
	}
}

// BenchmarkRankOverlay ranks a request over the GOROOT index with one
// unsaved editor buffer, as a daemon does for every request while a file
// is modified in the editor: an index over the buffer and the rest,
// ranked (postings warm in the snapshot's index after the first run).
//
//	go test -run '^$' -bench RankOverlay -count 5 ./gather
func BenchmarkRankOverlay(b *testing.B) {
	src := gorootSrc(b)
	s := benchSnapshot(b, src)
	overlay := map[string]string{"net/http/server.go": "package http\n\n// Serve closes idle keep-alive connections.\nfunc (srv *Server) Serve(l net.Listener) error { return nil }\n"}
	q := newRankQuery(gorootRequest.Query, false)
	b.ReportAllocs()
	for b.Loop() {
		s.withOverlay(overlay).rank(q, 10, nil)
	}
}

// BenchmarkGitDiffRepo compares the CLI and go-git for the uncommitted
// changes of a real, large repository named by CTXD_BENCH_GIT_REPO (skipped
// without it).
//
//	CTXD_BENCH_GIT_REPO=/path/to/repo go test -run '^$' -bench GitDiffRepo -count 5 ./gather
func BenchmarkGitDiffRepo(b *testing.B) {
	root := testutil.Env(b, "CTXD_BENCH_GIT_REPO", "")
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			if _, err := GitDiff(b.Context(), root, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-git", func(b *testing.B) {
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
	b.Run("log=plain", func(b *testing.B) {
		for b.Loop() {
			repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
			if err != nil {
				b.Fatal(err)
			}
			h := &repoHandle{repo: repo, top: root}
			if _, err := h.log(b.Context(), 5); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("log=keep+lru", func(b *testing.B) {
		for b.Loop() {
			if _, err := GitLog(b.Context(), root, 5); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchSnapshot walks and indexes the tree at src once (a warm workspace's
// snapshot); the workspace closes when the benchmark ends.
// benchTreeSnapshot is benchSnapshot of $CTXD_BENCH_TREE, else of
// GOROOT/src.
func benchTreeSnapshot(b *testing.B) *snapshot {
	src := os.Getenv("CTXD_BENCH_TREE")
	if src == "" {
		src = gorootSrc(b)
	}
	return benchSnapshot(b, src)
}

func benchSnapshot(b *testing.B, src string) *snapshot {
	b.Helper()
	w, err := NewWorkspace(src, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	s, err := w.refresh(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkNewDoc measures lexical term extraction (identifiers split,
// lowered, stemmed and counted; definitions), one counter reused across
// files as an indexing worker does: over the Go files of GOROOT/src/net,
// and over every text file of GOROOT/src (what a cold index reads).
//
//	go test -run '^$' -bench NewDoc -benchtime 3x ./gather
func BenchmarkNewDoc(b *testing.B) {
	src := gorootSrc(b)
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
				if data, err := os.ReadFile(p); err == nil && len(data) <= 1<<20 && !isBinary(data) {
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
			c0 := procstat.CPU()
			for b.Loop() {
				for _, f := range files {
					newDoc(c, c.defs(), "net/x.go", f)
				}
			}
			b.ReportMetric(float64((procstat.CPU()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
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
	for _, d := range s.index.docs {
		pairs += len(d.content.hash) + len(d.name.hash) + len(d.defs.hash)
	}
	// scan: a CLI's index (a pass over the documents for new terms);
	// full: a daemon's (full postings, built in the background).
	for _, full := range []bool{false, true} {
		b.Run(map[bool]string{false: "scan", true: "full"}[full], func(b *testing.B) {
			ix := newIndex(s.index.docs)
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
				ix.ranking(rankQueryOf(q), 0, nil)
			}
			b.ReportMetric(float64(pairs), "pairs")
			b.ReportMetric(float64(len(ix.docs)), "docs")
		})
	}
}
