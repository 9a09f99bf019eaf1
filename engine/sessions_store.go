package engine

import (
	"os"

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
