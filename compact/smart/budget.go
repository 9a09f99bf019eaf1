package smart

import (
	"fmt"
	"math"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/tokens"
)

// Where the context window came from, in the order they are tried.
const (
	WindowExplicit = "explicit" // the call's context_window (launch configuration)
	WindowRegistry = "registry" // the versioned model registry
	WindowObserved = "observed" // a window the caller observed at run time
	// WindowNone: nothing gave a window; the request is treated as far
	// from any threshold ([request.NoWindow]), never cut for pressure.
	WindowNone = request.WindowNone
)

// Pressure bands, by pressure in basis points (the shared layer's:
// [request.Pressure]).
const (
	BandLow      = request.BandLow
	BandMedium   = request.BandMedium
	BandHigh     = request.BandHigh
	BandCritical = request.BandCritical
)

// Budget modes: how hard the policy works, from the band (one step
// harder when the estimate has low confidence and the band is not low).
const (
	ModeRelaxed   = "relaxed"
	ModeBalanced  = "balanced"
	ModeTight     = "tight"
	ModeEmergency = "emergency"
)

var bandModes = map[string]string{BandLow: ModeRelaxed, BandMedium: ModeBalanced, BandHigh: ModeTight, BandCritical: ModeEmergency}

// budget is a request's resolved budget.
type budget struct {
	model        ctxd.Model
	counter      tokens.Counter
	window       int
	windowSource string
	reserve      int
	// limit is window − reserve, or the call's explicit budget.
	limit int
	// safetyFloor is kept free beyond the reserve: max(256, 2% of the
	// window), at most 2% of an explicit budget.
	safetyFloor int
	// budgeted: an explicit budget (Call.Budget) gives limit.
	budgeted bool
	// usable is what the request may use: (limit − floor),
	// divided by 1 + the calibration error when the estimate has low
	// confidence.
	usable int
	// ratio is the call's EstimateRatio (0: none).
	ratio      float64
	used       int // effective used tokens: max(estimate × ratio, observed)
	pressureBP int
	band       string
	mode       string
	reasons    []string
}

// resolveBudget picks the window (explicit, registry, observed, else
// none: [request.NoWindow]) and the reserve for model name.
func resolveBudget(name string, c Call) (budget, error) {
	counter, m := tokens.ForModel(name, c.ContextWindow)
	b := budget{model: m, counter: counter, window: m.ContextWindow}
	switch {
	case m.Source == tokens.SourceExplicit:
		b.windowSource = WindowExplicit
	case m.Source == tokens.SourceRegistry:
		b.windowSource = WindowRegistry
	case c.ObservedContextWindow > 0:
		b.window, b.windowSource = c.ObservedContextWindow, WindowObserved
	default:
		// No evidence of a window: no guess either.
		b.window, b.windowSource = request.NoWindow, WindowNone
	}
	b.reserve = c.OutputReserve
	if b.reserve == 0 {
		b.reserve = min(m.MaxOutput, b.window/4)
	}
	if b.reserve >= b.window {
		return b, fmt.Errorf("output reserve %d leaves no room in the %d-token window: %w", b.reserve, b.window, ctxd.ErrInvalidParams)
	}
	b.limit = b.window - b.reserve
	if c.Budget > 0 {
		b.limit, b.budgeted = c.Budget, true
	}
	b.safetyFloor = max(256, b.window/50)
	if c.Budget > 0 {
		b.safetyFloor = min(b.safetyFloor, max(1, c.Budget/50))
	}
	usable := b.limit - b.safetyFloor
	if m.EstimatorConfidence != tokens.ConfidenceExact && m.CalibrationError > 0 {
		usable = int(float64(usable) / (1 + m.CalibrationError))
	}
	if c.EstimateRatio > 1 {
		// The provider counts more than the estimator: the usable
		// window, in estimated tokens, is smaller by as much.
		usable = int(float64(usable) / c.EstimateRatio)
	}
	b.usable = max(usable, 1)
	b.ratio = c.EstimateRatio
	return b, nil
}

