package smart

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strconv"
)

// Telemetry is the one structured record an optimize call produces, with
// the seed's field names (docs/smart-context.md defines each). It holds
// sizes, counts, hashes and names, never request text.
type Telemetry struct {
	// Sizes and token estimates.
	BodyBytesBefore       int `json:"body_bytes_before"`
	BodyBytesAfter        int `json:"body_bytes_after"`
	EstimatedTokensBefore int `json:"estimated_tokens_before"`
	EstimatedTokensAfter  int `json:"estimated_tokens_after"`
	BodyBytesSaved        int `json:"body_bytes_saved"`
	// RewriteRatioPercent is 100 × after / before, in bytes.
	RewriteRatioPercent int `json:"rewrite_ratio_percent"`

	// Budget and pressure.
	// ModelContextWindowTokens is left out when the source is "none"
	// (the run assumes request.NoWindow; the report's Warnings say so).
	ModelContextWindowTokens int    `json:"model_context_window_tokens,omitempty"`
	ModelContextWindowSource string `json:"model_context_window_source"`
	ObservedContextTokens    int    `json:"observed_context_tokens"`
	// EstimateRatio is the observed/estimated calibration the call
	// gave (0: none); see Call.EstimateRatio.
	EstimateRatio float64 `json:"estimate_calibration_ratio"`
	// AvailableTokens, EffectiveUsableTokens and AbsoluteSafetyFloor
	// follow from the window (or an explicit budget): nil, null in JSON
	// and in the log record, when there is neither (the source is
	// "none" and no budget was given). The run then assumes
	// request.NoWindow, and numbers derived from it (21 million tokens of
	// safety floor) would be no one's; 0 is a real value of each.
	AvailableTokens       *int   `json:"available_tokens"`
	PressureBasisPoints   int    `json:"pressure_basis_points"`
	PressureBand          string `json:"pressure_band"`
	EstimatorConfidence   string `json:"estimator_confidence"`
	EffectiveUsableTokens *int   `json:"effective_usable_context_tokens"`
	AbsoluteSafetyFloor   *int   `json:"absolute_safety_floor_tokens"`
	BudgetMode            string `json:"budget_mode"`
	// PolicyReasons say why the policy is what it is (pressure band,
	// estimator confidence, window source, escalation).
	PolicyReasons []string `json:"policy_reasons"`

	// Transform counters.
	ArtifactsStored          int            `json:"artifacts_stored"`
	ToolOutputsCondensed     int            `json:"tool_outputs_condensed"`
	DuplicateTexts           int            `json:"duplicate_texts"`
	CrossTurnDuplicateTexts  int            `json:"cross_turn_duplicate_texts"`
	RepeatToolOutputRefs     int            `json:"repeat_tool_output_refs"`
	BlobOutputsCondensed     int            `json:"blob_outputs_condensed"`
	RehydratedRefs           int            `json:"rehydrated_refs"`
	RehydrationTokenCost     int            `json:"rehydration_token_cost"`
	StaticContextDeltas      int            `json:"static_context_deltas"`
	RepoStateFacts           int            `json:"repo_state_facts"`
	LosslessTransforms       int            `json:"lossless_transforms"`
	UnresolvedArtifactRefs   int            `json:"unresolved_artifact_refs"`
	TransformedSegmentCounts map[string]int `json:"transformed_segment_categories"`

	// Candidate and repair counters.
	CandidateCount                int `json:"candidate_count"`
	SelectedCandidateCount        int `json:"selected_candidate_count"`
	RejectedCandidateCount        int `json:"rejected_candidate_count"`
	SelectedCandidateUtilityPoint int `json:"selected_candidate_utility_points"`
	SegmentRollbackCount          int `json:"segment_rollback_count"`
	FullRequestFallbackCount      int `json:"full_request_fallback_count"`
	ArtifactHashFailures          int `json:"artifact_hash_failures"`

	// Rollout.
	RolloutMode          string `json:"rollout_mode"`
	RolloutReason        string `json:"rollout_reason"`
	RolloutCanaryBucket  int    `json:"rollout_canary_bucket"`
	RolloutCanaryPercent int    `json:"rollout_canary_percent"`

	// Quality proxies. Counters are computed from the request and the
	// session's earlier turns; TaskCompleted and the upstream and
	// previous-response errors are what the caller reports ("unknown"
	// and 0 when it reports nothing).
	UpstreamContextErrors      int    `json:"task_quality_upstream_context_errors"`
	PreviousResponseNotFound   int    `json:"task_quality_previous_response_not_found"`
	InvalidToolCallContinuaton int    `json:"task_quality_invalid_tool_call_continuation"`
	MissingArtifactRequests    int    `json:"task_quality_missing_artifact_requests"`
	RepeatedToolCallCount      int    `json:"task_quality_repeated_tool_call_count"`
	ModelRereadRequests        int    `json:"task_quality_model_reread_requests"`
	CorrectiveUserMessages     int    `json:"task_quality_corrective_user_messages"`
	TestOrBuildFailedAfter     int    `json:"task_quality_test_or_build_failed_after_rewrite"`
	TaskCompleted              string `json:"task_quality_task_completed"`
	AdditionalTurnsBefore      int    `json:"task_quality_additional_turns_before_completion"`
	FinalTotalInputTokens      int    `json:"task_quality_final_total_input_tokens"`
}

