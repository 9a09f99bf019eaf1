package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/sessions"
)

// SaveRequest is the input of ctx/checkpoint/save. Fields left out keep
// the values of the session's previous checkpoint (a checkpoint is a
// whole snapshot); a new session starts empty and running.
type SaveRequest struct {
	SessionID string `json:"session_id"`
	// State is running, completed, failed or abandoned.
	State       string `json:"state,omitempty"`
	TaskType    string `json:"task_type,omitempty"`
	UserRequest string `json:"user_request,omitempty"`
	// ConversationHistory is the agent's messages, a JSON array in one of
	// the request formats, kept as given; HistoryFormat names the format
	// (chat, anthropic, responses; detected when absent).
	ConversationHistory json.RawMessage `json:"conversation_history,omitempty"`
	HistoryFormat       string          `json:"history_format,omitempty"`
	// Artifacts replace the recorded ones when given (an empty array
	// clears them).
	Artifacts []ctxd.Artifact `json:"artifacts,omitempty"`
	// Envelope, when given, records its chunks, summary, model and budget
	// (a ctx/buildPrompt result).
	Envelope *ctxd.Envelope `json:"envelope,omitempty"`
	Note     string         `json:"note,omitempty"`
}

// SaveResult is the answer of ctx/checkpoint/save.
type SaveResult struct {
	SessionID      string           `json:"session_id"`
	Seq            int              `json:"seq"`
	Timestamp      time.Time        `json:"timestamp"`
	State          sessions.State   `json:"state"`
	ContextSummary sessions.Summary `json:"context_summary"`
	Checksum       string           `json:"checksum"`
	// Removed are the older checkpoints the keep-N retention removed
	// after this save.
	Removed []int `json:"removed,omitempty"`
}

// SaveCheckpoint appends a checkpoint to a session's timeline (creating
// the session on its first save). Safe to call concurrently, from any
// number of processes: each save gets its own number.
func (e *Engine) SaveCheckpoint(ctx context.Context, req SaveRequest) (*SaveResult, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	state, err := sessions.ParseState(req.State)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	task, err := ctxd.ParseTaskType(req.TaskType)
	if err != nil {
		return nil, fmt.Errorf("task_type: %w", err)
	}
	format, err := historyFormat(req.ConversationHistory, req.HistoryFormat)
	if err != nil {
		return nil, err
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	cp, err := st.Append(ctx, req.SessionID, func(prev *sessions.Checkpoint, _ int) (*sessions.Checkpoint, error) {
		next := carryOver(prev, e.root)
		if req.Envelope != nil {
			applyEnvelope(next, req.Envelope)
			// The recorded request built another envelope.
			next.BuildRequest = nil
		}
		if task != "" {
			next.TaskType = task
		}
		if req.UserRequest != "" {
			next.UserRequest = req.UserRequest
		}
		if state != "" {
			next.State = state
		}
		if req.ConversationHistory != nil {
			next.ConversationHistory = req.ConversationHistory
			next.HistoryFormat = string(format)
		}
		if req.Artifacts != nil {
			next.Artifacts = req.Artifacts
		}
		next.Note = req.Note
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return &SaveResult{SessionID: cp.SessionID, Seq: cp.Seq, Timestamp: cp.Timestamp, State: cp.State, ContextSummary: cp.ContextSummary, Checksum: cp.Checksum, Removed: cp.RemovedByRetention()}, nil
}

// historyFormat validates a conversation history (a JSON array) and
// resolves its format: the one named, else the one detected.
func historyFormat(hist json.RawMessage, name string) (request.Format, error) {
	if hist == nil {
		if name != "" {
			return "", fmt.Errorf("history_format without conversation_history: %w", ctxd.ErrInvalidParams)
		}
		return "", nil
	}
	if t := bytes.TrimSpace(hist); len(t) == 0 || t[0] != '[' || !json.Valid(t) {
		return "", fmt.Errorf("conversation_history must be a JSON array of messages: %w", ctxd.ErrInvalidParams)
	}
	f, err := request.ParseFormat(name)
	if err != nil {
		return "", fmt.Errorf("history_format: %w", err)
	}
	if f != "" || bytes.Equal(bytes.TrimSpace(hist), []byte("[]")) {
		return f, nil
	}
	for _, body := range [][]byte{request.WrapHistory(hist, request.FormatChat, ""), request.WrapHistory(hist, request.FormatResponses, "")} {
		if f, err := request.Detect(body); err == nil {
			return f, nil
		}
	}
	return "", nil
}

// RestoreRequest is the input of ctx/checkpoint/restore.
type RestoreRequest struct {
	SessionID string `json:"session_id"`
	// Seq names a checkpoint; 0 restores the newest one that verifies.
	Seq int `json:"seq,omitempty"`
}

// RestoreCheckpoint reads a checkpoint back. A missing session or
// checkpoint is an error wrapping ctxd.ErrNotFound; a named checkpoint
// that does not verify wraps sessions.ErrCorrupt.
func (e *Engine) RestoreCheckpoint(ctx context.Context, req RestoreRequest) (*sessions.Restored, error) {
	st, err := e.sessionStoreFor(req.SessionID)
	if err != nil {
		return nil, err
	}
	return st.Restore(ctx, req.SessionID, req.Seq)
}
