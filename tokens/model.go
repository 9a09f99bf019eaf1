package tokens

import (
	"strings"

	"github.com/ctxd/ctxd"
)

// DefaultModel is the model a request without one is built for.
const DefaultModel = "gpt-4o"

// The fallback model description, used for names the registry does not
// know. The window is deliberately small (GPT-4's original 8k) so a prompt
// built for an unknown model fits nearly any model; pass an explicit window
// to use more.
const (
	FallbackWindow    = 8192
	FallbackMaxOutput = 4096
	FallbackEncoding  = Cl100kBase
)

// Where a model's context window came from (ctxd.Model.Source).
const (
	SourceExplicit = "explicit"
	SourceRegistry = "registry"
	SourceFallback = "fallback"
)

// Estimator confidence levels (ctxd.Model.EstimatorConfidence).
const (
	ConfidenceExact = "exact"
	ConfidenceLow   = "low"
)

// Resolve picks the model description ctxd reports. The window comes from,
// in order: explicitWindow when > 0 (Source "explicit"), the registry
// (Source "registry"), else the fallback (Source "fallback": window
// [FallbackWindow], encoding [FallbackEncoding]). Unknown names get the
// fallback, never an error. name "" means [DefaultModel].
//
// A registry model's Name is its canonical registry name; an unknown
// model keeps the name given. The encoding and estimator fields come from
// the registry when the model is known, whatever the window's source.
// EstimatorConfidence is "exact" only when the encoding is known to be
// the model's own BPE: estimators and unknown models are "low".
func Resolve(name string, explicitWindow int) ctxd.Model {
	m, _ := resolve(name, explicitWindow)
	return m
}

// ForModel returns the counter to use for a model (its exact encoding, or
// a calibrated estimator for families without a public BPE) and its
// description (as [Resolve]).
func ForModel(name string, explicitWindow int) (Counter, ctxd.Model) {
	m, c := resolve(name, explicitWindow)
	return c, m
}

func resolve(name string, explicitWindow int) (ctxd.Model, Counter) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = DefaultModel
	}
	spec, ok := Lookup(name)
	if !ok {
		m := ctxd.Model{
			Name:                name,
			ContextWindow:       FallbackWindow,
			MaxOutput:           FallbackMaxOutput,
			Encoding:            FallbackEncoding,
			Source:              SourceFallback,
			EstimatorConfidence: ConfidenceLow,
		}
		applyExplicit(&m, explicitWindow)
		return m, mustGet(FallbackEncoding)
	}
	m := ctxd.Model{
		Name:          spec.Name,
		Provider:      spec.Provider,
		ContextWindow: spec.ContextWindow,
		MaxOutput:     spec.MaxOutput,
		Encoding:      spec.Encoding,
		Source:        SourceRegistry,
	}
	applyExplicit(&m, explicitWindow)
	if spec.Exact {
		m.EstimatorConfidence = ConfidenceExact
		return m, mustGet(spec.Encoding)
	}
	m.EstimatorConfidence = ConfidenceLow
	e := getEstimator(spec.Family)
	if e == nil {
		// A registry family without calibration would be a bug in the
		// table; count with the fallback encoding rather than fail.
		m.Encoding = FallbackEncoding
		return m, mustGet(FallbackEncoding)
	}
	m.CalibrationError = e.p.Error
	return m, e
}

// applyExplicit sets an explicit window and keeps MaxOutput within it.
func applyExplicit(m *ctxd.Model, window int) {
	if window <= 0 {
		return
	}
	m.ContextWindow = window
	m.Source = SourceExplicit
	m.MaxOutput = min(m.MaxOutput, window)
}
