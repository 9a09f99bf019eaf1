package udiff

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

func TestHunkHeader(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		old, new Range
		ok       bool
	}{
		{"both counts", "@@ -12,3 +12,4 @@", Range{12, 3}, Range{12, 4}, true},
		{"counts left out", "@@ -7 +9 @@", Range{7, 1}, Range{9, 1}, true},
		{"pure insertion", "@@ -0,0 +1,3 @@", Range{0, 0}, Range{1, 3}, true},
		{"deletion", "@@ -5,2 +4,0 @@ func f() {", Range{5, 2}, Range{4, 0}, true},
		{"function after", "@@ -1 +1,2 @@ class A:", Range{1, 1}, Range{1, 2}, true},
		{"leading zeros", "@@ -007,02 +1 @@", Range{7, 2}, Range{1, 1}, true},
		{"no closing", "@@ -1,2 +1,2", Range{}, Range{}, false},
		{"closing glued", "@@ -1,2 +1,2@@", Range{}, Range{}, false},
		{"signed start", "@@ --1,2 +1,2 @@", Range{}, Range{}, false},
		{"signed count", "@@ -1,-2 +1,2 @@", Range{}, Range{}, false},
		{"plus sign", "@@ -1,2 ++1,2 @@", Range{}, Range{}, false},
		{"two spaces", "@@ -1,2  +1,2 @@", Range{}, Range{}, false},
		{"empty count", "@@ -1, +1,2 @@", Range{}, Range{}, false},
		{"combined diff", "@@@ -1,2 -1,2 +1,3 @@@", Range{}, Range{}, false},
		{"overflow", "@@ -99999999999999999999,1 +1 @@", Range{}, Range{}, false},
		{"too big for int32", "@@ -2147483648 +1 @@", Range{}, Range{}, false},
		{"largest", "@@ -2147483647 +1 @@", Range{2147483647, 1}, Range{1, 1}, true},
		{"not a header", "+@@ -1 +1 @@", Range{}, Range{}, false},
		{"empty", "", Range{}, Range{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, new, ok := HunkHeader(tt.line)
			if old != tt.old || new != tt.new || ok != tt.ok {
				t.Errorf("HunkHeader(%q) = %v, %v, %v; want %v, %v, %v", tt.line, old, new, ok, tt.old, tt.new, tt.ok)
			}
		})
	}
}

// oracle is the header as a regular expression: the grammar HunkHeader
// reads, said another way.
var oracle = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// FuzzHunkHeader: on any line HunkHeader agrees with the regular
// expression (within its number bound), never returns a negative number,
// and a header it formats reads back the same.
func FuzzHunkHeader(f *testing.F) {
	for _, s := range []string{"@@ -12,3 +12,4 @@", "@@ -0,0 +1 @@ x", "@@ -1,2 +1,2", "@@ --1 +1 @@", "@@ -1,2147483648 +1 @@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		old, new, ok := HunkHeader(line)
		if !ok {
			if old != (Range{}) || new != (Range{}) {
				t.Fatalf("%q: refused with ranges %v %v", line, old, new)
			}
		}
		for _, r := range []Range{old, new} {
			if r.Start < 0 || r.Lines < 0 || r.Start > maxNumber || r.Lines > maxNumber {
				t.Fatalf("%q: range %v out of bounds", line, r)
			}
		}
		m := oracle.FindStringSubmatch(line)
		inBound := m != nil
		for k := 1; inBound && k < len(m); k++ {
			if g := m[k]; g == "" {
				continue
			} else if n, err := strconv.ParseUint(g, 10, 64); err != nil || n > maxNumber {
				inBound = false
			}
		}
		if ok != inBound {
			t.Fatalf("%q: ok %v, the regular expression %v", line, ok, m)
		}
		if ok {
			want := [4]int{num(m[1]), num(m[2]), num(m[3]), num(m[4])}
			if got := [4]int{old.Start, old.Lines, new.Start, new.Lines}; got != want {
				t.Fatalf("%q: %v, the regular expression %v", line, got, want)
			}
			o2, n2, ok2 := HunkHeader(fmt.Sprintf("@@ -%d,%d +%d,%d @@", old.Start, old.Lines, new.Start, new.Lines))
			if !ok2 || o2 != old || n2 != new {
				t.Fatalf("%q: formatted again reads %v %v %v", line, o2, n2, ok2)
			}
		}
	})
}

// num reads a matched group, 1 when the group is empty (a count left out).
func num(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}
