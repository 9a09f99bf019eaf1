package artifacts

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPutWith: storing what a writer writes, in pieces, gives the
// reference and the record Put gives for the same bytes; a writer that
// writes another number of bytes the second time is an error, not a
// record of a length its header does not say.
func TestPutWith(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		lines  int
	}{
		{"empty", nil, 0},
		{"one line, no newline", []string{"a", "b", "c"}, 1},
		{"lines in pieces", []string{"=== message 1 ===\n", "text", "\n", "=== message 2 ===\nmore\n"}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, t.TempDir(), Options{})
			whole := strings.Join(tt.pieces, "")
			ref, status, err := s.PutWith(t.Context(), "s1", func(w io.Writer) error {
				for _, p := range tt.pieces {
					if _, err := io.WriteString(w, p); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil || status != StatusCreated {
				t.Fatalf("put with: %v %s", err, status)
			}
			if want := (Ref{Hash: Hash([]byte(whole)), Bytes: len(whole), Lines: tt.lines}); ref != want {
				t.Errorf("ref %+v, want %+v", ref, want)
			}
			got, gref, err := s.Get(t.Context(), "s1", ref.Hash)
			if err != nil || string(got) != whole || gref != ref {
				t.Errorf("get: %q %+v %v, want %q %+v", got, gref, err, whole, ref)
			}
			if _, status, err := s.Put(t.Context(), "s1", []byte(whole)); err != nil || status != StatusExists {
				t.Errorf("put of the same bytes: %s %v, want %s", status, err, StatusExists)
			}
		})
	}

	s := open(t, t.TempDir(), Options{})
	calls := 0
	_, _, err := s.PutWith(t.Context(), "s1", func(w io.Writer) error {
		calls++
		_, err := io.WriteString(w, strings.Repeat("x", calls))
		return err
	})
	if err == nil {
		t.Error("a writer that wrote 1 byte, then 2: no error")
	}
	// Nothing of it is left in the pack: the next record follows the
	// pack's last good one.
	ref := put(t, s, "s1", "after")
	if got, _, err := s.Get(t.Context(), "s1", ref.Hash); err != nil || string(got) != "after" {
		t.Errorf("get after a failed write: %q %v", got, err)
	}
	matches, _ := filepath.Glob(filepath.Join(s.Dir(), "*", PackName))
	if len(matches) != 1 {
		t.Fatalf("packs: %v", matches)
	}
	fi, err := os.Stat(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(RecordHeaderSize + len("after")); fi.Size() != want {
		t.Errorf("pack of %d bytes, want one record of %d", fi.Size(), want)
	}

	// Other bytes of the same count are stored (only the count is
	// compared) but never served: Get hashes what it returns.
	calls = 0
	ref, _, err = s.PutWith(t.Context(), "s2", func(w io.Writer) error {
		calls++
		_, err := io.WriteString(w, string(rune('a'+calls)))
		return err
	})
	if err != nil {
		t.Fatalf("a writer of 1 byte, then another: %v", err)
	}
	if got, _, err := s.Get(t.Context(), "s2", ref.Hash); !errors.Is(err, ErrCorrupt) {
		t.Errorf("get of a record of other bytes: %q %v, want %v", got, err, ErrCorrupt)
	}
}
