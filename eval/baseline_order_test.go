package eval

import (
	"fmt"
	"slices"
	"testing"
)

// TestBaselineRankIsStable: files whose BM25 scores are equal term by term,
// in another order, rank in the same order on every call. Summed in a
// map's order the totals differed in the last bit from call to call, and
// the baseline's list (and which file fit the budget) with them.
func TestBaselineRankIsStable(t *testing.T) {
	terms := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	b := &baseline{df: map[string]int{}}
	// Each file holds the terms with the counts 1..6 rotated: every file
	// has the same multiset of per-term scores when the terms' df are equal.
	for f := range len(terms) {
		tf := map[string]int{}
		n := 0
		for i, w := range terms {
			tf[w] = 1 + (i+f)%len(terms)
			n += tf[w]
		}
		b.paths = append(b.paths, fmt.Sprintf("f%d.go", f))
		b.tf = append(b.tf, tf)
		b.lens = append(b.lens, n)
	}
	for _, w := range terms {
		b.df[w] = len(terms) - 1 // as if one more file lacked them all
	}
	b.paths = append(b.paths, "other.go")
	b.tf = append(b.tf, map[string]int{"other": 1})
	b.lens = append(b.lens, 1)
	b.avg = 21
	query := "alpha beta gamma delta epsilon zeta alpha"
	first := b.rank(query)
	if len(first) != len(terms) {
		t.Fatalf("rank = %q, want the %d files holding the terms", first, len(terms))
	}
	for i := range 200 {
		if got := b.rank(query); !slices.Equal(got, first) {
			t.Fatalf("call %d ranked %q, the first %q", i, got, first)
		}
	}
}
