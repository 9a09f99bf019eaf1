package workspace

import (
	"slices"
	"testing"
)

// TestLineTerms: each line keeps its distinct terms in their first order,
// a line without any is left out, and a content's terms are built once
// per key (its content and language).
func TestLineTerms(t *testing.T) {
	var lt LineTerms
	lt.Add(2, []uint32{7, 3, 7, 9, 3})
	lt.Add(3, nil)
	lt.Add(5, []uint32{3})
	if lt.Len() != 2 {
		t.Fatalf("%d lines, want 2", lt.Len())
	}
	for k, want := range []struct {
		line  int
		terms []uint32
	}{{2, []uint32{7, 3, 9}}, {5, []uint32{3}}} {
		if l, terms := lt.Line(k); l != want.line || !slices.Equal(terms, want.terms) {
			t.Errorf("line %d: %d %v, want %d %v", k, l, terms, want.line, want.terms)
		}
	}
	s := Open(Options{StateDir: t.TempDir()})
	build := func() *LineTerms { return &lt }
	a, b := LineTermsKey{Content: [32]byte{1}, Language: "go"}, LineTermsKey{Content: [32]byte{1}, Language: "python"}
	s.LineTerms(a, build)
	s.LineTerms(a, build)
	s.LineTerms(b, build)
	if n := s.LineTermsBuilds(); n != 2 {
		t.Errorf("%d builds for two keys, want 2", n)
	}
}
