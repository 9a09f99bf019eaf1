//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/patience"
)

// TestUnbounded: under a patience.Unbounded context (ctxd eval) a parse
// is not bounded by the limit a request chooses (Options.Timeout,
// DefaultTimeout), so a measurement's views do not depend on the
// machine's load; what times out anyway (a deadline of the caller's own)
// is counted.
func TestUnbounded(t *testing.T) {
	const tiny = time.Microsecond // far less than a 1 MB parse takes
	// A request's limit stands: the parse times out, counted nowhere.
	_, err := Views(t.Context(), "go", bigGo("unbounded request"), Options{Timeout: tiny})
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("request: got %v, want a *TimeoutError", err)
	}
	var tl patience.Tally
	ctx := patience.Unbounded(t.Context(), &tl)
	// Under eval the same limit is lifted: the views are there.
	src := bigGo("unbounded eval")
	vs, err := Views(ctx, "go", src, Options{Timeout: tiny})
	if err != nil || len(vs) < 3 {
		t.Fatalf("eval: got %d views, %v, want every level", len(vs), err)
	}
	if _, err := Symbols(ctx, "go", bigGo("unbounded eval symbols")); err != nil {
		t.Errorf("eval Symbols: %v", err)
	}
	if n := tl.ParseTimeouts(); n != 0 {
		t.Errorf("%d parses counted as timed out, want 0", n)
	}
	// A deadline of the caller's own still applies, and is counted.
	dctx, cancel := context.WithTimeout(ctx, tiny)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, err := Views(dctx, "go", bigGo("unbounded deadline"), Options{}); !errors.As(err, &te) {
		t.Fatalf("eval with a passed deadline: got %v, want a *TimeoutError", err)
	}
	if _, err := Symbols(dctx, "go", bigGo("unbounded deadline symbols")); !errors.As(err, &te) {
		t.Fatalf("eval Symbols with a passed deadline: got %v, want a *TimeoutError", err)
	}
	if n := tl.ParseTimeouts(); n != 2 {
		t.Errorf("%d parses counted as timed out, want 2", n)
	}
}
