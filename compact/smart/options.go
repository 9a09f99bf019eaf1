package smart

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
)

// Mode is what a call asks of the optimizer.
type Mode string

// The modes.
const (
	// ModeOptimize rewrites the request (subject to the rollout: shadow
	// and canary settings may still pass it through). It is the default.
	ModeOptimize Mode = "optimize"
	// ModeShadow computes every decision and the telemetry but returns the
	// original bytes and writes nothing.
	ModeShadow Mode = "shadow"
	// ModeExact passes the request through byte for byte, bypassing
	// everything (rollout included).
	ModeExact Mode = "exact"
)

// ParseMode reads a mode name; "" is [ModeOptimize].
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeOptimize, nil
	case ModeOptimize, ModeShadow, ModeExact:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want exact, shadow or optimize): %w", s, ctxd.ErrInvalidParams)
}

// Environment variables of the rollout.
const (
	// EnvShadow set to 1 (or true) makes every call a shadow call.
	EnvShadow = "CTXD_SMART_CONTEXT_SHADOW"
	// EnvCanaryPercent set to N (0-100) rewrites the requests of N% of
	// sessions, chosen by a stable hash of the session; the others pass
	// through and log rollout_canary_out.
	EnvCanaryPercent = "CTXD_SMART_CONTEXT_CANARY_PERCENT"
)

// Rollout is the operator's control of how much traffic is rewritten.
type Rollout struct {
	// Shadow computes decisions and telemetry for every call but returns
	// the original request.
	Shadow bool `json:"shadow"`
	// Canary limits rewriting to CanaryPercent of sessions (by a stable
	// hash of the session id); the rest pass through. Without it every
	// session is rewritten.
	Canary        bool `json:"canary"`
	CanaryPercent int  `json:"canary_percent"`
}

// RolloutFromEnv reads the rollout from the environment (getenv is
// os.Getenv in the daemon; tests pass their own). Unset variables mean no
// shadow and no canary; a malformed value is an error that names it.
func RolloutFromEnv(getenv func(string) string) (Rollout, error) {
	var r Rollout
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvShadow))); v {
	case "", "0", "false", "no", "off":
	case "1", "true", "yes", "on":
		r.Shadow = true
	default:
		return r, fmt.Errorf("%s=%q: want 1 or 0: %w", EnvShadow, v, ctxd.ErrInvalidParams)
	}
	if v := strings.TrimSpace(getenv(EnvCanaryPercent)); v != "" {
		n, err := strconv.Atoi(strings.TrimSuffix(v, "%"))
		if err != nil || n < 0 || n > 100 {
			return r, fmt.Errorf("%s=%q: want a percentage from 0 to 100: %w", EnvCanaryPercent, v, ctxd.ErrInvalidParams)
		}
		r.Canary, r.CanaryPercent = true, n
	}
	return r, nil
}

// Store is what the optimizer needs of an artifact store;
// [*artifacts.Store] is the implementation.
type Store interface {
	Put(ctx context.Context, session string, content []byte) (artifacts.Ref, string, error)
	// PutWith is Put of what write writes (twice, the same bytes).
	PutWith(ctx context.Context, session string, write func(io.Writer) error) (artifacts.Ref, string, error)
	Verify(ctx context.Context, session, hash string) (artifacts.Ref, error)
	Resolve(ctx context.Context, session, prefix string) (string, error)
	Get(ctx context.Context, session, hash string) ([]byte, artifacts.Ref, error)
	// Flush makes what Put stored durable (one fsync per pack with
	// [artifacts.Options.Sync]); called once before the reply that
	// refers to the stored texts.
	Flush() error
}

var _ Store = (*artifacts.Store)(nil)

// Options configure an [Optimizer].
type Options struct {
	// Store keeps the texts references stand for. Without one, no
	// transform that needs a reference is made (only lossless ones).
	Store Store
	// Rollout is the operator's rollout (see [RolloutFromEnv]).
	Rollout Rollout
	// DefaultModel is the model of requests that name none (a
	// connection's default).
	DefaultModel string
	// Logger receives the per-request record (info level) and warnings;
	// never request text. nil discards.
	Logger *slog.Logger
	// Cache is the content-hash and estimator cache shared with the
	// conversation pruner (a daemon's); nil gives the optimizer its own.
	Cache *request.Cache
}

