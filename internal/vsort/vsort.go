// Package vsort sorts slices of struct values with the sort package's
// one compiled pdqsort instead of a copy per element type.
//
// slices.SortFunc and slices.SortStableFunc are generic: the compiler
// writes their whole algorithm (pdqsort's nine functions, the stable
// sort's four) once per GC shape, and every struct type of its own
// layout is a shape of its own, 4-23 KB of code each in the release
// binary. Func and StableFunc call sort.Slice and sort.SliceStable,
// whose algorithm is compiled once; only a closure is written per type.
// They order exactly as slices.SortFunc and slices.SortStableFunc do
// (the sort and slices packages are generated from one template, and
// sort.Slice's less is cmp < 0), equal elements included, so a call can
// move between the two without changing any output (vsort_test.go).
//
// Swaps go through reflection, so use this package where the slice is
// short or the sort is rare (persisting, listing, eviction, a request's
// few spans), and slices on a hot path.
package vsort

import "sort"

// Func sorts s in ascending order as determined by cmp, as
// slices.SortFunc(s, cmp) does.
func Func[E any](s []E, cmp func(a, b E) int) {
	sort.Slice(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}

// StableFunc sorts s keeping the order of equal elements, as
// slices.SortStableFunc(s, cmp) does.
func StableFunc[E any](s []E, cmp func(a, b E) int) {
	sort.SliceStable(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}
