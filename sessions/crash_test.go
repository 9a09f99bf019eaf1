package sessions

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// The crash and two-writer tests run this test binary again as a child
// process, selected by envHelper.
const (
	envHelper  = "CTXD_CRASH_HELPER"
	envDir     = "CTXD_CRASH_DIR"
	envWriter  = "CTXD_CRASH_WRITER"
	envWrites  = "CTXD_CRASH_WRITES"
	envKills   = "CTXD_CRASH_KILLS"
	crashKeep  = 4
	crashMsgs  = 200
	crashChunk = 50
)

var crashIDs = []string{"crash-a", "crash-b", "crash-c"}

// crashCheckpoint is the checkpoint the saver writes as number seq of
// session id: a function of both, so the parent can tell what each file
// must hold.
func crashCheckpoint(id string, seq int) *Checkpoint {
	cp := sample(id, seq, crashMsgs, crashChunk, "crash")
	cp.Seq = seq
	return cp
}

// TestHelperProcess is the child process of the crash and two-writer
// tests; run directly it has nothing to do.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(envHelper)
	if mode == "" {
		t.Skip("the child process of TestCrashKill and TestTwoProcessesOneSession")
	}
	ctx := context.Background()
	switch mode {
	case "saver":
		s, err := Open(os.Getenv(envDir), Options{Keep: crashKeep})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("ready")
		for i := 0; ; i++ {
			id := crashIDs[i%len(crashIDs)]
			cp, err := s.Append(ctx, id, func(_ *Checkpoint, seq int) (*Checkpoint, error) { return crashCheckpoint(id, seq), nil })
			if err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
			fmt.Println("saved", id, cp.Seq)
		}
	case "writer":
		s, err := Open(os.Getenv(envDir), Options{Keep: -1})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		n, _ := strconv.Atoi(os.Getenv(envWrites))
		w := os.Getenv(envWriter)
		fmt.Println("ready")
		// Start together: wait for the parent's go.
		if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
			os.Exit(3)
		}
		for i := range n {
			if _, err := s.Save(ctx, sample("shared", 0, 20, 5, fmt.Sprintf("%s-%d", w, i))); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		fmt.Println("done")
	}
	os.Exit(0)
}

// helper is the test binary the children run: this one, or under -race a
// copy built without it (a race binary takes a second to start on a busy
// machine, and the children are single goroutines with nothing to race).
var helper struct {
	once sync.Once
	path string
	dir  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if helper.dir != "" {
		os.RemoveAll(helper.dir)
	}
	os.Exit(code)
}

func helperBinary(t *testing.T) string {
	t.Helper()
	helper.once.Do(func() {
		helper.path = os.Args[0]
		if !testutil.RaceEnabled || os.Getenv(envHelper) != "" {
			return
		}
		dir, err := os.MkdirTemp("", "ctxd-sessions-helper-")
		if err != nil {
			return
		}
		helper.dir = dir
		bin := filepath.Join(dir, "sessions.test")
		build := exec.Command("go", "test", "-c", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Logf("building a helper without -race failed, children run the race binary: %v\n%s", err, out)
			return
		}
		helper.path = bin
	})
	return helper.path
}

// child starts this test binary as a helper and returns its output lines.
func child(t *testing.T, env ...string) (*exec.Cmd, io.WriteCloser, <-chan string) {
	t.Helper()
	cmd := exec.Command(helperBinary(t), "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	in, out := testutil.StartPiped(t, cmd)
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return cmd, in, lines
}

// waitReady reads lines until the child says ready.
func waitReady(t *testing.T, lines <-chan string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the child exited before it was ready")
			}
			if l == "ready" {
				return
			}
			if strings.HasPrefix(l, "error") {
				t.Fatalf("child: %s", l)
			}
		case <-timeout:
			t.Fatal("the child did not get ready in 60s")
		}
	}
}