// Call is one optimize call's parameters.
type Call struct {
	// Session names the session: the artifact scope and the canary
	// bucket. "" derives a scope from the conversation's first items
	// (stable across its turns; the report gives it).
	Session string `json:"session_id,omitempty"`
	// Mode is exact, shadow or optimize ("" is optimize).
	Mode Mode `json:"mode,omitempty"`
	// Format forces the request format; "" detects it.
	Format request.Format `json:"format,omitempty"`
	// Model overrides the request's "model" for the encoding and the
	// registry window.
	Model string `json:"model,omitempty"`
	// DefaultModel is used when neither Model nor the request names a
	// model (a connection's default); Options.DefaultModel comes after.
	DefaultModel string `json:"-"`
	// ContextWindow is an explicit window (launch configuration); it wins
	// over the registry.
	ContextWindow int `json:"context_window,omitempty"`
	// OutputReserve is kept free for the reply; 0 means the model's
	// maximum output, at most a quarter of the window.
	OutputReserve int `json:"output_reserve,omitempty"`
	// Budget, when positive, replaces window − reserve as the request's
	// token budget (pressure and the usable window are computed against
	// it).
	Budget int `json:"budget,omitempty"`
	// MaskHorizon, when positive, masks tool outputs before any
	// pressure: all but the latest MaskHorizon or so are condensed
	// (head, critical lines, tail and a reference), in steps of
	// MaskStep outputs so that between steps every turn only appends
	// (cache-stable). A request with no more outputs than the horizon
	// is not masked. 0: no masking (below pressure only lossless
	// rewrites).
	MaskHorizon int `json:"mask_horizon,omitempty"`
	// MaskStep is how many outputs the masking boundary, and the
	// boundary of the recent outputs under pressure, move at a time: a
	// decision about an output changes only when the boundary passes
	// it. 0 or 1: every turn.
	MaskStep int `json:"mask_step,omitempty"`
	// MaskLong, when positive with MaskHorizon, condenses a tool output
	// of more than MaskLong tokens from the turn it first appears, even
	// within the masking horizon: the view `ctxd run` prints (its first
	// and last lines, its critical lines, a reference to the whole),
	// byte-stable until its masking step. The first MaskHorizon outputs
	// of a request are never condensed this way. 0: off.
	MaskLong int `json:"mask_long,omitempty"`
	// MaskBig, when positive with MaskBigHorizon, masks a tool output of
	// more than MaskBig tokens once it is MaskBigHorizon outputs old
	// (instead of MaskHorizon), at the next step: a large output costs
	// the most to keep whole and a small one little. A file read is
	// excepted while its file is in play (it waits for MaskHorizon: the
	// code the agent is about to change stays in view): in play means
	// one of the latest max(MaskBigHorizon, [ReadInPlay]) calls, the
	// read's own included, names its file, or an error they report
	// does; a read the agent moved away from, or whose file was since
	// edited or read again, is masked from that many outputs old. A session of no
	// more than MaskHorizon outputs is still not masked. 0: off.
	MaskBig int `json:"mask_big,omitempty"`
	// MaskBigHorizon is the age, in outputs, from which an output of
	// more than MaskBig tokens is masked (a file read out of play from
	// [ReadInPlay] at the earliest); at most MaskHorizon.
	MaskBigHorizon int `json:"mask_big_horizon,omitempty"`
	// MaskPaced places the masking steps where they pay rather than
	// every MaskStep outputs: a step comes when the cached re-reads of
	// the due outputs since the last step cost as much as the step's
	// rewrite (its first masked output and everything after it billed
	// anew); MaskStep is then the fewest outputs between two steps.
	MaskPaced bool `json:"mask_paced,omitempty"`
	// Parsed is the request already parsed by the caller (a proxy that
	// read its session from it): used instead of parsing again when it
	// is the parse of this very body (the same bytes in memory) and of
	// the call's format.
	Parsed *request.Request `json:"-"`
	// ObservedContextWindow is a window learned at run time (from a
	// provider's context-length error, say); it is used when neither
	// configuration nor the registry knows the model.
	ObservedContextWindow int `json:"observed_context_window,omitempty"`
	// ObservedInputTokens is the provider's input-token count for the
	// session's previous request, if the caller has it.
	ObservedInputTokens int `json:"observed_input_tokens,omitempty"`
	// EstimateRatio calibrates the estimator with the provider's own
	// accounting: the ratio of the input tokens the provider reported to
	// the tokens estimated for the same requests of this model (the
	// proxy measures it per model over the requests it forwarded). 0
	// means none; otherwise it must be within [MinEstimateRatio,
	// MaxEstimateRatio]. The request's estimate is multiplied by it for
	// the pressure (and so the band and budget mode), and a ratio above 1
	// shrinks the usable window in estimated tokens by the same factor;
	// a ratio below 1 never widens it.
	EstimateRatio float64 `json:"estimate_ratio,omitempty"`
	// Retrieval makes every reference the call writes say how the
	// model can read the text back itself (the ctxd rehydrate command, a
	// GET on a proxy), besides asking for it; the hint is part of the
	// marker, so the estimate counts it. Its session is the call's.
	Retrieval request.Retrieval `json:"retrieval,omitzero"`
	// ExactItems are indexes of items the caller marks exact: they are
	// never rewritten.
	ExactItems []int `json:"exact_items,omitempty"`
	// WindowSize, when positive, keeps the last WindowSize tool outputs
	// whole (lossless rewrites only) whatever the pressure.
	WindowSize int `json:"window_size,omitempty"`
	// MaxToolOutput, when positive, condenses older tool outputs to
	// views of at most this many bytes (and as many tokens); negative
	// never condenses (duplicates, blobs and lossless rewrites still
	// apply); 0 uses the budget mode's size.
	MaxToolOutput int `json:"max_tool_output,omitempty"`
	// Feedback is what the caller observed of the previous turn.
	Feedback Feedback `json:"feedback,omitzero"`
}

