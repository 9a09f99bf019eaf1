package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/sessions"
)

// noRecordKey marks a context whose prompt build must not save a
// checkpoint (the rebuild of a resume).
type noRecordKey struct{}

// recordCheckpoint saves a checkpoint of env when ctx/buildPrompt (or
// `ctxd prompt --session`) names a session: the envelope's chunks and
// summary, the request that built it, and the history and artifacts of
// the session's previous checkpoint. An invalid session id is an error;
// a failure to write is a warning on the envelope, since the prompt
// itself is good.
func (e *Engine) recordCheckpoint(ctx context.Context, req PromptRequest, env *ctxd.Envelope, assemble bool) error {
	if !assemble || req.SessionID == "" || ctx.Value(noRecordKey{}) != nil {
		return nil
	}
	if err := ctxd.ValidSessionID(req.SessionID); err != nil {
		return fmt.Errorf("session_id: %w", err)
	}
	build, err := buildRequestJSON(req)
	if err != nil {
		return err
	}
	st, err := e.SessionStore()
	if err == nil {
		var cp *sessions.Checkpoint
		cp, err = st.Append(ctx, req.SessionID, func(prev *sessions.Checkpoint, _ int) (*sessions.Checkpoint, error) {
			next := carryOver(prev, e.root)
			applyEnvelope(next, env)
			next.BuildRequest = build
			next.State = sessions.StateRunning
			return next, nil
		})
		if err == nil {
			e.log.Debug("checkpoint recorded", "session", cp.SessionID, "seq", cp.Seq)
			return nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e.log.Warn("checkpoint not saved", "session", req.SessionID, "error", err)
	env.Warnings = append(env.Warnings, fmt.Sprintf("checkpoint of session %s not saved: %v", req.SessionID, err))
	return nil
}

// buildRequestJSON is the request as a checkpoint keeps it: without the
// session id and without unsaved buffer text (the editor sends buffers
// again when it reopens them).
func buildRequestJSON(req PromptRequest) (json.RawMessage, error) {
	req.SessionID = ""
	ofs := make([]ctxd.OpenFile, len(req.OpenFiles))
	for i, of := range req.OpenFiles {
		of.Text = nil
		ofs[i] = of
	}
	req.OpenFiles = ofs
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("record build request: %w", err)
	}
	return b, nil
}

// carryOver starts the next checkpoint from the previous one: a
// checkpoint is a whole snapshot, so what a save does not replace (the
// history, the artifacts, the envelope) stays as it was.
func carryOver(prev *sessions.Checkpoint, root string) *sessions.Checkpoint {
	if prev == nil {
		return &sessions.Checkpoint{Root: root, State: sessions.StateRunning}
	}
	next := *prev
	next.Timestamp = time.Time{}
	next.Checksum = ""
	next.Note = ""
	next.Root = root
	return &next
}

// applyEnvelope records an envelope in cp: task, request, model, budget,
// chunk list and summary, and its artifacts (added to those already
// recorded).
func applyEnvelope(cp *sessions.Checkpoint, env *ctxd.Envelope) {
	cp.TaskType = env.TaskType
	cp.UserRequest = env.UserRequest
	if env.OriginalInput != "" {
		cp.UserRequest = env.OriginalInput
	}
	cp.Model = env.Model.Name
	b := env.TokenBudget
	cp.TokenBudget = &b
	cp.Chunks = sessions.ChunkRefs(env.Context.Chunks)
	cp.ContextSummary = sessions.SummaryOf(env.Context)
	for _, a := range env.Artifacts {
		if !containsArtifact(cp.Artifacts, a) {
			cp.Artifacts = append(cp.Artifacts, a)
		}
	}
}

func containsArtifact(as []ctxd.Artifact, a ctxd.Artifact) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}
