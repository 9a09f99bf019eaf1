package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ctxd/ctxd/internal/uvarint"
)

// A sealed file is a cache of derived facts beside the index (the link
// graph, git history, the symbol index): 8 bytes of magic, the key it was written for
// (length-prefixed), the body, and a CRC-32C over all of it (the index's
// checksum, see checksum). [ReadSealed] returns the body only when the
// magic, the checksum and the key all match, so a corrupt, foreign or
// stale cache is rebuilt, never trusted. A file an older ctxd sealed with
// a SHA-256 is stale: rebuilt without a warning.

// WriteSealed writes body to path atomically under magic (8 bytes) and
// key, creating the directory as [MakeDir] does.
func WriteSealed(path, magic, key string, body []byte) error {
	if len(magic) != 8 {
		return fmt.Errorf("write %s: magic must be 8 bytes", filepath.Base(path))
	}
	var buf bytes.Buffer
	buf.Grow(len(magic) + binary.MaxVarintLen64 + len(key) + len(body) + sumSize)
	buf.WriteString(magic)
	buf.Write(binary.AppendUvarint(nil, uint64(len(key))))
	buf.WriteString(key)
	buf.Write(body)
	buf.Write(checksum(buf.Bytes()))
	return WriteAtomic(path, buf.Bytes())
}

// WriteAtomic writes body to path atomically (a synced temporary file in
// the same directory, renamed over it), creating the directory as
// [MakeDir] does: a reader sees the old file or the new one, never part.
func WriteAtomic(path string, body []byte) error {
	if err := MakeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sealed-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// ReadSealed reads what [WriteSealed] wrote to path and returns the body.
// A file over maxBytes, with other magic or a bad checksum is
// [ErrCorrupt]; one written for another key is [ErrStale]; a missing file
// is an error wrapping fs.ErrNotExist.
func ReadSealed(path, magic, key string, maxBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	// Read at once into a buffer of the file's size (io.ReadAll would
	// grow one by doubling: a dozen copies of a megabyte file).
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		size = min(fi.Size(), maxBytes) + 1
	}
	b, err := readAll(io.LimitReader(f, maxBytes+1), make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if int64(len(b)) > maxBytes {
		return nil, fmt.Errorf("read %s: %w: over %d bytes", filepath.Base(path), ErrCorrupt, maxBytes)
	}
	return openSealed(b, magic, key)
}

func openSealed(b []byte, magic, key string) ([]byte, error) {
	if len(b) < len(magic)+1+sumSize || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("open sealed: %w: bad header", ErrCorrupt)
	}
	body := b[:len(b)-sumSize]
	if !bytes.Equal(checksum(body), b[len(body):]) {
		if n := len(b) - sha256.Size; n > len(magic) {
			if sum := sha256.Sum256(b[:n]); bytes.Equal(sum[:], b[n:]) {
				return nil, fmt.Errorf("open sealed: %w: sealed by an older version", ErrStale)
			}
		}
		return nil, fmt.Errorf("open sealed: %w: checksum mismatch", ErrCorrupt)
	}
	r := uvarint.NewReader(body[len(magic):])
	got := r.Bytes(r.Count(1))
	if r.Err() != nil {
		return nil, fmt.Errorf("open sealed: %w: bad key", ErrCorrupt)
	}
	if string(got) != key {
		return nil, fmt.Errorf("open sealed: %w", ErrStale)
	}
	return r.Bytes(r.Len()), nil
}

// readAll reads r to its end, appending to b.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// IsRebuild reports whether err from [ReadSealed] or [Load] only means
// the cache must be built again quietly: missing, or written for other
// inputs. A corrupt file is worth a warning.
func IsRebuild(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrStale)
}