// Feedback carries the quality signals only the caller can see.
type Feedback struct {
	// UpstreamContextErrors counts context-length errors the provider
	// returned since the previous call.
	UpstreamContextErrors int `json:"upstream_context_errors,omitempty"`
	// PreviousResponseNotFound counts "previous response not found"
	// errors.
	PreviousResponseNotFound int `json:"previous_response_not_found,omitempty"`
	// UpstreamInvalidContinuation counts errors the provider returned
	// about the request's tool-call continuation (a call without its
	// result, a result without its call) since the previous call.
	UpstreamInvalidContinuation int `json:"upstream_invalid_continuation,omitempty"`
	// TaskCompleted is "true" or "false" when the caller knows; "" is
	// unknown.
	TaskCompleted string `json:"task_completed,omitempty"`
	// AdditionalTurnsBeforeCompletion counts turns the caller attributes
	// to missing context.
	AdditionalTurnsBeforeCompletion int `json:"additional_turns_before_completion,omitempty"`
}

// Bounds of [Call.EstimateRatio]: a ratio outside them is no
// calibration but a misattributed count (another model's, a request
// the estimate did not see).
const (
	MinEstimateRatio = 0.25
	MaxEstimateRatio = 4.0
)

func (c Call) validate() error {
	if c.EstimateRatio != 0 && !(c.EstimateRatio >= MinEstimateRatio && c.EstimateRatio <= MaxEstimateRatio) {
		return fmt.Errorf("estimate_ratio must be 0 (none) or from %g to %g, got %g: %w", MinEstimateRatio, MaxEstimateRatio, c.EstimateRatio, ctxd.ErrInvalidParams)
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"context_window", c.ContextWindow}, {"output_reserve", c.OutputReserve}, {"budget", c.Budget}, {"window_size", c.WindowSize}, {"observed_context_window", c.ObservedContextWindow}, {"observed_input_tokens", c.ObservedInputTokens},
		{"mask_horizon", c.MaskHorizon}, {"mask_step", c.MaskStep}, {"mask_long", c.MaskLong}, {"mask_big", c.MaskBig}, {"mask_big_horizon", c.MaskBigHorizon}} {
		if v.n < 0 {
			return fmt.Errorf("%s must not be negative, got %d: %w", v.name, v.n, ctxd.ErrInvalidParams)
		}
	}
	if err := c.Retrieval.Check(); err != nil {
		return fmt.Errorf("%w: %w", err, ctxd.ErrInvalidParams)
	}
	if c.Session != "" {
		if err := ctxd.ValidSessionID(c.Session); err != nil {
			return err
		}
	}
	switch c.Feedback.TaskCompleted {
	case "", "true", "false":
	default:
		return fmt.Errorf("feedback.task_completed %q: want true, false or nothing: %w", c.Feedback.TaskCompleted, ctxd.ErrInvalidParams)
	}
	return nil
}
