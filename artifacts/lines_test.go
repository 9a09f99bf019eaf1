package artifacts

import (
	"strings"
	"testing"
)

func TestParseLines(t *testing.T) {
	tests := []struct {
		in         string
		start, end int
		bad        bool
	}{
		{"1-2", 1, 2, false},
		{"3-", 3, 0, false},
		{" 7 ", 7, 7, false},
		{"0", 0, 0, true},
		{"5-4", 0, 0, true},
		{"-", 0, 0, true},
		{"a-b", 0, 0, true},
		{"", 0, 0, true},
	}
	for _, tt := range tests {
		s, e, err := ParseLines(tt.in)
		if (err != nil) != tt.bad || s != tt.start || e != tt.end {
			t.Errorf("ParseLines(%q) = %d, %d, %v", tt.in, s, e, err)
		}
	}
	// The placeholder a reference's hint names, copied as it is: the
	// error says what stands for it (it said "want a-b").
	if _, _, err := ParseLines("a-b"); err == nil || !strings.Contains(err.Error(), "want line numbers counting from 1, as 10-20") {
		t.Errorf("ParseLines(a-b): %v", err)
	}
	// A reversed range says so, and the order it wants.
	if _, _, err := ParseLines("5-2"); err == nil || !strings.Contains(err.Error(), "want a-b with b >= a, as 2-5") {
		t.Errorf("ParseLines(5-2): %v", err)
	}
}

// FuzzParseLines: a range that parses is 1-based and ordered.
func FuzzParseLines(f *testing.F) {
	for _, s := range []string{"1-2", "3-", "7", "0", "5-4", "-", "a-b", "+1-+2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b, err := ParseLines(s)
		if err == nil && (a < 1 || b != 0 && b < a) {
			t.Fatalf("ParseLines(%q) = %d, %d", s, a, b)
		}
	})
}
