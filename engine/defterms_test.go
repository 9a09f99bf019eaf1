package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace"
)

// defTermsRepo is a repository with one large Python module (retry
// helpers, and tests of its own named test_…) and one large Go file.
func defTermsRepo(t *testing.T) (dir string, files map[string]string) {
	t.Helper()
	var py strings.Builder
	py.WriteString("import time\n\n")
	for i := range 40 {
		fmt.Fprintf(&py, "def backoff_step_%d(attempt, base):\n    \"\"\"Compute the retry delay of step %d.\"\"\"\n    delay = base * (2 ** attempt) + %d\n    time.sleep(delay / 1000.0)\n    return delay\n\n\n", i, i, i)
	}
	for i := range 5 {
		fmt.Fprintf(&py, "def test_retry_delay_%d():\n    \"\"\"The retry delay grows.\"\"\"\n    assert backoff_step_%d(2, 10) > backoff_step_%d(1, 10)\n    time.sleep(0)\n    return True\n\n\n", i, i, i)
	}
	var gosrc strings.Builder
	gosrc.WriteString("package drain\n\n")
	for i := range 40 {
		fmt.Fprintf(&gosrc, "// Drain%d closes idle connections.\nfunc Drain%d(conns []int) int {\n\tn := 0\n\tfor _, c := range conns {\n\t\tn += c * %d // idle connection\n\t}\n\treturn n\n}\n\n", i, i, i)
	}
	var js strings.Builder
	js.WriteString("const assert = require('assert');\n\ndescribe('cookies', function () {\n")
	for i := range 40 {
		fmt.Fprintf(&js, "  it('sets the partitioned cookie option %d', function () {\n    const res = cookie('name%d', 'value', { partitioned: true });\n    assert.strictEqual(res.partitioned, true);\n    assert.ok(res.header.includes('Partitioned'));\n  });\n\n", i, i)
	}
	js.WriteString("});\n")
	files = map[string]string{"pkg/retry.py": py.String(), "drain/drain.go": gosrc.String(), "test/cookie.test.js": js.String()}
	return testutil.GitRepo(t, files), files
}

// focusOf runs focus lines over the repository's large files, as a
// request gathering them would (their token counts set large).
func focusOf(t *testing.T, e *Engine, files map[string]string, request string, task ctxd.TaskType) map[string][]int {
	t.Helper()
	var cs []ctxd.Chunk
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	}) {
		cs = append(cs, ctxd.Chunk{Source: p, ChunkType: ctxd.ChunkFile, Content: files[p], Tokens: 5000})
	}
	e.focusLines(t.Context(), query.Parse(request), task, cs, nil, nil, 0)
	out := map[string][]int{}
	for _, c := range cs {
		out[c.Source] = c.Facts.FocusLines
	}
	return out
}

// TestDefTermsRecorded: the background analysis records the definitions'
// terms of large source files, so a restarted engine's focus lines read
// none from the text; the focus lines are the same as an engine that read
// them; a corrupt record is read again from the text.
func TestDefTermsRecorded(t *testing.T) {
	dir, files := defTermsRepo(t)
	const request = "how are retry delays computed between attempts, and the partitioned cookie option 7"
	want := focusOf(t, reopener(t, dir, stateWithIndex(t))(), files, request, ctxd.TaskAnalyze)
	for _, p := range []string{"pkg/retry.py", "test/cookie.test.js"} {
		if len(want[p]) == 0 {
			t.Fatalf("no focus lines in %s: %v", p, want)
		}
	}

	state := stateWithIndex(t)
	open := reopener(t, dir, state)
	e1 := open()
	e1.StartAnalysis()
	waitAnalysis(t, e1)
	if st := e1.AnalysisStatus(); !st.Done {
		t.Fatalf("analysis status %+v", st)
	}
	if n := e1.store.DefTermsScans(); n != 0 {
		t.Errorf("the analysis counted %d request scans", n)
	}
	if n := e1.store.RecordCounts()[workspace.DefTermsName]; n != 3 {
		t.Errorf("%d records after the analysis, want 3 (the three large files)", n)
	}
	e1.Close()

	e2 := open()
	if got := focusOf(t, e2, files, request, ctxd.TaskAnalyze); !equalFocus(got, want) {
		t.Errorf("restarted focus %v, want %v", got, want)
	}
	if n := e2.store.DefTermsScans(); n != 0 {
		t.Errorf("restarted engine read %d files' definitions from the text, want 0", n)
	}
	e2.Close()

	// Corrupt every record: each is read again from the text, same result.
	dats, _ := filepath.Glob(filepath.Join(state, "index", workspace.DefTermsName+".*.dat"))
	if len(dats) == 0 {
		t.Fatal("no record data file")
	}
	for _, p := range dats {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b {
			b[i] ^= 0x5a
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e3 := open()
	if got := focusOf(t, e3, files, request, ctxd.TaskAnalyze); !equalFocus(got, want) {
		t.Errorf("focus after corruption %v, want %v", got, want)
	}
	if n := e3.store.DefTermsScans(); n != 3 {
		t.Errorf("after corruption %d files read from the text, want 3", n)
	}
}

// TestDefTermsTestsByTask: a source file's own tests are focus candidates
// for a test task only, whichever task came first to the same content (the
// terms are shared between tasks).
func TestDefTermsTestsByTask(t *testing.T) {
	dir, files := defTermsRepo(t)
	src := files["pkg/retry.py"]
	testLine := strings.Count(src[:strings.Index(src, "def test_retry_delay_0")], "\n") + 1
	const request = "the retry delay grows between attempts"
	for _, order := range [][]ctxd.TaskType{{ctxd.TaskTest, ctxd.TaskAnalyze}, {ctxd.TaskAnalyze, ctxd.TaskTest}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			e := reopener(t, dir, stateWithIndex(t))()
			for _, task := range order {
				got := focusOf(t, e, files, request, task)["pkg/retry.py"]
				hasTest := slices.ContainsFunc(got, func(l int) bool { return l >= testLine })
				if task == ctxd.TaskTest && !hasTest {
					t.Errorf("%s: focus %v has none of the tests (from line %d)", task, got, testLine)
				}
				if task != ctxd.TaskTest && hasTest {
					t.Errorf("%s: focus %v has a test (from line %d)", task, got, testLine)
				}
				if len(got) == 0 {
					t.Errorf("%s: no focus lines", task)
				}
			}
		})
	}
}

func equalFocus(a, b map[string][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
