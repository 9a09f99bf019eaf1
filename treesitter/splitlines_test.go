package treesitter

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitLines: lines cut at a line index are strings.SplitAfter's.
func TestSplitLines(t *testing.T) {
	for _, src := range []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "a\r\nb\r\n", "\n a \n\n b", "é\n\x00\n\xff"} {
		want := strings.SplitAfter(src, "\n")
		if got := splitLines([]byte(src), newLineIndex([]byte(src))); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
		if got := splitLines([]byte(src), nil); !slices.Equal(got, want) {
			t.Errorf("%q without index: %q, want %q", src, got, want)
		}
	}
}

// lineIndexBefore is newLineIndex as written before (a byte loop).
func lineIndexBefore(src []byte) lineIndex {
	li := lineIndex{0}
	for i, b := range src {
		if b == '\n' {
			li = append(li, i+1)
		}
	}
	return li
}

func TestNewLineIndex(t *testing.T) {
	long := strings.Repeat("func f() {}\n\n", 5000) + "x"
	for _, src := range []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "a\r\nb\r\n", "\n a \n\n b", "é\n\x00\n\xff", long} {
		if got, want := newLineIndex([]byte(src)), lineIndexBefore([]byte(src)); !slices.Equal(got, want) {
			t.Errorf("%.40q: %v, want %v", src, got, want)
		}
	}
}

func FuzzSplitLines(f *testing.F) {
	f.Add("a\nb\n")
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := newLineIndex([]byte(src)), lineIndexBefore([]byte(src)); !slices.Equal(got, want) {
			t.Fatalf("%q: line index %v, want %v", src, got, want)
		}
		if got, want := splitLines([]byte(src), newLineIndex([]byte(src))), strings.SplitAfter(src, "\n"); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", src, got, want)
		}
	})
}