// bounded reports whether a window or an explicit budget bounds the
// request: without either (the source none, request.NoWindow assumed)
// the usable tokens, the safety floor and the tokens available are no
// one's numbers, and the report leaves them null.
func (b *budget) bounded() bool {
	return b.windowSource != WindowNone || b.budgeted
}

// usableWhy says how the usable tokens follow from the window, so an
// error's arithmetic can be checked: "the 8192-token window less 2048
// reserved for the reply and a 256-token safety margin".
func (b *budget) usableWhy() string {
	var s string
	if b.limit != b.window-b.reserve {
		s = fmt.Sprintf("the explicit budget of %d less a %d-token safety margin", b.limit, b.safetyFloor)
	} else {
		s = fmt.Sprintf("the %d-token window less %d reserved for the reply and a %d-token safety margin", b.window, b.reserve, b.safetyFloor)
	}
	if b.model.EstimatorConfidence != tokens.ConfidenceExact && b.model.CalibrationError > 0 {
		s += fmt.Sprintf(", over 1+%.2f for the estimator's calibration error", b.model.CalibrationError)
	}
	if b.ratio > 1 {
		s += fmt.Sprintf(", over %.2f for the provider counting more than the estimate", b.ratio)
	}
	return s
}

// setPressure computes the pressure of used tokens,
// used / max(1, window − reserve) (or the explicit budget), and its band
// and mode. used is max(the estimate calibrated by the observed ratio,
// the observed input tokens of the session's previous request).
func (b *budget) setPressure(estimated, observed int) {
	calibrated := estimated
	if b.ratio > 0 {
		calibrated = int(math.Round(float64(estimated) * b.ratio))
	}
	b.used = max(calibrated, observed)
	b.pressureBP, b.band = request.Pressure(b.used, b.limit)
	b.mode = bandModes[b.band]
	b.reasons = append(b.reasons[:0], "pressure_band_"+b.band, "window_source_"+b.windowSource)
	if b.limit != b.window-b.reserve {
		b.reasons = append(b.reasons, "explicit_budget")
	}
	if b.ratio > 0 {
		b.reasons = append(b.reasons, "estimate_calibrated_by_observed_ratio")
	}
	if observed > calibrated {
		b.reasons = append(b.reasons, "observed_tokens_exceed_estimate")
	}
	if b.model.EstimatorConfidence != tokens.ConfidenceExact {
		b.reasons = append(b.reasons, "estimator_low_confidence")
		if b.band != BandLow {
			b.mode = harder(b.mode)
		}
	}
	if b.used > b.usable {
		b.reasons = append(b.reasons, "over_usable_window")
		b.mode = ModeEmergency
	}
}

func harder(mode string) string {
	switch mode {
	case ModeRelaxed:
		return ModeBalanced
	case ModeBalanced:
		return ModeTight
	}
	return ModeEmergency
}

// policy is what a budget mode lets the transforms do.
type policy struct {
	// keepRecent tool outputs at the end stay whole (lossless transforms
	// only) unless larger than largeRecent tokens.
	keepRecent  int
	largeRecent int
	// criticalRecent tool outputs at the end that read as errors stay
	// exact.
	criticalRecent int
	// condenseAlloc caps a condensed older output; refAlloc a reference
	// to a large recent one (tokens).
	condenseAlloc int
	refAlloc      int
	// minSaving is the fewest tokens a candidate must save to be worth a
	// marker.
	minSaving int
}

var policies = map[string]policy{
	ModeRelaxed:   {keepRecent: 6, largeRecent: 6000, criticalRecent: 3, condenseAlloc: 400, refAlloc: 1200, minSaving: 24},
	ModeBalanced:  {keepRecent: 4, largeRecent: 3000, criticalRecent: 3, condenseAlloc: 300, refAlloc: 800, minSaving: 16},
	ModeTight:     {keepRecent: 2, largeRecent: 1500, criticalRecent: 2, condenseAlloc: 200, refAlloc: 400, minSaving: 8},
	ModeEmergency: {keepRecent: 1, largeRecent: 600, criticalRecent: 1, condenseAlloc: 120, refAlloc: 240, minSaving: 4},
}
