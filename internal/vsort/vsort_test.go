package vsort

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// rec has a key with many ties and an id that tells equal keys apart, so
// an order of equal elements that differs from the slices package's shows.
type rec struct {
	key  int
	id   int
	name string
}

func byKey(a, b rec) int { return cmp.Compare(a.key, b.key) }

// TestSameOrderAsSlices checks that Func and StableFunc leave exactly the
// order slices.SortFunc and slices.SortStableFunc leave, equal keys
// included, over lengths on both sides of the insertion-sort cutoffs (12
// for pdqsort, 20 for the stable sort's blocks) and inputs sorted,
// reversed, all equal and random.
func TestSameOrderAsSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := map[string]func(n int) []rec{
		"random": func(n int) []rec {
			s := make([]rec, n)
			for i := range s {
				s[i] = rec{key: r.IntN(1 + n/4), id: i}
			}
			return s
		},
		"sorted": func(n int) []rec {
			s := make([]rec, n)
			for i := range s {
				s[i] = rec{key: i / 3, id: i}
			}
			return s
		},
		"reversed": func(n int) []rec {
			s := make([]rec, n)
			for i := range s {
				s[i] = rec{key: (n - i) / 3, id: i}
			}
			return s
		},
		"equal": func(n int) []rec {
			s := make([]rec, n)
			for i := range s {
				s[i] = rec{key: 7, id: i}
			}
			return s
		},
	}
	for name, gen := range inputs {
		for _, n := range []int{0, 1, 2, 5, 11, 12, 13, 19, 20, 21, 50, 129, 1000, 5000} {
			for round := range 3 {
				in := gen(n)
				want, got := slices.Clone(in), slices.Clone(in)
				slices.SortFunc(want, byKey)
				Func(got, byKey)
				if !slices.Equal(got, want) {
					t.Fatalf("%s n=%d round %d: Func's order differs from slices.SortFunc's", name, n, round)
				}
				want, got = slices.Clone(in), slices.Clone(in)
				slices.SortStableFunc(want, byKey)
				StableFunc(got, byKey)
				if !slices.Equal(got, want) {
					t.Fatalf("%s n=%d round %d: StableFunc's order differs from slices.SortStableFunc's", name, n, round)
				}
			}
		}
	}
}
