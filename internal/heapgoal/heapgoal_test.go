package heapgoal

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	tests := []struct {
		name                           string
		base, slack, perByte, inflight int64
		want                           int64
	}{
		{"idle", 30 << 20, 4 << 20, 4, 0, 34 << 20},
		{"a body under the slack's quarter", 30 << 20, 4 << 20, 4, 512 << 10, 34 << 20},
		{"2 MB body", 30 << 20, 4 << 20, 4, 2 << 20, 38 << 20},
		{"slack saturates", 1 << 40, math.MaxInt64 - 1, 4, 1, math.MaxInt64},
		{"saturates", 1 << 40, 0, 4, math.MaxInt64 / 2, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Limit(tt.base, tt.slack, tt.perByte, tt.inflight); got != tt.want {
				t.Errorf("Limit = %d, want %d", got, tt.want)
			}
		})
	}
}

// fake is a runtime whose limit and idle memory the test sets.
type fake struct {
	limit, idle int64
	sets        []int64
}

func (f *fake) goal(perByte, slack int64) *Goal {
	g := New(perByte, slack)
	g.idle = func() int64 { return f.idle }
	g.setLimit = func(n int64) int64 {
		old := f.limit
		if n >= 0 {
			f.limit = n
			f.sets = append(f.sets, n)
		}
		return old
	}
	return g
}

func TestHold(t *testing.T) {
	f := &fake{limit: math.MaxInt64, idle: 100}
	g := f.goal(4, 10)
	a := g.Hold(5) // 100 + max(10, 4*5)
	if f.limit != 120 {
		t.Fatalf("one body: limit %d, want 120", f.limit)
	}
	f.idle = 1000 // read only when the first body arrives
	b := g.Hold(20)
	if f.limit != 200 {
		t.Fatalf("two bodies: limit %d, want 200", f.limit)
	}
	a()
	a() // a second call does nothing
	if f.limit != 180 {
		t.Fatalf("one body left: limit %d, want 180", f.limit)
	}
	b()
	if f.limit != math.MaxInt64 {
		t.Fatalf("none left: limit %d, want the one before (no limit)", f.limit)
	}
	c := g.Hold(1) // idle read again; the slack is more than 4*1
	if f.limit != 1010 {
		t.Fatalf("a new first body: limit %d, want 1010", f.limit)
	}
	c()

	// A lower limit already in force (GOMEMLIMIT, serve's) is kept.
	f = &fake{limit: 50, idle: 100}
	g = f.goal(4, 10)
	g.Hold(5)()
	for _, n := range f.sets {
		if n != 50 {
			t.Errorf("limit set to %d over the 50 in force", n)
		}
	}

	var none *Goal
	none.Hold(1 << 30)() // a nil goal does nothing
}

// TestRuntime holds a body against the real runtime: a finite limit
// above what the process holds while it is in flight, the limit before
// it once released.
func TestRuntime(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	debug.SetMemoryLimit(math.MaxInt64)
	idle := idleMemory()
	if idle <= 0 {
		t.Fatalf("idle memory %d", idle)
	}
	release := New(4, 1<<20).Hold(8 << 20)
	got := debug.SetMemoryLimit(-1)
	release()
	if got < idle+(32<<20) || got > 4*idle+(64<<20) {
		t.Errorf("limit %d with %d idle and 8 MiB in flight", got, idle)
	}
	if after := debug.SetMemoryLimit(-1); after != math.MaxInt64 {
		t.Errorf("limit after release %d, want none", after)
	}
}
