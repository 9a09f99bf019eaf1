package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Metrics is the seed's result block, each value computed from a run
// (docs/smart-context.md defines every one).
type Metrics struct {
	EligibleLongSessions                     int     `json:"eligible_long_sessions"`
	CurrentComparisonSessions                int     `json:"current_comparison_sessions"`
	MedianInputTokenReductionPercentVsExact  float64 `json:"median_input_token_reduction_percent_vs_exact"`
	CurrentMedianReductionPercentVsExact     float64 `json:"current_median_input_token_reduction_percent_vs_exact"`
	MedianAdditionalReductionPercentVsCurrnt float64 `json:"median_additional_input_token_reduction_percent_vs_current"`
	LongSessionsWith20PercentReduction       float64 `json:"long_sessions_with_at_least_20_percent_reduction_percent"`
	ExactMedianTotalTokens                   int     `json:"exact_median_total_tokens_until_completion"`
	CurrentMedianTotalTokens                 int     `json:"current_median_total_tokens_until_completion"`
	OptimizedMedianTotalTokens               int     `json:"optimized_median_total_tokens_until_completion"`
	ExactSuccessRatePercent                  float64 `json:"exact_success_rate_percent"`
	CurrentSuccessRatePercent                float64 `json:"current_success_rate_percent"`
	OptimizedSuccessRatePercent              float64 `json:"optimized_success_rate_percent"`
	OptimizedMissingContextRecoveryTurns     int     `json:"optimized_missing_context_recovery_turns"`
	SuccessRegressionBasisPoints             int     `json:"success_regression_basis_points"`
	ContinuationIntegrityPercent             float64 `json:"continuation_integrity_percent"`
	ToolCallIntegrityPercent                 float64 `json:"tool_call_integrity_percent"`
	CriticalSignalRecallPercent              float64 `json:"critical_signal_recall_percent"`
	UnresolvedMandatoryArtifactRefs          int     `json:"unresolved_mandatory_artifact_refs"`
	CorruptedJSONCount                       int     `json:"corrupted_json_count"`
	P95RewriteOverheadMS                     float64 `json:"p95_rewrite_overhead_ms"`
	ContinuationFallbackRatePercent          float64 `json:"continuation_fallback_rate_percent"`
	RequiredReplayCoverage                   string  `json:"required_replay_coverage"`
	Passed                                   bool    `json:"passed"`
}

// metricOrder is the seed's order of the result block.
var metricOrder = []string{
	"eligible_long_sessions", "current_comparison_sessions",
	"median_input_token_reduction_percent_vs_exact", "current_median_input_token_reduction_percent_vs_exact",
	"median_additional_input_token_reduction_percent_vs_current", "long_sessions_with_at_least_20_percent_reduction_percent",
	"exact_median_total_tokens_until_completion", "current_median_total_tokens_until_completion",
	"optimized_median_total_tokens_until_completion", "exact_success_rate_percent", "current_success_rate_percent",
	"optimized_success_rate_percent", "optimized_missing_context_recovery_turns", "success_regression_basis_points",
	"continuation_integrity_percent", "tool_call_integrity_percent", "critical_signal_recall_percent",
	"unresolved_mandatory_artifact_refs", "corrupted_json_count", "p95_rewrite_overhead_ms",
	"continuation_fallback_rate_percent", "required_replay_coverage", "passed",
}

// Report is a replay run: the metrics, the counts behind them, coverage
// and one row per session.
type Report struct {
	Metrics Metrics `json:"metrics"`
	// Targets are the targets beyond the strict gates.
	Targets  map[string]bool `json:"targets"`
	Counts   Counts          `json:"counts"`
	Coverage []Coverage      `json:"coverage"`
	Sessions []SessionRow    `json:"sessions"`
	// Failures lists what made the run fail a strict gate.
	Failures []string `json:"failures,omitempty"`
}

// Counts are the raw numbers behind the percentages.
type Counts struct {
	Sessions int `json:"sessions"`
	// FailedClosedTurns are turns whose request carried a reference
	// the session could not resolve: optimize refused them (nothing
	// sent), as the safety model requires.
	FailedClosedTurns int `json:"failed_closed_turns"`
	// OverBudgetTurns are turns optimize refused with
	// ctxd.ErrOverBudget: their protocol-exact minimum does not fit the
	// window (nothing sent).
	OverBudgetTurns     int   `json:"over_budget_turns"`
	Turns               int   `json:"turns"`
	CorpusBytes         int64 `json:"corpus_bytes"`
	SignalsChecked      int   `json:"signals_checked"`
	SignalsRecalled     int   `json:"signals_recalled"`
	ContinuationOK      int   `json:"continuation_ok_turns"`
	ToolCallsOK         int   `json:"tool_call_ok_turns"`
	FallbackTurns       int   `json:"fallback_turns"`
	SegmentRollbacks    int   `json:"segment_rollbacks"`
	NewReferences       int   `json:"new_references"`
	FactsChecked        int   `json:"facts_checked"`
	P50RewriteOverheadM int64 `json:"p50_rewrite_overhead_us"`
	MaxRewriteOverheadM int64 `json:"max_rewrite_overhead_us"`
	// SavedByTransform sums, over every optimized request, the tokens
	// each transform saved (negative for rehydration, which adds).
	SavedByTransform map[string]int `json:"saved_tokens_by_transform"`
}

