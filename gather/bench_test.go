package gather

import (
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/benchreq"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

var gorootRequest = Request{
	Task:  ctxd.TaskDebug,
	Query: query.Parse(benchreq.GorootTrace),
}

// BenchmarkGatherGoroot gathers over the Go standard library source
// (~11k files, 157 MB): cold is a new Workspace per run (the CLI case),
// warm a second Gather on the same Workspace (the daemon case).
//
//	go test -run '^$' -bench GatherGoroot -benchtime 5x -count 5 ./gather
func BenchmarkGatherGoroot(b *testing.B) {
	src := testutil.GOROOTSrc(b)
	b.Run("cold", func(b *testing.B) {
		c0 := testutil.CPUTime()
		for b.Loop() {
			w, err := tree.Open(src, tree.Options{})
			if err != nil {
				b.Fatal(err)
			}
			res, err := Gather(b.Context(), w, gorootRequest)
			if err != nil {
				b.Fatal(err)
			}
			if res.FilesScanned < 5000 {
				b.Fatalf("scanned %d files", res.FilesScanned)
			}
			w.Close()
		}
		b.ReportMetric(float64((testutil.CPUTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("warm", func(b *testing.B) {
		w, err := tree.Open(src, tree.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if _, err := Gather(b.Context(), w, gorootRequest); err != nil {
			b.Fatal(err)
		}
		c0 := testutil.CPUTime()
		for b.Loop() {
			if _, err := Gather(b.Context(), w, gorootRequest); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((testutil.CPUTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}

// TestGatherGoroot checks that gathering over GOROOT/src finds the files
// of the request and stays fast. Skipped under -short.
func TestGatherGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("heavy: walks GOROOT/src")
	}
	src := testutil.GOROOTSrc(t)
	w := newTestWorkspace(t, src, tree.Options{})
	t0 := time.Now()
	res, err := Gather(t.Context(), w, gorootRequest)
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(t0)
	t0 = time.Now()
	if _, err := Gather(t.Context(), w, gorootRequest); err != nil {
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
