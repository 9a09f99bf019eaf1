package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/sessions"
)

// EnvStateDir names the environment variable that moves a workspace's
// state directory (sessions/, artifacts/, cache/) away from <root>/.ctxd.
// A relative value is taken relative to the workspace root. The
// --state-dir flags of `ctxd serve` and `ctxd sessions` set it.
const EnvStateDir = "CTXD_STATE_DIR"

// StateDir returns the state directory of a workspace root:
// $CTXD_STATE_DIR when set, else <root>/.ctxd. It is the one place the
// location is decided; every store under it (sessions, artifacts) asks
// here.
func StateDir(root string) string { return sessions.StateDir(root, os.Getenv(EnvStateDir)) }

// StateDir returns the engine's state directory: [Options.StateDir],
// else [StateDir] of the root.
func (e *Engine) StateDir() string { return e.stateDir }

// SessionStore opens the workspace's session store. Opening is cheap and
// creates nothing; the store holds no state in memory, so every call may
// open its own.
func (e *Engine) SessionStore() (*sessions.Store, error) {
	return sessions.Open(sessions.Dir(e.StateDir()), sessions.Options{Logger: e.log})
}

// sessionStoreFor opens the session store for a request on one session,
// whose id the request must give.
func (e *Engine) sessionStoreFor(id string) (*sessions.Store, error) {
	if id == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	return e.SessionStore()
}

// onSession runs one of the session store's methods on session id.
func onSession[Res any](e *Engine, ctx context.Context, id string, method func(*sessions.Store, context.Context, string) (Res, error)) (Res, error) {
	st, err := e.sessionStoreFor(id)
	if err != nil {
		var zero Res
		return zero, err
	}
	return method(st, ctx, id)
}