// Coverage is one hard case and what the run observed of it.
type Coverage struct {
	Case     string `json:"case"`
	Observed bool   `json:"observed"`
	// Evidence says where (session and turn) or why not.
	Evidence string `json:"evidence"`
}

// SessionRow sums up one session.
type SessionRow struct {
	Name           string  `json:"name"`
	Format         string  `json:"format"`
	Window         int     `json:"window"`
	Turns          int     `json:"turns"`
	Long           bool    `json:"long"`
	ExactTokens    int     `json:"exact_tokens"`
	CurrentTokens  int     `json:"current_tokens"`
	OptimizedToks  int     `json:"optimized_tokens"`
	ReductionPct   float64 `json:"reduction_percent_vs_exact"`
	CurrentRedPct  float64 `json:"current_reduction_percent_vs_exact"`
	ExactOK        bool    `json:"exact_success"`
	CurrentOK      bool    `json:"current_success"`
	OptimizedOK    bool    `json:"optimized_success"`
	ExactWhy       string  `json:"exact_failure,omitempty"`
	CurrentWhy     string  `json:"current_failure,omitempty"`
	OptimizedWhy   string  `json:"optimized_failure,omitempty"`
	Recoveries     int     `json:"optimized_recovery_turns"`
	ExactTotal     int     `json:"exact_total_tokens_until_completion"`
	CurrentTotal   int     `json:"current_total_tokens_until_completion"`
	OptimizedTotal int     `json:"optimized_total_tokens_until_completion"`
}

// Print writes the result block, one "name: value" per line in the
// seed's order, then the targets, the coverage and a table of sessions.
func (r *Report) Print(w io.Writer) error {
	var m map[string]any
	b, err := json.Marshal(r.Metrics)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var sb strings.Builder
	var missed []string
	for _, k := range slices.Sorted(maps.Keys(r.Targets)) {
		if !r.Targets[k] {
			missed = append(missed, "target_"+k)
		}
	}
	for _, k := range metricOrder {
		fmt.Fprintf(&sb, "%s: %s", k, format(m[k]))
		// "passed" is the strict gates' verdict; printed bare above a
		// missed target it read as the whole run's.
		if k == "passed" && len(missed) > 0 {
			fmt.Fprintf(&sb, " (strict gates only; missed: %s)", strings.Join(missed, ", "))
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\n")
	for _, k := range slices.Sorted(maps.Keys(r.Targets)) {
		verdict := "met"
		if !r.Targets[k] {
			verdict = "MISSED"
		}
		fmt.Fprintf(&sb, "target_%s: %s\n", k, verdict)
	}
	if len(r.Counts.SavedByTransform) > 0 {
		sb.WriteString("\ntokens saved by transform, all optimized requests:")
		for _, k := range slices.Sorted(maps.Keys(r.Counts.SavedByTransform)) {
			fmt.Fprintf(&sb, " %s %d", k, r.Counts.SavedByTransform[k])
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\ncoverage:\n")
	for _, c := range r.Coverage {
		mark := "ok  "
		if !c.Observed {
			mark = "MISS"
		}
		fmt.Fprintf(&sb, "  %s %-30s %s\n", mark, c.Case, c.Evidence)
	}
	sb.WriteString("\nsessions:\n")
	fmt.Fprintf(&sb, "  %-28s %-18s %6s %5s %9s %9s %9s %7s %7s  %s\n", "name", "format", "window", "turns", "exact", "current", "optimized", "cur%", "opt%", "success exact/current/optimized (recoveries)")
	for _, s := range r.Sessions {
		fmt.Fprintf(&sb, "  %-28s %-18s %6s %5d %9d %9d %9d %7.1f %7.1f  %s/%s/%s (%d)\n", s.Name, s.Format, Window(s.Window), s.Turns,
			s.ExactTokens, s.CurrentTokens, s.OptimizedToks, s.CurrentRedPct, s.ReductionPct, yes(s.ExactOK), yes(s.CurrentOK), yes(s.OptimizedOK), s.Recoveries)
	}
	var why strings.Builder
	for _, s := range r.Sessions {
		for _, f := range []struct{ who, why string }{{"exact", s.ExactWhy}, {"current", s.CurrentWhy}, {"optimized", s.OptimizedWhy}} {
			if f.why != "" {
				fmt.Fprintf(&why, "  %s, %s: %s\n", s.Name, f.who, f.why)
			}
		}
	}
	if why.Len() > 0 {
		sb.WriteString("\nsession failures (success proxy):\n")
		sb.WriteString(why.String())
	}
	if len(r.Failures) > 0 {
		sb.WriteString("\nfailures:\n")
		for _, f := range r.Failures {
			fmt.Fprintf(&sb, "  %s\n", f)
		}
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

func yes(b bool) string {
	if b {
		return "ok"
	}
	return "FAIL"
}

func format(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) {
			return strconv.FormatFloat(x, 'f', 0, 64)
		}
		return strconv.FormatFloat(x, 'f', 1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func pct(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return round1(100 * float64(a) / float64(b))
}
