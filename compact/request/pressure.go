package request

import (
	"fmt"
	"math"
)

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

// NoWindow is the window both compactors assume when nothing gives one
// (no explicit window, no configured one, a model the registry does not
// know, none observed from the upstream): so large that no request comes
// near a pressure threshold, so no step driven by window pressure runs.
// A guess (a small fallback window) would cut requests that fit; the
// report names the source ("none") and the proxy logs it once per
// session. It leaves room for arithmetic on it in int and float64.
const NoWindow = 1 << 30

// WindowNone is the window source of [NoWindow].
const WindowNone = "none"

// UnknownWindow is the warning of a report whose window source is
// [WindowNone]: [NoWindow] is no window to show, so a report leaves the
// number out and says this instead, with how to give one.
func UnknownWindow(model string) string {
	return fmt.Sprintf("context window unknown: model %q is not in the registry and none was given, so no step driven by window pressure runs (give it with --context-window, context_window in the configuration, or the call's context_window; ctxd models lists the known names)", model)
}
