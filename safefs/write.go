package safefs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	f, err := os.CreateTemp(dir, "."+strings.TrimPrefix(name, ".")+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
