package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd"
)

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

// ErrLinkedStateDir is returned for a state directory, or one of its
// folders, that is a symbolic link: a cloned repository may commit
// .ctxd -> /elsewhere (or .ctxd/sessions -> ...) to send ctxd's index,
// checkpoints and references where it likes.
var ErrLinkedStateDir = errors.New("is a symbolic link")

// stateFolders are the folders ctxd writes in a state directory.
var stateFolders = []string{Subdir, "artifacts", "index", "cache", "packs"}

// CheckLinks refuses a state directory that runs through a symbolic link
// below root (every component from root down to dir, when dir is under
// root; root "" checks dir alone), or whose own folders (sessions/,
// artifacts/, index/, cache/, packs/) are links. Missing ones are fine:
// they are created as directories. The path root itself and the path
// above it are the user's and may hold links.
func CheckLinks(root, dir string) error {
	check := []string{dir}
	if root != "" {
		if rel, err := filepath.Rel(root, dir); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			check = check[:0]
			p := root
			for _, part := range strings.Split(rel, string(filepath.Separator)) {
				p = filepath.Join(p, part)
				check = append(check, p)
			}
		}
	}
	for _, f := range stateFolders {
		check = append(check, filepath.Join(dir, f))
	}
	for _, p := range check {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("state directory: %s %w (a repository may commit one to redirect ctxd's writes): remove it, or set --state-dir or %s to a real directory: %w", p, ErrLinkedStateDir, "CTXD_STATE_DIR", ctxd.ErrInvalidParams)
		}
	}
	return nil
}
