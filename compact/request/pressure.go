package request

import "math"

// Pressure bands, by pressure in basis points: how close a request is to
// what it may use. Both compactors read them the same way: below
// [BandMedium] only lossless rewrites happen (duplicates, whitespace of
// machine output, superseded reads behind references); from it on, older
// tool outputs are condensed behind references; over the budget, the
// compactors degrade until the request fits.
const (
	BandLow      = "low"      // under 50%
	BandMedium   = "medium"   // 50% to 80%
	BandHigh     = "high"     // 80% to 95%
	BandCritical = "critical" // 95% and over
)

// Pressure returns used / max(1, limit) in basis points and its band.
func Pressure(used, limit int) (bp int, band string) {
	bp = int(math.Round(float64(used) * 10000 / float64(max(1, limit))))
	switch {
	case bp < 5000:
		band = BandLow
	case bp < 8000:
		band = BandMedium
	case bp < 9500:
		band = BandHigh
	default:
		band = BandCritical
	}
	return bp, band
}
