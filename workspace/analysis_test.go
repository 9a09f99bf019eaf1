package workspace

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/workspace/tree"
)

// TestLowerGC: the collector runs at analysisGCPercent while analyses
// run, back to what it was after the last, and is left alone when it is
// already lower or off.
func TestLowerGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct{ before, during int }{
		{100, analysisGCPercent},
		{200, analysisGCPercent},
		{20, 20},
		{-1, -1},
	} {
		debug.SetGCPercent(tc.before)
		end1 := lowerGC()
		end2 := lowerGC()
		if got := debug.SetGCPercent(-2); got != tc.during {
			t.Errorf("GOGC %d: %d during two analyses, want %d", tc.before, got, tc.during)
		}
		debug.SetGCPercent(tc.during)
		end1()
		if got := debug.SetGCPercent(tc.during); got != tc.during {
			t.Errorf("GOGC %d: %d while one analysis still runs, want %d", tc.before, got, tc.during)
		}
		end2()
		if got := debug.SetGCPercent(tc.before); got != tc.before {
			t.Errorf("GOGC %d: %d after the analyses, want it back", tc.before, got)
		}
	}
}

// TestContentSet: the set holds exactly the (path, content) pairs it was
// made of: a changed content or a new path is not in it.
func TestContentSet(t *testing.T) {
	s := contentSetOf(map[string]uint64{"a.go": 1, "b/c.go": 2, "d.py": 1})
	for _, c := range []struct {
		rel  string
		h    uint64
		want bool
	}{
		{"a.go", 1, true},
		{"b/c.go", 2, true},
		{"d.py", 1, true},
		{"a.go", 2, false},   // changed
		{"e.go", 1, false},   // new
		{"b/c.go", 1, false}, // another file's content
	} {
		if got := s.has(c.rel, c.h); got != c.want {
			t.Errorf("has(%q, %d) = %v, want %v", c.rel, c.h, got, c.want)
		}
	}
	if contentSetOf(nil).has("a.go", 1) {
		t.Error("the empty set has a pair")
	}
}

// TestHistoryInterruptedOnce: a request starting stops the history read
// once; the read after it runs to its end while requests run (under an
// agent's constant requests every restarted read was stopped again, and
// the line histories were never read).
func TestHistoryInterruptedOnce(t *testing.T) {
	var b Analysis
	started := make(chan int)
	finish := make(chan struct{})
	results := make(chan error, 4)
	tries := 0
	r := run{log: slog.New(slog.DiscardHandler), history: func(ctx context.Context) error {
		tries++
		started <- tries
		<-finish
		err := ctx.Err()
		results <- err
		return err
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.history(t.Context(), r)
	}()
	wait := func(want int) {
		select {
		case n := <-started:
			if n != want {
				t.Fatalf("attempt %d started, want %d", n, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("attempt %d never started", want)
		}
	}
	wait(1)
	release := b.Busy() // stops the first attempt
	finish <- struct{}{}
	if err := <-results; err == nil {
		t.Fatal("a request starting did not stop the first read")
	}
	release()
	wait(2)
	release = b.Busy() // does not stop the second
	defer release()
	finish <- struct{}{}
	if err := <-results; err != nil {
		t.Fatalf("the second read was stopped too (%v): a request stops it at most once", err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("history did not return after its read ended")
	}
}

// TestKickDuringFirstPass: a Kick while the first pass is still visiting
// files (a request found HEAD moved) runs the history step before the
// pass's next file, not after the whole pass (minutes on a large tree).
func TestKickDuringFirstPass(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.go", "b.go", "c.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("package p\n\nfunc "+strings.TrimSuffix(name, ".go")+"() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := tree.Open(dir, tree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	st := Open(Options{})
	defer st.Close()
	histories := make(chan struct{}, 8)
	inFile := make(chan string, 8)
	hold := make(chan struct{})
	var b Analysis
	b.Start(AnalysisOptions{
		Enabled: true, Tree: tr, Store: st,
		History: func(ctx context.Context) error {
			histories <- struct{}{}
			return nil
		},
		File: func(ctx context.Context, rel string, text []byte) error {
			inFile <- rel
			<-hold // every file takes as long as the test wants
			return nil
		},
	})
	defer func() {
		close(hold)
		b.Stop()
	}()
	within := func(what string, c <-chan struct{}) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(10 * time.Second):
			t.Fatal(what)
		}
	}
	within("no history read before the first pass", histories)
	var first string
	select {
	case first = <-inFile:
	case <-time.After(10 * time.Second):
		t.Fatal("the first pass visited no file")
	}
	b.Kick()
	hold <- struct{}{} // the first file ends; the pass goes on
	within("the kicked history read waited for the first pass to end (it was in "+first+")", histories)
}
