// Package stats holds the summary statistics ctxd's measurements report
// (the replay's medians and percentiles, the tokenizer's calibration).
package stats

import (
	"cmp"
	"math"
	"slices"
)

// Median returns the median of xs, the mean of the middle two for an even
// count, or 0 for none. xs is left as it is.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Percentile returns the p-th percentile (0-100) of xs by nearest rank,
// or the zero value for none. xs is left as it is.
func Percentile[T cmp.Ordered](xs []T, p float64) T {
	if len(xs) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}
