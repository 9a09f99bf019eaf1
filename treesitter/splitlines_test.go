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

func FuzzSplitLines(f *testing.F) {
	f.Add("a\nb\n")
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := splitLines([]byte(src), newLineIndex([]byte(src))), strings.SplitAfter(src, "\n"); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", src, got, want)
		}
	})
}
