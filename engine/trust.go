package engine

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxd/ctxd/internal/patience"
	"github.com/ctxd/ctxd/lang"
)

// SourceRefused is the status of a recorded source resume does not re-read:
// a secret file or an ignored one under today's rules (a checkpoint is
// untrusted input: it may have arrived with a cloned repository).
const SourceRefused = "refused"

// trackedSessions returns the ids of the sessions under dir (the store's
// directory) having a checkpoint tracked by the git repository of root:
// those arrived with the repository (someone ran git add -f), so they are
// someone else's and never trusted. A workspace outside git has none.
func trackedSessions(ctx context.Context, root, dir string) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, patience.Limit(ctx, 10*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", root, "ls-files", "-z", "--full-name", "--", dir)
	out, err := cmd.Output()
	if err != nil || len(out) == 0 {
		return nil
	}
	top, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		realDir = dir
	}
	ids := map[string]bool{}
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) == 0 {
			continue
		}
		abs := filepath.Join(strings.TrimSpace(string(top)), filepath.FromSlash(string(f)))
		rel, err := filepath.Rel(realDir, abs)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		id, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		ids[id] = true
	}
	return ids
}

// refusedSource reports a recorded path resume must not re-read: a secret
// file by name (gathered only when the user names it, and a checkpoint is
// not the user) or a path today's ignore rules leave out, unless the
// editor holds a buffer of it that gathering reads (Tree.OverlayKept: an
// ignored file the user is editing is gathered from its buffer by every
// door; a secret file's buffer never is without the user naming it).
func (e *Engine) refusedSource(ctx context.Context, rel string, listed map[string]bool) bool {
	if _, open := e.buffers.Get(rel); open && e.ws.OverlayKept(rel) {
		return false
	}
	if lang.IsSecret(rel) {
		return true
	}
	return listed != nil && !listed[rel] && fileExists(e.root, rel)
}

// listedFiles is the set of files the walk gathers today (ignore rules
// applied); nil when it cannot be had, in which case only the secret rule
// applies.
func (e *Engine) listedFiles(ctx context.Context) map[string]bool {
	files, err := e.ws.Files(ctx)
	if err != nil {
		return nil
	}
	m := make(map[string]bool, len(files))
	for _, f := range files {
		m[f] = true
	}
	return m
}
