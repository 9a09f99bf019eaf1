package engine

import (
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/internal/benchreq"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestScaleHeap measures one engine on a large tree in this process, as a
// daemon holds it: the first request, the warm p50 of varied requests and
// the live heap after a collection, with an optional heap profile (what
// the index keeps) and CPU profile of the warm requests. Skipped unless
// CTXD_SCALE_ROOT names the tree; CTXD_SCALE_STATE is the state directory
// (empty: from scratch in a temporary one).
//
//	CTXD_SCALE_ROOT=/work/data/ctxd-scale/stdlib-100k CTXD_SCALE_HEAPPROFILE=/tmp/heap.prof \
//	  go test -run TestScaleHeap -v ./engine
func TestScaleHeap(t *testing.T) {
	root := testutil.Env(t, "CTXD_SCALE_ROOT", "")
	state := os.Getenv("CTXD_SCALE_STATE")
	if state == "" {
		state = t.TempDir()
	}
	e := scaleEngine(t, root, state)
	requests := benchreq.Stdlib
	ask := func(i int) time.Duration {
		t0 := time.Now()
		if _, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: requests[i%len(requests)]}, nil); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	t.Logf("first request %v", ask(0))
	for i := 1; i < len(requests); i++ {
		ask(i) // per-request caches warm, as benchscale's warm-up pass
	}
	defer scaleProfile(t)()
	lat := make([]time.Duration, 0, 60)
	for i := range 60 {
		lat = append(lat, ask(i+1))
	}
	slices.Sort(lat)
	t.Logf("warm p50 %v p90 %v", lat[len(lat)/2], lat[len(lat)*9/10])
	e.ws.Close() // waits for the index write
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("live heap %d MiB (in use %d MiB, from the OS %d MiB)", ms.HeapAlloc>>20, ms.HeapInuse>>20, ms.Sys>>20)
	if p := os.Getenv("CTXD_SCALE_HEAPPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
}

// scaleProfile starts a CPU profile to $CTXD_SCALE_CPUPROFILE, when set,
// and returns the function that stops it.
func scaleProfile(t *testing.T) func() {
	t.Helper()
	p := os.Getenv("CTXD_SCALE_CPUPROFILE")
	if p == "" {
		return func() {}
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// scaleEngine is a followed engine on root with the state directory
// state and the configuration of a user without files, closed with t.
func scaleEngine(t *testing.T, root, state string) *Engine {
	t.Helper()
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return openEngine(t, root, Options{Config: cfg, StateDir: state, Watch: true})
}
