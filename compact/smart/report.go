package smart

import (
	"maps"
	"slices"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
)

// Segment decisions, as reports name them.
const (
	// DecisionKept: the segment is in the output byte for byte.
	DecisionKept = "kept"
	// DecisionRewritten: the segment was transformed.
	DecisionRewritten = "rewritten"
	// DecisionRejected: a transform was possible but not worth it (or
	// not needed); the segment is kept.
	DecisionRejected = "rejected"
	// DecisionRolledBack: the transform failed validation; the segment is
	// kept as it was.
	DecisionRolledBack = "rolled_back"
	// DecisionUnresolved: the segment depends on an artifact that is
	// missing or does not verify; it is kept as it was.
	DecisionUnresolved = "unresolved"
)

// Result is what [Optimizer.Optimize] returns.
type Result struct {
	// Body is the request to send: the rewritten request, or the
	// original bytes (exact, shadow, canary-out, fallback, no savings).
	Body []byte
	// Report says what was decided and why.
	Report *Report
}

// Report is an optimize call's report: the telemetry record plus the
// decision on every payload segment. It never holds request text.
type Report struct {
	Format   request.Format `json:"format,omitempty"`
	Model    string         `json:"model,omitempty"`
	Encoding string         `json:"encoding,omitempty"`
	// Session is the artifact scope: the call's session id, or one
	// derived from the conversation (SessionDerived) when it gave none.
	Session        string `json:"session_id,omitempty"`
	SessionDerived bool   `json:"session_derived,omitempty"`
	// Applied reports that Body differs from the input.
	Applied bool `json:"applied"`
	// Fits reports estimated_tokens_after <= effective_usable_context_tokens.
	Fits bool `json:"fits"`
	// OverheadMicros is the call's wall time in microseconds.
	OverheadMicros int64 `json:"rewrite_overhead_us"`
	Telemetry
	// Classes counts every segment of the request by class.
	Classes map[request.Class]int `json:"classes,omitempty"`
	// Segments has one decision per payload segment (tool outputs,
	// injected notices), in request order.
	Segments []Decision `json:"segments,omitempty"`
	// Unresolved lists artifact references that did not resolve.
	Unresolved []Unresolved `json:"unresolved,omitempty"`
	// Artifacts lists the artifacts the output refers to.
	Artifacts []ArtifactUse `json:"artifacts,omitempty"`
	// Warnings are for the caller: the window is unknown
	// ([request.UnknownWindow]).
	Warnings []string `json:"warnings,omitempty"`
}

// Decision is what happened to one payload segment.
type Decision struct {
	Item         int                 `json:"item"`
	Seg          int                 `json:"seg"`
	Kind         request.SegmentKind `json:"kind"`
	Class        request.Class       `json:"class"`
	Transform    string              `json:"transform,omitempty"`
	Decision     string              `json:"decision"`
	Reason       string              `json:"reason"`
	TokensBefore int                 `json:"tokens_before"`
	TokensAfter  int                 `json:"tokens_after"`
	// SHA256 is the full hash of the text a reference stands for.
	SHA256 string `json:"sha256,omitempty"`
}

// Unresolved is a reference that did not resolve.
type Unresolved struct {
	Item   int    `json:"item"`
	Seg    int    `json:"seg"`
	SHA256 string `json:"sha256"`
	Reason string `json:"reason"`
}

// ArtifactUse is an artifact the output refers to.
type ArtifactUse struct {
	artifacts.Ref
	// Status is created, exists or repaired; "planned" in shadow mode.
	Status string `json:"status"`
}

// finishCounts fills the report from the final decisions.
func (r *run) finishCounts(out []byte, after int) {
	t := &r.rep.Telemetry
	t.EstimatedTokensAfter = after
	if out != nil {
		t.BodyBytesAfter = len(out)
	}
	t.BodyBytesSaved = t.BodyBytesBefore - t.BodyBytesAfter
	if t.BodyBytesBefore > 0 {
		t.RewriteRatioPercent = t.BodyBytesAfter * 100 / t.BodyBytesBefore
	}
	if r.b.bounded() {
		t.AvailableTokens = known(max(0, r.b.usable-after))
	}
	r.rep.Fits = after <= r.b.usable
	t.ArtifactHashFailures = len(r.hashFails)
	t.ArtifactsStored = r.keptStored
	t.MissingArtifactRequests = len(r.missingReq)
	t.UnresolvedArtifactRefs = len(r.unresolved)
	r.rep.Unresolved = r.unresolved
	classes := map[request.Class]int{}
	override := map[request.SegRef]*cand{}
	for _, c := range r.cands {
		override[c.ref] = c
	}
	for i, it := range r.req.Items {
		for j := range it.Segments {
			if c := override[request.SegRef{Item: i, Seg: j}]; c != nil {
				classes[c.class]++
			} else {
				classes[it.Segments[j].Class]++
			}
		}
	}
	r.rep.Classes = classes
	for _, c := range r.cands {
		d := Decision{Item: c.ref.Item, Seg: c.ref.Seg, Kind: c.seg.Kind, Class: c.class, Transform: c.transform,
			Decision: c.decision, Reason: c.reason, TokensBefore: int(c.seg.Tokens), TokensAfter: int(c.seg.Tokens)}
		if c.transform != "" {
			t.CandidateCount++
		}
		if !c.selected() {
			if c.transform != "" {
				t.RejectedCandidateCount++
				if c.decision == DecisionKept {
					d.Decision = DecisionRejected
				}
			}
			r.rep.Segments = append(r.rep.Segments, d)
			continue
		}
		d.TokensAfter = c.after
		d.SHA256 = c.artifact
		t.SelectedCandidateCount++
		t.SelectedCandidateUtilityPoint += max(0, int(c.seg.Tokens)-c.after) * utilityPercent[c.transform] / 100
		t.TransformedSegmentCounts[c.class.String()]++
		switch c.transform {
		case TransformLossless:
			t.LosslessTransforms++
		case TransformBlob:
			t.BlobOutputsCondensed++
		case TransformCondense, TransformReference:
			t.ToolOutputsCondensed++
			t.RepoStateFacts += c.repo
		case TransformDuplicate:
			if c.dupOf >= 0 {
				t.DuplicateTexts++
			} else {
				t.CrossTurnDuplicateTexts++
			}
			if c.repeat {
				t.RepeatToolOutputRefs++
			}
		case TransformSuperseded:
			if c.class == request.ClassDroppableDuplicate {
				t.DuplicateTexts++
			} else {
				t.StaticContextDeltas++
			}
		case TransformRehydrate:
			t.RehydratedRefs++
			t.RehydrationTokenCost += c.after - int(c.seg.Tokens)
		}
		r.rep.Segments = append(r.rep.Segments, d)
	}
	for _, h := range slices.Sorted(maps.Keys(r.stored)) {
		use := r.stored[h]
		used := false
		for _, c := range r.cands {
			if c.selected() && c.artifact == h {
				used = true
				break
			}
		}
		if !used {
			continue
		}
		r.rep.Artifacts = append(r.rep.Artifacts, use)
		if use.Status == artifacts.StatusCreated || use.Status == artifacts.StatusRepaired {
			t.ArtifactsStored++
		}
	}
}