// logMessage is the message of the per-request record.
const logMessage = "smart_context"

// attrs returns the record's attributes, keys as in the JSON form.
func (t *Telemetry) attrs() []slog.Attr {
	cats := make([]string, 0, len(t.TransformedSegmentCounts))
	for _, k := range slices.Sorted(maps.Keys(t.TransformedSegmentCounts)) {
		cats = append(cats, k+"="+strconv.Itoa(t.TransformedSegmentCounts[k]))
	}
	return []slog.Attr{
		slog.Int("body_bytes_before", t.BodyBytesBefore),
		slog.Int("body_bytes_after", t.BodyBytesAfter),
		slog.Int("estimated_tokens_before", t.EstimatedTokensBefore),
		slog.Int("estimated_tokens_after", t.EstimatedTokensAfter),
		slog.Int("body_bytes_saved", t.BodyBytesSaved),
		slog.Int("rewrite_ratio_percent", t.RewriteRatioPercent),
		slog.Int("model_context_window_tokens", t.ModelContextWindowTokens),
		slog.String("model_context_window_source", t.ModelContextWindowSource),
		slog.Int("observed_context_tokens", t.ObservedContextTokens),
		slog.Float64("estimate_calibration_ratio", t.EstimateRatio),
		tokensAttr("available_tokens", t.AvailableTokens),
		slog.Int("pressure_basis_points", t.PressureBasisPoints),
		slog.String("pressure_band", t.PressureBand),
		slog.String("estimator_confidence", t.EstimatorConfidence),
		tokensAttr("effective_usable_context_tokens", t.EffectiveUsableTokens),
		tokensAttr("absolute_safety_floor_tokens", t.AbsoluteSafetyFloor),
		slog.String("budget_mode", t.BudgetMode),
		slog.Any("policy_reasons", t.PolicyReasons),
		slog.Int("artifacts_stored", t.ArtifactsStored),
		slog.Int("tool_outputs_condensed", t.ToolOutputsCondensed),
		slog.Int("duplicate_texts", t.DuplicateTexts),
		slog.Int("cross_turn_duplicate_texts", t.CrossTurnDuplicateTexts),
		slog.Int("repeat_tool_output_refs", t.RepeatToolOutputRefs),
		slog.Int("blob_outputs_condensed", t.BlobOutputsCondensed),
		slog.Int("rehydrated_refs", t.RehydratedRefs),
		slog.Int("rehydration_token_cost", t.RehydrationTokenCost),
		slog.Int("static_context_deltas", t.StaticContextDeltas),
		slog.Int("repo_state_facts", t.RepoStateFacts),
		slog.Int("lossless_transforms", t.LosslessTransforms),
		slog.Int("unresolved_artifact_refs", t.UnresolvedArtifactRefs),
		slog.Any("transformed_segment_categories", cats),
		slog.Int("candidate_count", t.CandidateCount),
		slog.Int("selected_candidate_count", t.SelectedCandidateCount),
		slog.Int("rejected_candidate_count", t.RejectedCandidateCount),
		slog.Int("selected_candidate_utility_points", t.SelectedCandidateUtilityPoint),
		slog.Int("segment_rollback_count", t.SegmentRollbackCount),
		slog.Int("full_request_fallback_count", t.FullRequestFallbackCount),
		slog.Int("artifact_hash_failures", t.ArtifactHashFailures),
		slog.String("rollout_mode", t.RolloutMode),
		slog.String("rollout_reason", t.RolloutReason),
		slog.Int("rollout_canary_bucket", t.RolloutCanaryBucket),
		slog.Int("rollout_canary_percent", t.RolloutCanaryPercent),
		slog.Int("task_quality_upstream_context_errors", t.UpstreamContextErrors),
		slog.Int("task_quality_previous_response_not_found", t.PreviousResponseNotFound),
		slog.Int("task_quality_invalid_tool_call_continuation", t.InvalidToolCallContinuaton),
		slog.Int("task_quality_missing_artifact_requests", t.MissingArtifactRequests),
		slog.Int("task_quality_repeated_tool_call_count", t.RepeatedToolCallCount),
		slog.Int("task_quality_model_reread_requests", t.ModelRereadRequests),
		slog.Int("task_quality_corrective_user_messages", t.CorrectiveUserMessages),
		slog.Int("task_quality_test_or_build_failed_after_rewrite", t.TestOrBuildFailedAfter),
		slog.String("task_quality_task_completed", t.TaskCompleted),
		slog.Int("task_quality_additional_turns_before_completion", t.AdditionalTurnsBefore),
		slog.Int("task_quality_final_total_input_tokens", t.FinalTotalInputTokens),
	}
}

// tokensAttr is the attribute of a token count that may be unknown
// (nil): null in a JSON record, as in the report.
func tokensAttr(key string, n *int) slog.Attr {
	if n == nil {
		return slog.Any(key, nil)
	}
	return slog.Int(key, *n)
}

// known returns a known token count.
func known(n int) *int { return &n }

// log writes the record at info level (shadow and canary-out included:
// they are what an operator inspects before widening a rollout).
func (t *Telemetry) log(ctx context.Context, log *slog.Logger, extra ...slog.Attr) {
	if !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	log.LogAttrs(ctx, slog.LevelInfo, logMessage, append(extra, t.attrs()...)...)
}
