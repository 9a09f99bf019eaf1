package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestUsageErrorsExit2: every mistake in how ctxd is called exits 2 with
// a message naming the mistake, as the README promises.
func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := testutil.GitRepo(t, sampleRepo)
	runFailures(t, dir, []cliFailure{
		{"budget zero", []string{"prompt", "--budget", "0", "explain"}, 2, "--budget 0: a token budget must be positive"},
		{"budget negative", []string{"prompt", "--budget", "-5", "explain"}, 2, "--budget must not be negative (got -5)"},
		{"max-files negative", []string{"prompt", "--max-files", "-1", "explain"}, 2, "--max-files must not be negative (got -1)"},
		{"context budget zero", []string{"prompt", "--context-budget=0", "explain"}, 2, "--context-budget 0: a token budget must be positive"},
		{"unknown task", []string{"prompt", "--task", "fixit", "explain"}, 2, `--task: unknown task type "fixit"`},
		{"unknown format", []string{"prompt", "--format", "yaml", "explain"}, 2, `--format: unknown format "yaml" (want markdown or xml)`},
		{"help of an unknown command", []string{"help", "nosuch"}, 2, `unknown command "nosuch"`},
		// A missing directory said "/x: lstat /abs/x: no such file or
		// directory".
		{"missing root", []string{"prompt", "--root", "nosuch-dir", "explain"}, 1, "ctxd prompt: workspace root: nosuch-dir: no such file or directory\n"},
		{"missing PATH", []string{"tokens", "nosuch-dir"}, 1, "ctxd tokens: nosuch-dir: no such file or directory\n"},
		// A file outside the workspace was a failure (exit 1) that said
		// "gather: open file: resolve path ...".
		{"open outside the workspace", []string{"prompt", "--open", "../outside.go:3", "explain"}, 2, "--open ../outside.go:3: outside the workspace "},
		// A typo printed the whole help, 40 lines, and no suggestion.
		{"mistyped command", []string{"promt", "explain"}, 2, `ctxd: unknown command "promt" (did you mean prompt?); ctxd help lists the commands` + "\n"},
		{"help of a mistyped command", []string{"help", "sesions"}, 2, `ctxd: unknown command "sesions" (did you mean sessions?)`},
		{"unknown level", []string{"truncate", "--level", "body", "a.go"}, 2, `--level: unknown level "body" (want full, bodies, signatures, outline, focus or focus-only)` + "\n"},
		{"no level", []string{"truncate", "a.go"}, 2, "--level is required: full, bodies"},
		{"unknown proxy mode", []string{"proxy", "--mode", "shdow", "--upstream", "http://127.0.0.1:9"}, 2, `--mode: unknown mode "shdow" (want exact, shadow or optimize)` + "\n"},
	})
	// The valid spellings still work.
	if _, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--budget", "4000", "--task", "analyze", "--format", "xml", "explain"); code != 0 {
		t.Errorf("valid flags: exit %d: %s", code, errOut)
	}
	if out, _, code := runCtxd(t, dir, "", nil, "help", "prompt"); code != 0 || !strings.Contains(out, "usage: ctxd prompt") {
		t.Errorf("help prompt: exit %d: %q", code, out)
	}
	// help of help, or of a flag, is the general help (it said: unknown
	// command "-h").
	for _, arg := range []string{"help", "-h", "--help"} {
		if out, errOut, code := runCtxd(t, dir, "", nil, "help", arg); code != 0 || !strings.Contains(out, "usage: ctxd COMMAND") {
			t.Errorf("help %s: exit %d: %q %q", arg, code, out, errOut)
		}
	}
}

// TestHelpListsEachFlagOnce: no command's flag list repeats a flag.
func TestHelpListsEachFlagOnce(t *testing.T) {
	for _, cmd := range []string{"prompt", "pack", "tokens"} {
		_, errOut, code := runCtxd(t, t.TempDir(), "", nil, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		seen := map[string]bool{}
		for _, line := range strings.Split(errOut, "\n") {
			if !strings.HasPrefix(line, "  --") {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "  --"), " ")
			if seen[name] {
				t.Errorf("ctxd %s --help lists --%s twice:\n%s", cmd, name, errOut)
			}
			seen[name] = true
		}
		if !seen["root"] {
			t.Errorf("ctxd %s --help: no --root in\n%s", cmd, errOut)
		}
	}
}

