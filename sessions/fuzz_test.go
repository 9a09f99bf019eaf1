package sessions

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// go test -fuzz=FuzzDecodeCheckpoint ./sessions
//
// Checkpoint files are untrusted input (a disk, a crash, a person with an
// editor). Decode must never panic, must fail only with ErrCorrupt or
// ErrNewerSchema, and whatever it accepts must encode and decode again to
// the same bytes.
func FuzzDecodeCheckpoint(f *testing.F) {
	good, err := encodeFile(sample("s-1", 2, 9, 3, "fuzz"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[:len(good)-3])
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":3}`))
	f.Add([]byte(`{"session_id":"a","state":"completed","conversation_history":[{"role":"user","content":"x"}],"context":{"chunks":[{"source":"a.go","priority":"high","tokens":"many"}]}}`))
	for _, name := range []string{"v1_seed.json", "v1_python.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cp, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNewerSchema) {
				t.Fatalf("error %v wraps neither ErrCorrupt nor ErrNewerSchema", err)
			}
			return
		}
		if cp.MigratedFrom() > 0 {
			// The store numbers and names migrated files; do as it does.
			cp.Seq = 1
			if cp.SessionID == "" {
				cp.SessionID = "migrated"
			}
			if cp.Timestamp.IsZero() {
				cp.Timestamp = base
			}
		}
		out, err := encodeFile(cp)
		if err != nil {
			t.Fatalf("a decoded checkpoint does not encode: %v", err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("an encoded checkpoint does not decode: %v\n%s", err, out)
		}
		out2, err := encodeFile(again)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, out2) {
			t.Fatalf("encode is not stable:\n%s\n%s", out, out2)
		}
	})
}
