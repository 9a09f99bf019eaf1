package engine

import (
	"encoding/json"
	"os"
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
	defer scaleProfile(t)()
	var out []byte
	t0 := time.Now()
	for _, q := range benchreq.StdlibNovelB {
		out = append(append(out, ask(q)...), '\n')
	}
	t.Logf("%d novel requests, %v each", len(benchreq.StdlibNovelB), time.Since(t0)/time.Duration(len(benchreq.StdlibNovelB)))
	if p := os.Getenv("CTXD_SCALE_DUMP"); p != "" {
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
