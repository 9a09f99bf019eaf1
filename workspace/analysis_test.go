package workspace

import (
	"context"
	"log/slog"
	"runtime/debug"
	"testing"
	"time"
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
