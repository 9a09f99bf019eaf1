package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/sessions"
)

// ListRequest is the input of ctx/sessions/list.
type ListRequest struct {
	// State keeps only sessions in that state.
	State string `json:"state,omitempty"`
	// Limit keeps the newest Limit sessions; 0 keeps all.
	Limit int `json:"limit,omitempty"`
}

// ListSessions lists the workspace's sessions, newest first, with the
// files that could not be read in Problems.
func (e *Engine) ListSessions(ctx context.Context, req ListRequest) (*sessions.Listing, error) {
	state, err := sessions.ParseState(req.State)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if req.Limit < 0 {
		return nil, fmt.Errorf("limit must not be negative, got %d: %w", req.Limit, ctxd.ErrInvalidParams)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	l, err := st.List(ctx)
	if err != nil {
		return nil, err
	}
	if state != "" {
		kept := l.Sessions[:0]
		for _, in := range l.Sessions {
			if in.State == state {
				kept = append(kept, in)
			}
		}
		l.Sessions = kept
	}
	if req.Limit > 0 && len(l.Sessions) > req.Limit {
		l.Sessions = l.Sessions[:req.Limit]
	}
	return l, nil
}

// TimelineRequest is the input of ctx/sessions/timeline.
type TimelineRequest struct {
	SessionID string `json:"session_id"`
}

// SessionTimeline returns a session's checkpoints, oldest first.
func (e *Engine) SessionTimeline(ctx context.Context, req TimelineRequest) (*sessions.Timeline, error) {
	return onSession(e, ctx, req.SessionID, (*sessions.Store).Timeline)
}

// DeleteRequest is the input of ctx/sessions/delete.
type DeleteRequest struct {
	SessionID string `json:"session_id"`
}

// DeleteSession removes a session (corrupt files are left in place and
// reported).
func (e *Engine) DeleteSession(ctx context.Context, req DeleteRequest) (*sessions.DeleteResult, error) {
	return onSession(e, ctx, req.SessionID, (*sessions.Store).Delete)
}

// GCRequest says what [Engine.GCSessions] collects.
type GCRequest struct {
	// MaxAge removes sessions whose newest checkpoint is older; 0 turns
	// the age rule off.
	MaxAge time.Duration
	// MaxBytes caps the store's size, oldest sessions first (never a
	// running session younger than MaxAge); 0 means no cap.
	MaxBytes int64
	// Keep trims every session to its newest Keep checkpoints; 0 leaves
	// them.
	Keep   int
	DryRun bool
}

// GCSessions collects old sessions and checkpoints (see sessions.Store.GC).
func (e *Engine) GCSessions(ctx context.Context, req GCRequest) (*sessions.GCReport, error) {
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	return st.GC(ctx, sessions.GCOptions{MaxAge: req.MaxAge, MaxBytes: req.MaxBytes, Keep: req.Keep, DryRun: req.DryRun})
}
