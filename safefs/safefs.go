// Package safefs reads files that ctxd does not trust: files of a cloned
// workspace (sources, ignore files, manifests, .ctxd.toml) and files a
// checkpoint names. A read follows symbolic links but opens only a
// regular file, so a link to /dev/zero, a FIFO or a device is refused
// before it is read and never blocks; it reads at most a size cap; and it
// stops when its context is cancelled.
package safefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is returned (inside an *fs.PathError) for a path that is,
// after resolving links, not a regular file: a directory, FIFO, socket or
// device; and by [WriteFile], which resolves none, for a symbolic link.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooBig is returned (inside an *fs.PathError) for a file over the size
// cap.
var ErrTooBig = errors.New("over the size cap")

// chunk is how much one read asks for between checks of the context.
const chunk = 256 << 10

// ReadFile reads the regular file name whole, refusing it when it is over
// max bytes (max <= 0: no cap, which callers should not want).
func ReadFile(ctx context.Context, name string, max int64) ([]byte, error) {
	return ReadFileInto(ctx, name, max, nil)
}

// ReadFileInto is [ReadFile] reusing buf's storage.
func ReadFileInto(ctx context.Context, name string, max int64, buf []byte) ([]byte, error) {
	f, fi, err := Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max > 0 && fi.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w of %d bytes (it has %d)", ErrTooBig, max, fi.Size())}
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	b, err := readAll(ctx, r, buf[:0], fi.Size())
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if max > 0 && int64(len(b)) > max {
		// The file grew after fstat.
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w of %d bytes", ErrTooBig, max)}
	}
	return b, nil
}

// Open opens name for reading if, after resolving links, it is a regular
// file; it returns the opened file and its info from fstat. The open never
// blocks on a FIFO: it is checked by stat before and, since a path can be
// swapped in between, by fstat of the opened descriptor after.
func Open(ctx context.Context, name string) (*os.File, fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: notRegular(st.Mode())}
	}
	f, err := openNonblock(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: notRegular(fi.Mode())}
	}
	return f, fi, nil
}

func notRegular(m fs.FileMode) error {
	what := "special file"
	switch {
	case m.IsDir():
		what = "directory"
	case m&fs.ModeSymlink != 0:
		what = "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		what = "FIFO"
	case m&fs.ModeSocket != 0:
		what = "socket"
	case m&fs.ModeCharDevice != 0:
		what = "character device"
	case m&fs.ModeDevice != 0:
		what = "device"
	}
	return fmt.Errorf("%w (a %s)", ErrNotRegular, what)
}

func readAll(ctx context.Context, r io.Reader, b []byte, hint int64) ([]byte, error) {
	if hint > 0 && int64(cap(b)) < hint+1 && hint < 1<<30 {
		b = make([]byte, 0, hint+1)
	}
	for {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		end := min(cap(b), len(b)+chunk)
		n, err := r.Read(b[len(b):end])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				return b, nil
			}
			return b, err
		}
	}
}
