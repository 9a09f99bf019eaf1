package prune

import "github.com/ctxd/ctxd/compact/request"

// Decisions on an item, as a report names them.
const (
	// DecisionKept: the item is in the output byte for byte.
	DecisionKept = "kept"
	// DecisionCondensed: the item is in the output with tool output cut
	// to a preview (or orphan blocks removed).
	DecisionCondensed = "condensed"
	// DecisionSummarized: the item was evicted and the summary stands for
	// it.
	DecisionSummarized = "summarized"
	// DecisionEvicted: the item was removed with nothing standing for it
	// (an unpaired tool call or result).
	DecisionEvicted = "evicted"
)

// Report says what a run did and why. Its JSON form is what `ctxd
// compress --report` writes.
type Report struct {
	Format   request.Format `json:"format"`
	Model    string         `json:"model"`
	Encoding string         `json:"encoding"`
	// EstimatorConfidence is "exact" when counts use the model's own
	// encoding, "low" for calibrated estimates (see CalibrationError).
	EstimatorConfidence string  `json:"estimator_confidence"`
	CalibrationError    float64 `json:"calibration_error,omitempty"`
	// ContextWindow is the window, left out when the source is "none".
	ContextWindow int `json:"context_window,omitempty"`
	// ContextWindowSource is where the window came from: "explicit",
	// "registry", or "none" (nothing gave one: the run assumes
	// [request.NoWindow], no pressure; Warnings says so).
	ContextWindowSource string `json:"context_window_source"`
	OutputReserve       int    `json:"output_reserve"`
	// Budget is left out when nothing bounds the request (no window, no
	// explicit budget).
	Budget int `json:"budget,omitempty"`
	// BudgetSource is "explicit", "model_window" or "none" (no window).
	BudgetSource  string `json:"budget_source"`
	WindowSize    int    `json:"window_size"`
	MaxToolOutput int    `json:"max_tool_output"`
	// FixedTokens counts what every request carries: system or
	// instructions, tool definitions, reply priming.
	FixedTokens int `json:"fixed_tokens"`
	// Session is the artifact scope of the references the output
	// carries (ctxd rehydrate --session).
	Session string `json:"session"`
	// MinimumTokens is the protocol-exact minimum: the fixed parts, the
	// system messages, the latest user turn and the open tool pairs. A
	// request whose minimum does not fit the budget is an error.
	MinimumTokens int `json:"minimum_tokens"`
	// FloorTokens is what the always-keep floor needs: the fixed parts,
	// the first system and first user message, the latest user turn and
	// the tool calls paired with them.
	FloorTokens  int `json:"floor_tokens"`
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// Ratio is TokensBefore / TokensAfter (1 when nothing changed).
	Ratio float64 `json:"ratio"`
	// PressureBP is the request's pressure before compaction, in basis
	// points of the budget (less a retry note), and PressureBand its band
	// (request.Pressure): from "medium" on, the archive's long tool
	// outputs are condensed even when the request fits.
	PressureBP   int    `json:"pressure_bp"`
	PressureBand string `json:"pressure_band"`
	// Fits reports TokensAfter <= Budget; Reason says why not.
	Fits   bool   `json:"fits"`
	Reason string `json:"reason,omitempty"`
	// Degraded reports that working memory had to be condensed or evicted.
	Degraded bool `json:"degraded,omitempty"`
	// Messages has one decision per input item, in input order (none
	// with Options.NoMessages).
	Messages []Decision `json:"messages"`
	// Removed counts the input items summarized or evicted.
	Removed int `json:"-"`
	// Inserted lists items the run added (the summary, a retry note).
	Inserted []Inserted `json:"inserted,omitempty"`
	// Warnings are for the caller: the window is unknown
	// ([request.UnknownWindow]).
	Warnings []string `json:"warnings,omitempty"`
}

// Decision is what happened to one input item.
type Decision struct {
	Index    int          `json:"index"`
	Role     string       `json:"role,omitempty"`
	Kind     request.Kind `json:"kind"`
	Decision string       `json:"decision"`
	Reason   string       `json:"reason"`
	// Score is the item's eviction score (higher stays longer).
	Score        float64 `json:"score"`
	TokensBefore int     `json:"tokens_before"`
	TokensAfter  int     `json:"tokens_after"`
	// Condensed lists the segments cut to a preview, with the hash of the
	// text each replaced.
	Condensed []Condensed `json:"condensed,omitempty"`
}

// Condensed records one condensed segment: the SHA-256 of the original
// text (the address for rehydration) and what was hidden.
type Condensed struct {
	Segment      int    `json:"segment"`
	Hash         string `json:"sha256"`
	HiddenChars  int    `json:"hidden_chars"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
}

// Inserted is an item the run added to the output.
type Inserted struct {
	// Kind is "summary" or "retry_note".
	Kind string `json:"kind"`
	// Index is the item's position in the output.
	Index  int `json:"index"`
	Tokens int `json:"tokens"`
	// Replaces counts the evicted items a summary stands for.
	Replaces int `json:"replaces,omitempty"`
	// SHA256 names the artifact that holds the evicted items' text.
	SHA256 string `json:"sha256,omitempty"`
}
