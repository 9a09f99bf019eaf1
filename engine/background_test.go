package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/workspace"
)

// analysisRepo is a repository with enough structure for views, symbols
// and focus lines: Go servers with long methods, a Python module, tests.
func analysisRepo(t *testing.T, n int) string {
	t.Helper()
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package shutdown\n\n// Server%d drains connections on shutdown.\ntype Server%d struct{ n int }\n\n", i, i)
		for j := range 6 {
			fmt.Fprintf(&b, "// Shutdown%d closes the listener gracefully.\nfunc (s *Server%d) Shutdown%d() error {\n", j, i, j)
			for k := range 14 {
				fmt.Fprintf(&b, "\ts.n += %d // drain step %d of the idle connections\n", k, k)
			}
			b.WriteString("\treturn nil\n}\n\n")
		}
		files[fmt.Sprintf("srv/server%d.go", i)] = b.String()
		files[fmt.Sprintf("srv/server%d_test.go", i)] = fmt.Sprintf("package shutdown\n\nimport \"testing\"\n\nfunc TestShutdown%d(t *testing.T) {\n\tvar s Server%d\n\tif err := s.Shutdown0(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n", i, i)
	}
	files["pkg/sessions.py"] = "class Session:\n    def merge_environment_settings(self, url, proxies):\n        env = {}\n        for k in proxies:\n            env[k] = proxies[k]\n        return env\n\n    def close(self):\n        pass\n"
	return testutil.GitRepo(t, files)
}

var analysisRequests = []PromptRequest{
	{UserRequest: "how does the server shut down gracefully", TokenBudget: &BudgetRequest{Total: 3000}},
	{UserRequest: "why does Server3.Shutdown2 not drain idle connections", TokenBudget: &BudgetRequest{Total: 2500}},
	{UserRequest: "rename Session.merge_environment_settings to merge_settings", TokenBudget: &BudgetRequest{Total: 4000}},
	{UserRequest: "write tests for the drain steps of Server1", TaskType: "test", TokenBudget: &BudgetRequest{Total: 6000}, Format: "xml"},
}

