package patience

import (
	"context"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	ctx := context.Background()
	if got := Limit(ctx, 2*time.Second); got != 2*time.Second {
		t.Errorf("Limit = %v, want the limit chosen", got)
	}
	var tl Tally
	u := Unbounded(ctx, &tl)
	if got := Limit(u, 2*time.Second); got != Long {
		t.Errorf("Unbounded Limit = %v, want %v", got, Long)
	}
	if got := Limit(u, 2*Long); got != 2*Long {
		t.Errorf("Unbounded Limit = %v, want the longer limit chosen", got)
	}
	ParseTimedOut(ctx) // not counted anywhere
	ParseTimedOut(u)
	ParseTimedOut(u)
	GitTimedOut(u)
	if tl.ParseTimeouts() != 2 || tl.GitTimeouts() != 1 {
		t.Errorf("tally = %d parses, %d git, want 2, 1", tl.ParseTimeouts(), tl.GitTimeouts())
	}
	if n := (*Tally)(nil).ParseTimeouts(); n != 0 {
		t.Errorf("nil tally = %d", n)
	}
	if got := Limit(Unbounded(ctx, nil), time.Second); got != Long {
		t.Errorf("Unbounded(nil) Limit = %v, want %v", got, Long)
	}
}
