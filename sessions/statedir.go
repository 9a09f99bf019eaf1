package sessions

import "path/filepath"

// DefaultStateDir is the state directory's name inside a workspace when
// nothing overrides it. ctxd never gathers it.
const DefaultStateDir = ".ctxd"

// Subdir is the folder of a state directory that holds the sessions (the
// artifact store uses artifacts/ beside it).
const Subdir = "sessions"

// StateDir resolves a workspace's state directory: override when given
// (a relative override is taken relative to the root), else
// <root>/.ctxd. The engine passes $CTXD_STATE_DIR or the --state-dir flag
// as override; see engine.StateDir.
func StateDir(root, override string) string {
	if override == "" {
		return filepath.Join(root, DefaultStateDir)
	}
	if !filepath.IsAbs(override) {
		return filepath.Join(root, override)
	}
	return filepath.Clean(override)
}

// Dir returns the sessions folder of a state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, Subdir) }
