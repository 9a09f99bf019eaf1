package workspace

import (
	"runtime/debug"
	"testing"
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