// TestCrashKill kills a process that saves checkpoints in a loop with
// SIGKILL at random moments, again and again; after each kill every
// session must list, the newest checkpoint on disk must restore and hold
// exactly what was written as that number, it must be the last save
// reported or the one in flight, and no file may fail to verify.
// CTXD_CRASH_KILLS sets the number of kills (default 50, 10 with -short).
func TestCrashKill(t *testing.T) {
	kills := 50
	if testing.Short() {
		kills = 10
	}
	if v := os.Getenv(envKills); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", envKills, v)
		}
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("random seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0x5e55))
	dir := filepath.Join(t.TempDir(), "sessions")
	last := map[string]int{}    // newest seq the saver reported, per session
	pending := map[string]int{} // a published seq the saver did not report
	saves, inFlight, orphans := 0, 0, 0
	// The kill lands at a random moment within the first few saves; the
	// window adapts to how long a save takes here (much longer under
	// -race), so runs neither die before saving nor save for long.
	window := 40 * time.Millisecond
	for k := range kills {
		cmd, _, lines := child(t, envHelper+"=saver", envDir+"="+dir)
		waitReady(t, lines)
		time.Sleep(time.Duration(rng.Int64N(int64(window))))
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Read to the end before Wait (which closes the pipe): the child
		// is dead, so its stdout ends once the scanner has read it all.
		var got []string
		for l := range lines {
			got = append(got, l)
		}
		_ = cmd.Wait()
		run := 0
		for _, l := range got {
			f := strings.Fields(l)
			if len(f) == 3 && f[0] == "saved" {
				n, _ := strconv.Atoi(f[2])
				last[f[1]] = n
				run++
				continue
			}
			t.Fatalf("kill %d: child said %q", k, l)
		}
		saves += run
		inFlight += checkAfterCrash(t, k, dir, last, pending)
		switch {
		case run == 0 && window < 2*time.Second:
			window *= 2
		case run > 8 && window > 5*time.Millisecond:
			window /= 2
		}
		orphans += countTemps(t, dir)
	}
	if saves == 0 {
		t.Fatal("the saver never completed a save: the kills tested nothing")
	}
	t.Logf("%d kills, %d saves reported, %d checkpoints published but unreported when killed, %d orphaned temp files seen, final window %s", kills, saves, inFlight, orphans, window)
}

// checkAfterCrash verifies the store after a kill and returns how many
// checkpoints were published by this run but not reported (at most the
// one save in flight). pending holds such checkpoints of earlier runs,
// which stay unreported until the session's next save.
func checkAfterCrash(t *testing.T, k int, dir string, last, pending map[string]int) int {
	t.Helper()
	ctx := t.Context()
	s := openStoreIn(t, dir, Options{Keep: crashKeep})
	l, err := s.List(ctx)
	if err != nil {
		t.Fatalf("kill %d: list: %v", k, err)
	}
	if len(l.Problems) > 0 {
		t.Fatalf("kill %d: list reports problems: %+v", k, l.Problems)
	}
	listed := map[string]int{}
	for _, in := range l.Sessions {
		listed[in.SessionID] = in.LatestSeq
	}
	unreported := 0
	for _, id := range crashIDs {
		want, reported := last[id]
		got, ok := listed[id]
		if reported && !ok {
			t.Fatalf("kill %d: session %s (saved up to %d) does not list", k, id, want)
		}
		if !ok {
			continue
		}
		known := max(want, pending[id])
		if got < known {
			t.Fatalf("kill %d: session %s lists checkpoint %d, but %d was saved before: a checkpoint was lost", k, id, got, known)
		}
		unreported += got - known
		if got > want {
			pending[id] = got
		} else {
			delete(pending, id)
		}
		r, err := s.Restore(ctx, id, 0)
		if err != nil {
			t.Fatalf("kill %d: restore %s: %v", k, id, err)
		}
		if len(r.Problems) > 0 || r.Checkpoint.Seq != got {
			t.Fatalf("kill %d: restore %s: seq %d problems %+v", k, id, r.Checkpoint.Seq, r.Problems)
		}
		if !bytes.Equal(mustEncode(t, r.Checkpoint), mustEncode(t, crashCheckpoint(id, got))) {
			t.Fatalf("kill %d: %s checkpoint %d does not hold what was written", k, id, got)
		}
		tl, err := s.Timeline(ctx, id)
		if err != nil {
			t.Fatalf("kill %d: timeline %s: %v", k, id, err)
		}
		if len(tl.Problems) > 0 {
			t.Fatalf("kill %d: %s has a file that does not verify: %+v", k, id, tl.Problems)
		}
		if newest := tl.Entries[len(tl.Entries)-1].Seq; newest != got {
			t.Fatalf("kill %d: %s newest file is %d, restore gave %d", k, id, newest, got)
		}
	}
	if unreported > 1 {
		t.Fatalf("kill %d: %d sessions got an unreported checkpoint; one save at a time was in flight", k, unreported)
	}
	return unreported
}

