package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSealed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "index")
	p := filepath.Join(dir, "x.bin")
	body := []byte("the body\x00\x01")
	if err := WriteSealed(p, "CTXDTST1", "key-1", body); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err != nil {
		t.Errorf("no .gitignore beside the cache: %v", err)
	}
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		bytes    []byte
		magic    string
		key      string
		max      int64
		want     error
		rebuild  bool
		wantBody bool
	}{
		{"good", good, "CTXDTST1", "key-1", 1 << 20, nil, false, true},
		{"other key", good, "CTXDTST1", "key-2", 1 << 20, ErrStale, true, false},
		{"other magic", good, "CTXDTST2", "key-1", 1 << 20, ErrCorrupt, false, false},
		{"flipped", flipAt(good, len(good)/2), "CTXDTST1", "key-1", 1 << 20, ErrCorrupt, false, false},
		{"truncated", good[:len(good)-1], "CTXDTST1", "key-1", 1 << 20, ErrCorrupt, false, false},
		{"empty", nil, "CTXDTST1", "key-1", 1 << 20, ErrCorrupt, false, false},
		{"over the cap", good, "CTXDTST1", "key-1", 8, ErrCorrupt, false, false},
		{"sealed with a SHA-256 (older versions)", legacySealed("CTXDTST1", "key-1", body), "CTXDTST1", "key-1", 1 << 20, ErrStale, true, false},
		{"SHA-256 sealed, flipped", flipAt(legacySealed("CTXDTST1", "key-1", body), 12), "CTXDTST1", "key-1", 1 << 20, ErrCorrupt, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := filepath.Join(t.TempDir(), "c.bin")
			if err := os.WriteFile(q, tt.bytes, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ReadSealed(q, tt.magic, tt.key, tt.max)
			if tt.want == nil {
				if err != nil || string(got) != string(body) {
					t.Fatalf("got %q, %v", got, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err %v, want %v", err, tt.want)
			}
			if IsRebuild(err) != tt.rebuild {
				t.Errorf("IsRebuild(%v) = %v", err, !tt.rebuild)
			}
		})
	}
	if _, err := ReadSealed(filepath.Join(dir, "missing.bin"), "CTXDTST1", "k", 10); !IsRebuild(err) {
		t.Errorf("missing file: %v, want a quiet rebuild", err)
	}
}

func flipAt(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 1
	return c
}

// legacySealed is a sealed file as versions before the CRC-32C wrote it.
func legacySealed(magic, key string, body []byte) []byte {
	b := append([]byte(magic), binary.AppendUvarint(nil, uint64(len(key)))...)
	b = append(append(b, key...), body...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

func TestSealedLargeBody(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.bin")
	body := make([]byte, 3<<20+7)
	for i := range body {
		body[i] = byte(i * 7)
	}
	if err := WriteSealed(p, "CTXDTST1", "k", body); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSealed(p, "CTXDTST1", "k", 4<<20)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("round trip: %d bytes, %v", len(got), err)
	}
	if _, err := ReadSealed(p, "CTXDTST1", "k", 3<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("over the cap: %v, want ErrCorrupt", err)
	}
}

// FuzzOpenSealed: the key and body of a sealed file whose checksum holds
// (what a writer of the state directory can forge): never a panic, and a
// body opened under key "k" is what follows a "k" in the file.
func FuzzOpenSealed(f *testing.F) {
	f.Add([]byte("\x01kbody"))
	f.Add([]byte("\x81\x00kbody"))
	f.Add([]byte("\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, rest []byte) {
		b := append([]byte("CTXDTST1"), rest...)
		b = append(b, checksum(b)...)
		got, err := openSealed(b, "CTXDTST1", "k")
		if err != nil {
			return
		}
		head := rest[:len(rest)-len(got)]
		if !bytes.HasSuffix(rest, got) || !bytes.HasSuffix(head, []byte("k")) {
			t.Fatalf("opened %q from %q", got, rest)
		}
	})
}

// TestLeftoverTempsSwept: the temporary file of a write that never
// finished (a daemon ended mid-write; its client closed standard input)
// stayed in the state directory for good, as large as what it was
// writing. The first write of a process into the directory removes those
// older than StaleTemp and keeps a younger one (another process's write
// in progress) and every other file.
func TestLeftoverTempsSwept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * StaleTemp)
	files := map[string]bool{ // name: left after the sweep
		".sealed-463309324.tmp": false,
		".index-12.tmp":         false,
		".symbols-9.tmp":        false,
		".sealed-777.tmp":       true, // young: a write in progress
		"views.bin":             true,
		"notes.tmp":             true, // not one of ours: no leading dot
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".sealed-777.tmp" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteSealed(filepath.Join(dir, "x.bin"), "CTXDTST1", "k", []byte("body")); err != nil {
		t.Fatal(err)
	}
	for name, keep := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != keep {
			t.Errorf("%s: present %v, want %v", name, got, keep)
		}
	}
}
