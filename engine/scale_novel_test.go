package engine

import (
	"encoding/json"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/benchreq"
)

// TestScaleNovel answers, as benchscale -novel-split does, the warm-up
// requests and StdlibNovel, waits for the background analysis, then
// answers StdlibNovelB, each once, and writes each envelope's JSON (its
// duration zeroed) one a line to CTXD_SCALE_DUMP: the output to compare
// before and after a change that must not alter it. Skipped unless
// CTXD_SCALE_ROOT names the tree; CTXD_SCALE_STATE is the state directory
// (copy a settled one: the engine writes into it).
//
//	CTXD_SCALE_ROOT=/work/data/ctxd-scale/stdlib-10k CTXD_SCALE_STATE=/tmp/S \
//	  CTXD_SCALE_DUMP=/tmp/out.jsonl go test -run TestScaleNovel -v ./engine
func TestScaleNovel(t *testing.T) {
	root, state := os.Getenv("CTXD_SCALE_ROOT"), os.Getenv("CTXD_SCALE_STATE")
	if root == "" || state == "" {
		t.Skip("CTXD_SCALE_ROOT or CTXD_SCALE_STATE not set")
	}
	e := scaleEngine(t, root, state)
	e.StartAnalysis()
	ask := func(q string) []byte {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: q, TokenBudget: &BudgetRequest{Total: 8000}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		env.Stats.DurationMS = 0
		env.SessionID, env.CreatedAt = "", time.Time{}
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, q := range benchreq.Stdlib {
		ask(q)
	}
	for _, q := range benchreq.StdlibNovel {
		ask(q)
	}
	for e.AnalysisStatus().Phase == "analysing" || e.AnalysisStatus().Phase == "indexing" {
		time.Sleep(100 * time.Millisecond)
	}
	stop := scaleProfile(t)
	var out []byte
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0, t0 := processCPU(), time.Now()
	for _, q := range benchreq.StdlibNovelB {
		out = append(append(out, ask(q)...), '\n')
	}
	n := len(benchreq.StdlibNovelB)
	wall, cpu := time.Since(t0), processCPU()-cpu0
	runtime.ReadMemStats(&m1)
	stop()
	// CPU and allocations, not wall time, compare builds on a loaded
	// machine (the process's CPU includes its background work, idle once
	// the analysis is done).
	t.Logf("%d novel requests, %v each; cpu_ms=%.2f allocs=%d alloc_kb=%d a request",
		n, wall/time.Duration(n), float64(cpu.Microseconds())/1000/float64(n),
		(m1.Mallocs-m0.Mallocs)/uint64(n), (m1.TotalAlloc-m0.TotalAlloc)/1024/uint64(n))
	if p := os.Getenv("CTXD_SCALE_DUMP"); p != "" {
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// processCPU returns the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
