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

func TestPercent(t *testing.T) {
	tests := []struct {
		name                  string
		base, slack, inflight int64
		percent, want         int
	}{
		{"a large idle process: the percentage", 100 << 20, 4 << 20, 1 << 20, 10, 10},
		{"the slack is more", 30 << 20, 4 << 20, 1 << 20, 10, 14},
		{"a body of the slack or more: the percentage", 30 << 20, 4 << 20, 4 << 20, 10, 10},
		{"the slack over the idle process: the default", 1 << 20, 4 << 20, 1 << 20, 10, 100},
		{"no idle memory read", 0, 4 << 20, 1, 10, 100},
		{"a huge slack", 1 << 40, math.MaxInt64 - 1, 1 << 30, 10, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percent(tt.base, tt.slack, tt.percent, tt.inflight); got != tt.want {
				t.Errorf("Percent = %d, want %d", got, tt.want)
			}
		})
	}
}

// fake is a runtime whose limit, percentage and idle memory the test
// sets.
type fake struct {
	limit, idle int64
	sets        []int64
	pct         int
}

func (f *fake) goal(perByte, slack int64) *Goal {
	g := New(10, perByte, slack)
	g.idle = func() int64 { return f.idle }
	g.setPercent = func(p int) int {
		old := f.pct
		f.pct = p
		return old
	}
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
	f := &fake{limit: math.MaxInt64, idle: 100, pct: 100}
	g := f.goal(4, 10)
	a := g.Hold(5) // 100 + max(10, 4*5)
	if f.limit != 120 {
		t.Fatalf("one body: limit %d, want 120", f.limit)
	}
	if f.pct != 10 {
		t.Fatalf("one body: GOGC %d, want 10", f.pct)
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
	if f.pct != 100 {
		t.Fatalf("none left: GOGC %d, want the one before (100)", f.pct)
	}
	c := g.Hold(1) // idle read again; the slack is more than 4*1
	if f.limit != 1010 {
		t.Fatalf("a new first body: limit %d, want 1010", f.limit)
	}
	c()

	// A lower limit already in force (GOMEMLIMIT, serve's) is kept;
	// so are a lower percentage (GOGC) and none (GOGC=off).
	f = &fake{limit: 50, idle: 100, pct: 5}
	g = f.goal(4, 10)
	release := g.Hold(5)
	if f.pct != 5 {
		t.Errorf("GOGC %d while held, want the 5 in force", f.pct)
	}
	release()
	for _, n := range f.sets {
		if n != 50 {
			t.Errorf("limit set to %d over the 50 in force", n)
		}
	}
	f = &fake{limit: math.MaxInt64, idle: 100, pct: -1}
	g = f.goal(4, 10)
	release = g.Hold(5)
	if f.pct != -1 {
		t.Errorf("GOGC %d while held, want off as in force", f.pct)
	}
	release()
	if f.pct != -1 {
		t.Errorf("GOGC %d after, want off as before", f.pct)
	}

	// Bodies under the slack: the percentage that gives the collector
	// the slack over the idle memory; over it, the goal's own.
	f = &fake{limit: math.MaxInt64, idle: 40, pct: 100}
	g = f.goal(4, 10)
	small := g.Hold(5)
	if f.pct != 25 {
		t.Errorf("a body under the slack: GOGC %d, want 25 (10 over 40 idle)", f.pct)
	}
	large := g.Hold(20)
	if f.pct != 10 {
		t.Errorf("bodies over the slack: GOGC %d, want 10", f.pct)
	}
	large()
	if f.pct != 25 {
		t.Errorf("the small body left: GOGC %d, want 25", f.pct)
	}
	small()
	if f.pct != 100 {
		t.Errorf("none left: GOGC %d, want 100", f.pct)
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
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	idle := idleMemory()
	if idle <= 0 {
		t.Fatalf("idle memory %d", idle)
	}
	release := New(10, 4, 1<<20).Hold(8 << 20)
	got := debug.SetMemoryLimit(-1)
	pct := debug.SetGCPercent(100)
	debug.SetGCPercent(pct)
	release()
	if pct != 10 { // 8 MiB in flight, over the slack
		t.Errorf("GOGC %d while held with %d idle and 8 MiB in flight, want 10", pct, idle)
	}
	if after := debug.SetGCPercent(100); after != 100 {
		t.Errorf("GOGC after release %d, want 100", after)
	}
	if got < idle+(32<<20) || got > 4*idle+(64<<20) {
		t.Errorf("limit %d with %d idle and 8 MiB in flight", got, idle)
	}
	if after := debug.SetMemoryLimit(-1); after != math.MaxInt64 {
		t.Errorf("limit after release %d, want none", after)
	}
}
