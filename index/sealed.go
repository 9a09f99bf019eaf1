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
)

// A sealed file is a cache of derived facts beside the index (the link
// graph, git history, the symbol index): 8 bytes of magic, the key it was written for
// (length-prefixed), the body, and a SHA-256 over all of it. [ReadSealed]
// returns the body only when the magic, the checksum and the key all
// match, so a corrupt, foreign or stale cache is rebuilt, never trusted.

// WriteSealed writes body to path atomically under magic (8 bytes) and
// key, creating the directory as [MakeDir] does.
func WriteSealed(path, magic, key string, body []byte) error {
	if len(magic) != 8 {
		return fmt.Errorf("write %s: magic must be 8 bytes", filepath.Base(path))
	}
	var buf bytes.Buffer
	buf.Grow(len(magic) + binary.MaxVarintLen64 + len(key) + len(body) + sha256.Size)
	buf.WriteString(magic)
	buf.Write(binary.AppendUvarint(nil, uint64(len(key))))
	buf.WriteString(key)
	buf.Write(body)
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	if err := MakeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sealed-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	if _, err := tmp.Write(buf.Bytes()); err != nil {
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
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if int64(len(b)) > maxBytes {
		return nil, fmt.Errorf("read %s: %w: over %d bytes", filepath.Base(path), ErrCorrupt, maxBytes)
	}
	return openSealed(b, magic, key)
}

func openSealed(b []byte, magic, key string) ([]byte, error) {
	if len(b) < len(magic)+1+sha256.Size || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("open sealed: %w: bad header", ErrCorrupt)
	}
	body := b[:len(b)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], b[len(body):]) {
		return nil, fmt.Errorf("open sealed: %w: checksum mismatch", ErrCorrupt)
	}
	rest := body[len(magic):]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return nil, fmt.Errorf("open sealed: %w: bad key", ErrCorrupt)
	}
	if string(rest[k:k+int(n)]) != key {
		return nil, fmt.Errorf("open sealed: %w", ErrStale)
	}
	return rest[k+int(n):], nil
}

// IsRebuild reports whether err from [ReadSealed] or [Load] only means
// the cache must be built again quietly: missing, or written for other
// inputs. A corrupt file is worth a warning.
func IsRebuild(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrStale)
}
