package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrLink is returned for a directory ctxd would write into that is a
// symbolic link (or not a directory): a cloned repository may commit one
// to send ctxd's writes elsewhere.
var ErrLink = errors.New("is a symbolic link or not a directory")

// WriteAtomic writes name inside dir with write: into a new temporary file
// of dir (created exclusively, so no link is followed), then renamed over
// name, which replaces a link of that name rather than writing through it.
// dir is created when missing (mode 0700) and must not itself be a link.
// A failed write leaves no temporary file and the previous file, if any.
func WriteAtomic(dir, name string, write func(io.Writer) error) (err error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return fmt.Errorf("write %q: want a file name without a directory", name)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if fi, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("write %s: %s %w", name, dir, ErrLink)
	}
	if err := replace(dir, name, 0o600, 0, write); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// WriteFile writes the file at path, a path the user named (on the
// command line): its directory may be anywhere and may be reached through
// links, but the file itself must be missing or a regular file, never a
// link, so a link planted under the name is refused ([ErrNotRegular], in
// an *fs.PathError, as a read refuses a FIFO) instead of written through. The write goes to a temporary file beside path,
// renamed over it when complete: a failed write leaves the previous file.
// A new file gets mode 0666 less the umask, as os.Create and a shell
// redirect give it; a replaced one keeps its mode.
func WriteFile(path string, write func(io.Writer) error) error {
	create, keep := fs.FileMode(0o666), fs.FileMode(0)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return &fs.PathError{Op: "write", Path: path, Err: notRegular(fi.Mode())}
		}
		create, keep = 0o600, fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	dir, name := filepath.Split(path)
	if name == "" || name == "." || name == ".." {
		return fmt.Errorf("write %s: want a file name", path)
	}
	if dir == "" {
		dir = "."
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// Else the error named the temporary file beside path
		// (open dir/.pack.md.tmp-2vkf…: no such file or directory).
		return fmt.Errorf("write %s: create its directory first: %s: %w", path, filepath.Clean(dir), fs.ErrNotExist)
	}
	if err := replace(dir, name, create, keep, write); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// replace writes a new temporary file of dir (created exclusively, so no
// link is followed, with mode create less the umask) with write, gives it
// mode keep unless keep is 0, and renames it over name: a link of that
// name is replaced, not written through. A failed write removes the
// temporary file.
func replace(dir, name string, create, keep fs.FileMode, write func(io.Writer) error) (err error) {
	f, err := createTemp(dir, name, create)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	err = write(f)
	if err == nil && keep != 0 {
		err = f.Chmod(keep)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}

// createTemp is os.CreateTemp with the mode given (less the umask, as
// os.OpenFile applies it) instead of 0600: "." + name + ".tmp-" and a
// random suffix, created exclusively.
func createTemp(dir, name string, perm fs.FileMode) (*os.File, error) {
	prefix := filepath.Join(dir, "."+strings.TrimPrefix(name, ".")+".tmp-")
	for range 10000 {
		f, err := os.OpenFile(prefix+strconv.FormatUint(rand.Uint64(), 36), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "createtemp", Path: prefix + "*", Err: fs.ErrExist}
}