// TestHelpOneLetterFlag: a one-letter flag is listed and suggested as the
// usage line and the README write it, -v, not --v.
func TestHelpOneLetterFlag(t *testing.T) {
	for _, sub := range []string{"recall", "swebench"} {
		_, errOut, code := runCtxd(t, t.TempDir(), "", nil, "eval", sub, "-h")
		if code != 0 || !strings.Contains(errOut, "\n  -v\n    \tprint one line per ") || strings.Contains(errOut, "--v") {
			t.Errorf("ctxd eval %s -h: exit %d, want -v listed, never --v:\n%s", sub, code, errOut)
		}
	}
	_, errOut, code := runCtxd(t, t.TempDir(), "", nil, "eval", "recall", "--vv")
	if code != 2 || !strings.Contains(errOut, "unknown flag --vv (did you mean -v?)") {
		t.Errorf("ctxd eval recall --vv: exit %d: %s", code, errOut)
	}
}

// TestPromptOutsideGitWarns: outside a git repository prompt still runs on
// the current directory (exit 0) but says so on stderr; with --root, or
// inside a repository, it says nothing.
func TestPromptOutsideGitWarns(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	plain, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for d := plain; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			t.Fatalf("the temp directory %s is inside a git repository (%s); set TMPDIR elsewhere", plain, d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	testutil.WriteFiles(t, plain, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	warning := "ctxd: not in a git repository: using " + plain + " as the workspace (pass --root DIR to choose)"
	out, errOut, code := runCtxd(t, plain, "", nil, "prompt", "explain A")
	if code != 0 || !strings.Contains(errOut, warning) || !strings.Contains(out, "a.go") {
		t.Errorf("outside git: exit %d, stderr %q, stdout has a.go: %v; want exit 0 and %q", code, errOut, strings.Contains(out, "a.go"), warning)
	}
	if _, errOut, code := runCtxd(t, plain, "", nil, "prompt", "--root", plain, "explain A"); code != 0 || strings.Contains(errOut, "not in a git repository") {
		t.Errorf("--root given: exit %d, stderr %q", code, errOut)
	}
	repo := testutil.GitRepo(t, sampleRepo)
	if _, errOut, code := runCtxd(t, repo, "", nil, "prompt", "explain"); code != 0 || strings.Contains(errOut, "not in a git repository") {
		t.Errorf("inside git: exit %d, stderr %q", code, errOut)
	}
}

// TestPromptSessionIDIsHonest: a prompt shows a session id only when it
// saved a checkpoint under it, and ctxd sessions list then shows that id.
func TestPromptSessionIDIsHonest(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := testutil.GitRepo(t, sampleRepo)
	state := []string{"CTXD_STATE_DIR=" + filepath.Join(t.TempDir(), "state")}
	out, errOut, code := runCtxd(t, dir, "", state, "prompt", "--json", "explain")
	if code != 0 {
		t.Fatalf("prompt: exit %d: %s", code, errOut)
	}
	if strings.Contains(out, `"session_id"`) {
		t.Errorf("prompt without --session shows a session_id that nothing saved")
	}
	list, errOut, code := runCtxd(t, dir, "", state, "sessions", "list")
	if code != 0 || !strings.Contains(strings.ToLower(list), "no sessions") {
		t.Errorf("sessions list after an unsaved prompt: exit %d: %q %s", code, list, errOut)
	}
	out, errOut, code = runCtxd(t, dir, "", state, "prompt", "--json", "--session", "s-polish-1", "explain")
	if code != 0 || !strings.Contains(out, `"session_id": "s-polish-1"`) {
		t.Fatalf("prompt --session: exit %d: %s", code, errOut)
	}
	list, errOut, code = runCtxd(t, dir, "", state, "sessions", "list")
	if code != 0 || !strings.Contains(list, "s-polish-1") {
		t.Errorf("sessions list does not show the saved session: exit %d: %q %s", code, list, errOut)
	}
}

// TestSessionsNotFoundNamesTheSession: a missing session is named as the
// user typed it, without the store's operation ("restore: …" answered
// show), with where to look.
func TestSessionsNotFoundNamesTheSession(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	state := t.TempDir()
	for _, sub := range []string{"show", "timeline", "resume", "rm"} {
		_, errOut, code := runCtxd(t, dir, "", nil, "sessions", sub, "--state-dir", state, "nosuch")
		want := `ctxd sessions: no session "nosuch" (ctxd sessions list shows the saved sessions; --state-dir names another state directory)` + "\n"
		if code != 1 || errOut != want {
			t.Errorf("sessions %s nosuch: exit %d, stderr %q; want exit 1 and %q", sub, code, errOut, want)
		}
	}
}

// TestPipedLogKeepsCode: README's `go test ./... 2>&1 | ctxd prompt --task
// debug -` with a long log (40 KB of passing tests, then the failure):
// the prompt held the log, its middle cut, and no code at all ("no
// context fits"); the log is cut to its share and half the context's,
// and the file the failure names is in the prompt with the failing line.
func TestPipedLogKeepsCode(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	var log strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&log, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
	}
	log.WriteString("--- FAIL: TestTotal (0.00s)\npanic: runtime error: index out of range [recovered]\n\ngoroutine 7 [running]:\nexample.com/shop/cart.(*Cart).Total(...)\n\t" + filepath.Join(dir, "cart", "cart.go") + ":12 +0x1d\nFAIL\texample.com/shop/cart\t0.01s\n")
	out, errOut, code := runCtxd(t, dir, log.String(), nil, "prompt", "--task", "debug", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "its middle was cut to fit, and the context keeps") || strings.Contains(errOut, "no context fits") {
		t.Errorf("stderr %q: want the cut said, with context kept", errOut)
	}
	for _, want := range []string{"## cart/cart.go", "n += it.Qty", "--- FAIL: TestTotal"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	// Over the 256 KiB a request may be, a piped log was refused
	// ("user_request is 420007 bytes, over the 262144 ..."): its head and
	// tail are kept, and it says so.
	big := strings.Repeat("=== RUN   TestCase\n--- PASS: TestCase (0.00s)\n", 9000) + log.String()
	out, errOut, code = runCtxd(t, dir, big, nil, "prompt", "--task", "debug", "-")
	want := fmt.Sprintf("ctxd: standard input is %d bytes, over the 262144 a request may be: its middle was left out", len(big))
	if code != 0 || !strings.Contains(errOut, want) || !strings.Contains(out, "--- FAIL: TestTotal") || !strings.Contains(out, "=== RUN   TestCase\n") || !strings.Contains(out, "## cart/cart.go") {
		t.Errorf("a %d-byte log: exit %d, stderr %q; want %q, the log's head and tail and cart.go in the prompt", len(big), code, errOut, want)
	}
}

// TestCutLines: the cut keeps whole lines from both ends within max bytes,
// as much head as tail (engine.RequestTailRatio, the engine's token cut's
// ratio), and says how much it left out.
func TestCutLines(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	got := string(cutLines([]byte(b.String()), 400, engine.RequestTailRatio))
	head, tail, _ := strings.Cut(got, "\n... [")
	tail = tail[strings.Index(tail, "\n")+1:]
	// Lines are at most 9 bytes: each side gives up at most one to keep
	// whole lines.
	if d := len(head) - len(tail); d < -2*9 || d > 2*9 {
		t.Errorf("head %d bytes, tail %d: want half each (tail ratio %v)", len(head), len(tail), engine.RequestTailRatio)
	}
	if len(got) > 400 || !strings.HasPrefix(got, "line 0\nline 1\n") || !strings.HasSuffix(got, "line 999\n") || !strings.Contains(got, " bytes left out by ctxd] ...\nline ") {
		t.Errorf("cut %d bytes:\n%s", len(got), got)
	}
	var left int
	if _, err := fmt.Sscanf(got[strings.Index(got, "... [")+5:], "%d", &left); err != nil || len(got)-len(fmt.Sprintf("\n... [%d bytes left out by ctxd] ...\n", left))+left != b.Len() {
		t.Errorf("left out %d of %d (kept %d): %v", left, b.Len(), len(got), err)
	}
}