// watchingEngine opens an engine for dir with state that follows the
// workspace (as the daemon does); the caller closes it.
func watchingEngine(t *testing.T, dir, state string) *Engine {
	t.Helper()
	e, err := New(dir, Options{Config: config.Default(), StateDir: state, Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// afterFiles returns a channel closed once e's background analysis has
// analysed n files.
func afterFiles(e *Engine, n int64) <-chan struct{} {
	started := make(chan struct{})
	var files atomic.Int64
	e.bg.SetAfterFile(func() {
		if files.Add(1) == n {
			close(started)
		}
	})
	return started
}

// envelopes runs analysisRequests on an engine for dir with state, after
// its background analysis when analyse is set, and returns the envelopes
// as JSON, without what differs between runs (session ids, times).
func envelopes(t *testing.T, dir, state string, analyse bool) []string {
	t.Helper()
	e := watchingEngine(t, dir, state)
	defer e.Close()
	if analyse {
		e.StartAnalysis()
		waitAnalysis(t, e)
		if st := e.AnalysisStatus(); !st.Done || st.Total == 0 {
			t.Fatalf("analysis status %+v", st)
		}
	}
	var out []string
	for _, req := range analysisRequests {
		env, err := e.BuildPrompt(t.Context(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		env.SessionID, env.CreatedAt, env.Stats.DurationMS = "", time.Time{}, 0
		b, err := json.MarshalIndent(env, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

func waitAnalysis(t *testing.T, e *Engine) {
	t.Helper()
	select {
	case <-e.bg.Ended():
	case <-t.Context().Done():
		t.Fatal("background analysis did not end")
	}
}

// TestAnalysisSameEnvelope: the envelopes are byte-identical whether the
// background analysis ran before the requests or not, and on a restarted
// engine reading what it persisted. Each run is a process of its own (this
// test binary run again), so no process cache carries one run's results
// into another: the runs with the analysis read the stores it wrote.
func TestAnalysisSameEnvelope(t *testing.T) {
	if mode := os.Getenv("CTXD_TEST_ANALYSIS_CHILD"); mode != "" {
		got := envelopes(t, os.Getenv("CTXD_TEST_ANALYSIS_REPO"), os.Getenv("CTXD_TEST_ANALYSIS_STATE"), mode == "analyse")
		b, _ := json.Marshal(got)
		if err := os.WriteFile(os.Getenv("CTXD_TEST_ANALYSIS_OUT"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs the test binary three times")
	}
	dir := analysisRepo(t, 6)
	run := func(name, state string, analyse bool) []string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out.json")
		mode := "plain"
		if analyse {
			mode = "analyse"
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestAnalysisSameEnvelope$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CTXD_TEST_ANALYSIS_CHILD="+mode, "CTXD_TEST_ANALYSIS_REPO="+dir,
			"CTXD_TEST_ANALYSIS_STATE="+state, "CTXD_TEST_ANALYSIS_OUT="+out, "CTXD_CONFIG=/nonexistent.toml")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	newState := func() string {
		s := t.TempDir()
		if err := os.MkdirAll(filepath.Join(s, "index"), 0o755); err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := run("without analysis", newState(), false)
	analysed := newState()
	got := run("with analysis", analysed, true)
	restarted := run("restarted after analysis", analysed, false)
	if ms, _ := filepath.Glob(filepath.Join(analysed, "index", "analyses.*.dat")); len(ms) != 1 {
		t.Fatalf("the analysis persisted no analyses: %v", ms)
	}
	// The restarted engine counted its views from the files' block
	// vectors (tokens.Prime): the analysis recorded them.
	vecs, err := index.OpenRecords(filepath.Join(analysed, "index"), workspace.VectorsName, tokens.VectorsKey)
	if err != nil {
		t.Fatal(err)
	}
	if n := vecs.Len(); n == 0 {
		t.Error("the analysis recorded no block vectors")
	}
	vecs.Close()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: envelope differs with the background analysis:\n%s\nwithout:\n%s", i, got[i], want[i])
		}
		if restarted[i] != want[i] {
			t.Errorf("request %d: envelope differs on a restarted engine after the analysis", i)
		}
	}
}

// TestAnalysisPausesForRequests: the worker does not go on while a
// request runs, the request is served mid-analysis, and the worker then
// resumes and finishes.
func TestAnalysisPausesForRequests(t *testing.T) {
	dir := analysisRepo(t, 40)
	state := stateWithIndex(t)
	e := watchingEngine(t, dir, state)
	defer e.Close()
	started := afterFiles(e, 3)
	e.StartAnalysis()
	select {
	case <-started:
	case <-t.Context().Done():
		t.Fatal("analysis did not start")
	}
	release := e.Busy() // a request in flight
	before := e.AnalysisStatus().Analysed
	env, err := e.BuildPrompt(t.Context(), analysisRequests[0], nil)
	if err != nil || len(env.Context.Chunks) == 0 {
		t.Fatalf("request mid-analysis: %v", err)
	}
	// At most the file under way when the request came finishes.
	if after := e.AnalysisStatus().Analysed; after > before+1 {
		t.Errorf("the worker analysed %d files while a request ran", after-before)
	}
	if st := e.AnalysisStatus(); st.Done || st.Phase != "analysing" {
		t.Fatalf("analysis done while paused: %+v", st)
	}
	release()
	waitAnalysis(t, e)
	if st := e.AnalysisStatus(); !st.Done || st.Analysed != st.Total || st.Total < 80 || st.Phase != "done" {
		t.Errorf("after the request: %+v, want every file analysed", st)
	}
}

// TestAnalysisStopsOnClose: Close during the analysis stops the worker
// and waits for it; the stores stay readable.
func TestAnalysisStopsOnClose(t *testing.T) {
	dir := analysisRepo(t, 40)
	state := stateWithIndex(t)
	e := watchingEngine(t, dir, state)
	started := afterFiles(e, 2)
	e.StartAnalysis()
	<-started
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.bg.Ended():
	default:
		t.Fatal("Close returned with the worker running")
	}
	if st := e.AnalysisStatus(); st.Done {
		t.Errorf("analysis reported done after being stopped: %+v", st)
	}
	// A new engine on the same state works and finishes the analysis.
	e2 := watchingEngine(t, dir, state)
	defer e2.Close()
	e2.StartAnalysis()
	waitAnalysis(t, e2)
	if st := e2.AnalysisStatus(); !st.Done {
		t.Errorf("second analysis: %+v", st)
	}
}

// TestAnalysisOff: gather.background_analysis = false starts nothing.
func TestAnalysisOff(t *testing.T) {
	dir := analysisRepo(t, 2)
	cfg := config.Default()
	cfg.Gather.BackgroundAnalysis = false
	e := openEngine(t, dir, Options{Config: cfg, StateDir: t.TempDir()})
	e.StartAnalysis()
	if st := e.AnalysisStatus(); st.Enabled || st.Total != 0 || st.Phase != "off" {
		t.Errorf("analysis ran although turned off: %+v", st)
	}
}

// TestMakeRoom: large parses lower the soft memory limit by their claims
// (at most by half) while they run, overlapping ones together, and it is
// back afterwards; without a limit nothing is set.
func TestMakeRoom(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const mb = 1 << 20
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	for _, tc := range []struct {
		base, a, b      int64
		withA, withBoth int64
	}{
		{400 * mb, 50 * mb, 30 * mb, 350 * mb, 320 * mb},
		{400 * mb, 150 * mb, 100 * mb, 250 * mb, 200 * mb}, // at most half
		{math.MaxInt64, 50 * mb, 30 * mb, math.MaxInt64, math.MaxInt64},
	} {
		debug.SetMemoryLimit(tc.base)
		endA := makeRoom(tc.a)
		if got := limit(); got != tc.withA {
			t.Errorf("base %d: %d with one claim, want %d", tc.base, got, tc.withA)
		}
		endB := makeRoom(tc.b)
		if got := limit(); got != tc.withBoth {
			t.Errorf("base %d: %d with two claims, want %d", tc.base, got, tc.withBoth)
		}
		endA()
		if want := max(tc.base-tc.b, tc.base/2); tc.base != math.MaxInt64 && limit() != want {
			t.Errorf("base %d: %d after the first ended, want %d", tc.base, limit(), want)
		}
		endB()
		if got := limit(); got != tc.base {
			t.Errorf("base %d: %d after both, want it back", tc.base, got)
		}
	}
}

// TestAnalysisFollowsChanges: after the first pass, a file edited or
// created on disk is analysed in the background (the watcher's event),
// so the next request naming it parses nothing; a file that did not
// change is not analysed again.
func TestAnalysisFollowsChanges(t *testing.T) {
	dir := analysisRepo(t, 3)
	e := watchingEngine(t, dir, stateWithIndex(t))
	defer e.Close()
	// A request first: the workspace is followed from its first snapshot.
	if _, err := e.BuildPrompt(t.Context(), analysisRequests[0], nil); err != nil {
		t.Fatal(err)
	}
	e.StartAnalysis()
	waitAnalysis(t, e)
	first := e.AnalysisStatus()
	if !first.Done || first.Total == 0 {
		t.Fatalf("first pass: %+v", first)
	}

	var b strings.Builder
	b.WriteString("package shutdown\n\n")
	for j := range 8 {
		fmt.Fprintf(&b, "// Refuse%d refuses new connections while draining.\nfunc Refuse%d(n int) int {\n\treturn n * %d\n}\n\n", j, j, j)
	}
	created := b.String()
	edited := strings.Replace(readFile(t, filepath.Join(dir, "srv/server1.go")), "drain step", "drain phase", 1)
	writeFile(t, filepath.Join(dir, "srv/refuse.go"), created)
	writeFile(t, filepath.Join(dir, "srv/server1.go"), edited)

	// The follow-up takes both files (and nothing else) once the
	// watcher has seen them.
	deadline := time.After(30 * time.Second)
	for {
		st := e.AnalysisStatus()
		if st.Done && st.Total >= first.Total+2 {
			if st.Total != first.Total+2 {
				t.Errorf("follow-up analysed %d files, want 2", st.Total-first.Total)
			}
			// The pass count is what a client compares: the first
			// pass is 1, the follow-up (or two, if the watcher split
			// the burst) ends with more.
			if first.Passes != 1 || st.Passes <= first.Passes {
				t.Errorf("passes %d after the first pass, %d after the follow-up", first.Passes, st.Passes)
			}
			break
		}
		select {
		case <-deadline:
			t.Fatalf("changed files not analysed: %+v (first pass %+v)", st, first)
		case <-time.After(20 * time.Millisecond):
		}
	}
	x := e.store.Symbols()
	for _, src := range []string{created, edited} {
		if !x.Has("go", []byte(src)) {
			t.Errorf("symbol index lacks a changed file's content")
		}
	}
	parses := x.Parses()
	if _, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "why does Refuse3 refuse connections while Server1 drains", TokenBudget: &BudgetRequest{Total: 3000}}, nil); err != nil {
		t.Fatal(err)
	}
	if n := x.Parses() - parses; n != 0 {
		t.Errorf("the request after the edits parsed %d files, want 0", n)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAnalysisReadsLineHistories: the background analysis reads the line
// histories of HEAD before the files (and persists them beside the
// index); after a commit that changes no file (HEAD moved, nothing for
// the walk to take in) a request's Kick makes it read them again.
func TestAnalysisReadsLineHistories(t *testing.T) {
	dir := analysisRepo(t, 2)
	state := stateWithIndex(t)
	e := watchingEngine(t, dir, state)
	defer e.Close()
	head := e.ws.Head()
	if head == "" || e.ws.CachedLineHistories(head) != nil {
		t.Fatalf("head %q: line histories before the analysis", head)
	}
	e.StartAnalysis()
	waitAnalysis(t, e)
	if e.ws.CachedLineHistories(head) == nil {
		t.Fatal("no line histories after the first pass")
	}
	var saved []string
	_ = filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "linehist.bin" {
			saved = append(saved, p)
		}
		return nil
	})
	if len(saved) != 1 {
		t.Errorf("persisted line histories: %v, want one linehist.bin", saved)
	}

	testutil.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "moved")
	moved := e.ws.Head()
	if moved == head || e.ws.CachedLineHistories(moved) != nil {
		t.Fatalf("head %s after the commit: line histories of %s", moved, head)
	}
	e.bg.Kick()
	deadline := time.Now().Add(time.Minute)
	for e.ws.CachedLineHistories(moved) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the line histories of the moved HEAD were not read after Kick")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