func countTemps(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, id := range crashIDs {
		ents, err := os.ReadDir(filepath.Join(dir, id))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), tempPrefix) {
				n++
			}
		}
	}
	return n
}

// TestTwoProcessesOneSession runs two processes that save N checkpoints
// each to one session at the same time: afterwards the session holds
// exactly 2N checkpoints, numbered 1..2N, all valid, and every save of
// both writers is among them.
func TestTwoProcessesOneSession(t *testing.T) {
	const n = 40
	dir := filepath.Join(t.TempDir(), "sessions")
	type proc struct {
		cmd   *exec.Cmd
		in    io.WriteCloser
		lines <-chan string
	}
	var ps []proc
	for _, w := range []string{"w1", "w2"} {
		cmd, in, lines := child(t, envHelper+"=writer", envDir+"="+dir, envWriter+"="+w, envWrites+"="+strconv.Itoa(n))
		ps = append(ps, proc{cmd, in, lines})
	}
	for _, p := range ps {
		waitReady(t, p.lines)
	}
	for _, p := range ps {
		if _, err := io.WriteString(p.in, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range ps {
		// Read to the end before Wait: Wait closes the stdout pipe, and a
		// line the scanner had not read yet would be lost.
		var out []string
		for l := range p.lines {
			out = append(out, l)
		}
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("writer %d: %v", i+1, err)
		}
		if len(out) != 1 || out[0] != "done" {
			t.Fatalf("writer %d said %q", i+1, out)
		}
	}
	s := openStoreIn(t, dir, Options{})
	tl, err := s.Timeline(t.Context(), "shared")
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Entries) != 2*n || len(tl.Problems) != 0 {
		t.Fatalf("%d checkpoints (%d problems), want %d", len(tl.Entries), len(tl.Problems), 2*n)
	}
	want := map[string]bool{}
	for _, w := range []string{"w1", "w2"} {
		for i := range n {
			want[fmt.Sprintf("fix the failing login test (%s-%d #0)", w, i)] = true
		}
	}
	interleaved := 0
	for i, e := range tl.Entries {
		if e.Seq != i+1 {
			t.Errorf("entry %d has seq %d", i, e.Seq)
		}
		if !want[e.UserRequest] {
			t.Errorf("checkpoint %d holds %q: not one save, or saved twice", e.Seq, e.UserRequest)
		}
		delete(want, e.UserRequest)
		if i > 0 && strings.Contains(e.UserRequest, "(w1") != strings.Contains(tl.Entries[i-1].UserRequest, "(w1") {
			interleaved++
		}
	}
	if len(want) > 0 {
		t.Errorf("%d saves are missing", len(want))
	}
	if interleaved == 0 {
		t.Error("the writers never interleaved: the test did not run them concurrently")
	}
	t.Logf("the writers took turns %d times", interleaved)
}
