package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/sessions"
)

// ForkRequest is the input of ctx/sessions/fork: TimeTraveler's
// fork_and_correct.
type ForkRequest struct {
	SessionID string `json:"session_id"`
	// Seq is the checkpoint to fork from; 0 means the one before the
	// newest (checkpoint N-1).
	Seq int `json:"seq,omitempty"`
	// Error is the failure to correct: quoted in the lesson-learned note.
	Error string `json:"error"`
	// NewSessionID names the new session; generated when absent.
	NewSessionID string `json:"new_session_id,omitempty"`
	// Model, ContextWindow and Budget configure the pruner (the
	// checkpoint's model when absent).
	Model         string `json:"model,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`
	Budget        int    `json:"budget,omitempty"`
}

// ForkResult is the answer of ctx/sessions/fork.
type ForkResult struct {
	SessionID string          `json:"session_id"`
	Parent    sessions.Parent `json:"parent"`
	// Checkpoint is the new session's first checkpoint; its history is
	// the parent's, pruned for the retry, ending with the lesson note.
	Checkpoint *sessions.Checkpoint `json:"checkpoint"`
	// Report is the pruner's account of each message.
	Report   *prune.Report `json:"report"`
	Warnings []string      `json:"warnings,omitempty"`
}

// ForkSession starts a new session from an earlier checkpoint of another
// (fork_and_correct): the checkpoint before the newest unless one is
// named, its conversation history pruned for a retry with the error's
// lesson-learned note, state running, parent recorded. The old session's
// timeline is not touched.
func (e *Engine) ForkSession(ctx context.Context, req ForkRequest) (*ForkResult, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	if strings.TrimSpace(req.Error) == "" {
		return nil, fmt.Errorf("error is required: the failure the fork corrects goes into the lesson-learned note: %w", ctxd.ErrInvalidParams)
	}
	if req.Seq < 0 {
		return nil, fmt.Errorf("seq must not be negative, got %d: %w", req.Seq, ctxd.ErrInvalidParams)
	}
	newID := req.NewSessionID
	if newID == "" {
		newID = newSessionID()
	} else if err := ctxd.ValidSessionID(newID); err != nil {
		return nil, fmt.Errorf("new_session_id: %w", err)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	res := &ForkResult{SessionID: newID}
	seq := req.Seq
	if seq == 0 {
		tl, err := st.Timeline(ctx, req.SessionID)
		if err != nil {
			return nil, err
		}
		var good []int
		for _, en := range tl.Entries {
			if en.Problem == "" {
				good = append(good, en.Seq)
			}
		}
		switch len(good) {
		case 0:
			return nil, fmt.Errorf("fork session %s: none of its checkpoints verifies: %w", req.SessionID, sessions.ErrCorrupt)
		case 1:
			seq = good[0]
			res.Warnings = append(res.Warnings, fmt.Sprintf("session %s has one readable checkpoint; forked from it (%d)", req.SessionID, seq))
		default:
			seq = good[len(good)-2]
		}
	}
	r, err := st.Restore(ctx, req.SessionID, seq)
	if err != nil {
		return nil, err
	}
	src := r.Checkpoint

	format, err := request.ParseFormat(src.HistoryFormat)
	if err != nil {
		format = ""
	}
	model := req.Model
	if model == "" {
		model = src.Model
	}
	wrapAs := format
	if wrapAs == "" {
		if f, err := historyFormat(src.ConversationHistory, ""); err == nil {
			wrapAs = f
		}
	}
	body := request.WrapHistory(src.ConversationHistory, wrapAs, model)
	// Through the request flow, as every front end: what the pruner
	// condenses or evicts is stored under the new session, so its
	// references rehydrate (ctxd rehydrate --session NEW HASH).
	flow, err := e.requests()
	if err != nil {
		return nil, err
	}
	pruned, err := flow.ForRetry(ctx, CompressRequest{Request: body, Format: string(format), Model: model, ContextWindow: req.ContextWindow, Budget: req.Budget, SessionID: newID, Error: req.Error})
	if err != nil {
		return nil, fmt.Errorf("fork session %s at checkpoint %d: prune the history: %w", req.SessionID, seq, err)
	}
	out, rep := pruned.Request, pruned.Report
	hist, err := unwrapHistory(out)
	if err != nil {
		return nil, fmt.Errorf("fork session %s at checkpoint %d: %w", req.SessionID, seq, err)
	}
	next := *src
	next.SessionID = newID
	next.Seq = 0
	next.Timestamp = time.Time{}
	next.Checksum = ""
	next.State = sessions.StateRunning
	next.Parent = &sessions.Parent{SessionID: req.SessionID, Seq: seq}
	next.ConversationHistory = hist
	next.HistoryFormat = string(rep.Format)
	next.Root = e.root
	next.Note = fmt.Sprintf("fork of %s at checkpoint %d to retry after: %s", req.SessionID, seq, firstLine(req.Error, 200))
	cp, err := st.Create(ctx, &next)
	if err != nil {
		return nil, err
	}
	res.Parent = *next.Parent
	res.Checkpoint = cp
	res.Report = rep
	return res, nil
}

// unwrapHistory takes the messages (or Responses input) back out of a
// pruned request body.
func unwrapHistory(body []byte) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("read the pruned history: %w", err)
	}
	for _, k := range []string{"messages", "input"} {
		if v, ok := top[k]; ok && len(bytes.TrimSpace(v)) > 0 && bytes.TrimSpace(v)[0] == '[' {
			return v, nil
		}
	}
	return nil, errors.New("read the pruned history: no messages in the pruner's output")
}

// firstLine returns s's first non-empty line, cut to n runes.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > n {
				return string(r[:n]) + "…"
			}
			return l
		}
	}
	return ""
}
