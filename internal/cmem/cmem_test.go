package cmem

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestStatsTrim: where the C library reports its heap, what is in use
// is within what is held, and Trim leaves it usable.
func TestStatsTrim(t *testing.T) {
	inuse, held, ok := Stats()
	if !ok {
		t.Skip("no mallinfo2 here")
	}
	if inuse > held {
		t.Errorf("in use %d > held %d", inuse, held)
	}
	Trim()
	if _, _, ok := Stats(); !ok {
		t.Error("no stats after Trim")
	}
}

// TestTrimWhileBusyStops: the trimmer ends with its context, also while
// the collector runs.
func TestTrimWhileBusyStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		TrimWhileBusy(ctx, time.Millisecond)
		close(done)
	}()
	for range 5 {
		runtime.GC()
		time.Sleep(2 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("TrimWhileBusy did not return after its context ended")
	}
}
