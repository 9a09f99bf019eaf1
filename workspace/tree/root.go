package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd"
)

// FindRoot returns the git top-level containing dir, or dir itself (absolute,
// symlinks resolved) when dir is not in a git repository. A directory holds a
// repository when it has a ".git" entry (a directory, or a file as in
// worktrees and submodules).
func FindRoot(dir string) (string, error) {
	abs, err := Dir(dir)
	if err != nil {
		return "", fmt.Errorf("find root: %w", err)
	}
	if top := gitTop(abs); top != "" {
		return top, nil
	}
	return abs, nil
}

// Dir returns dir as an absolute path with symlinks resolved, or an error
// when it does not exist or is not a directory (wrapping
// [ctxd.ErrInvalidParams] then).
func Dir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		// "X: no such file or directory", not "X: lstat /abs/X: ...".
		return "", fmt.Errorf("%s: no such file or directory: %w", dir, ctxd.ErrInvalidParams)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w: %w", dir, err, ctxd.ErrInvalidParams)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory: %w", dir, ctxd.ErrInvalidParams)
	}
	return abs, nil
}

// gitTop returns the nearest directory at or above dir that has a ".git"
// entry, or "" when there is none. dir must be absolute and clean.
func gitTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// Resolve maps a path given by a user or editor (absolute, or relative to
// root; file:// URIs accepted) to its absolute path and its slash-separated
// root-relative path. Symlinks are resolved; anything resolving outside root
// fails with an error wrapping [ctxd.ErrOutsideRoot] whose message names the
// path and the root. The path need not exist (an unsaved editor buffer may
// name a new file): the longest existing prefix is resolved and the rest is
// appended.
//
// root must be absolute; it is resolved too, so a root given through a
// symlink works.
func Resolve(root, p string) (abs, rel string, err error) {
	if p == "" {
		return "", "", fmt.Errorf("resolve path: empty path: %w", ctxd.ErrInvalidParams)
	}
	if strings.ContainsRune(p, 0) {
		return "", "", fmt.Errorf("resolve path %q: NUL byte in path: %w", p, ctxd.ErrInvalidParams)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("resolve path %q: root %s: %w", p, root, err)
	}
	realRoot, err = filepath.Abs(realRoot)
	if err != nil {
		return "", "", fmt.Errorf("resolve path %q: root %s: %w", p, root, err)
	}
	orig := p
	if strings.HasPrefix(p, "file:") {
		u, perr := url.Parse(p)
		if perr != nil || u.Scheme != "file" {
			return "", "", fmt.Errorf("resolve path %q: bad file URI: %w", orig, ctxd.ErrInvalidParams)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", "", fmt.Errorf("resolve path %q: file URI names host %q: %w", orig, u.Host, ctxd.ErrInvalidParams)
		}
		p = filepath.FromSlash(u.Path)
		if p == "" {
			return "", "", fmt.Errorf("resolve path %q: file URI has no path: %w", orig, ctxd.ErrInvalidParams)
		}
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		// Relative paths are relative to the root as given, so that a
		// relative path never escapes through "..": it is checked below.
		p = filepath.Join(realRoot, p)
	}
	p = filepath.Clean(p)
	// A path given through the unresolved root spelling maps onto the
	// resolved one.
	if cleanRoot := filepath.Clean(root); cleanRoot != realRoot {
		if r, ok := within(cleanRoot, p); ok {
			p = filepath.Join(realRoot, r)
		}
	}
	real, err := evalExisting(p)
	if err != nil {
		// A symlink loop, a name over the system's limit: the client's
		// path cannot be used.
		if len(orig) > 200 {
			orig = orig[:200] + "…"
		}
		return "", "", fmt.Errorf("resolve path %q: %w: %w", orig, err, ctxd.ErrInvalidParams)
	}
	r, ok := within(realRoot, real)
	if !ok {
		return "", "", fmt.Errorf("resolve path %q: resolves to %s, outside root %s: %w", orig, real, realRoot, ctxd.ErrOutsideRoot)
	}
	return real, filepath.ToSlash(r), nil
}

// ResolveOverlay adds src's editor buffers (paths absolute or
// root-relative) to dst by their root-relative path; a path outside the
// root is an error (ctxd.ErrOutsideRoot), as [Resolve] says.
func ResolveOverlay(root string, dst, src map[string]string) error {
	for p, text := range src {
		_, rel, err := Resolve(root, p)
		if err != nil {
			return err
		}
		dst[rel] = text
	}
	return nil
}

// within reports whether p lies under root (or is root) and returns the
// relative path ("." for root itself).
func within(root, p string) (string, bool) {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

// evalExisting resolves symlinks in the longest existing prefix of p and
// appends the rest unchanged. Links are followed to the end, so a dangling
// link in the middle fails.
func evalExisting(p string) (string, error) {
	return evalExistingDepth(p, 0)
}

func evalExistingDepth(p string, depth int) (string, error) {
	if depth > 40 {
		return "", fmt.Errorf("too many levels of symbolic links at %s", p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	// A dangling symlink names something that does not exist: refuse to
	// guess where it points.
	if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, rerr := os.Readlink(p)
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		return evalExistingDepth(filepath.Clean(target), depth+1)
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	realParent, err := evalExistingDepth(parent, depth+1)
	if err != nil {
		return "", err
	}
	return filepath.Join(realParent, filepath.Base(p)), nil
}

// relSlash joins root-relative slash paths, skipping ".".
func RelSlash(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}
