package index

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func recKey(i int) [32]byte { return sha256.Sum256(fmt.Appendf(nil, "key %d", i)) }

func recData(i int) []byte { return bytes.Repeat(fmt.Appendf(nil, "record %d;", i), 1+i%7) }

func openRecs(t *testing.T, dir, key string) *Records {
	t.Helper()
	r, err := OpenRecords(dir, "test", key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// filled returns a new directory holding n records of version "v1",
// written and closed.
func filled(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	r := openRecs(t, dir, "v1")
	fill(t, r, n)
	r.Close()
	return dir
}

func fill(t *testing.T, r *Records, n int) {
	t.Helper()
	for i := range n {
		if err := r.Put(recKey(i), recData(i)); err != nil {
			t.Fatal(err)
		}
	}
}

func dataFile(t *testing.T, dir string) string {
	t.Helper()
	ms, _ := filepath.Glob(filepath.Join(dir, "test.*.dat"))
	if len(ms) != 1 {
		t.Fatalf("data files %v, want one", ms)
	}
	return ms[0]
}

func TestRecordsRoundTrip(t *testing.T) {
	dir := filled(t, 50)
	r2 := openRecs(t, dir, "v1")
	if r2.Len() != 50 {
		t.Fatalf("reopened: %d records, want 50", r2.Len())
	}
	for i := range 50 {
		got, ok := r2.Get(recKey(i))
		if !ok || !bytes.Equal(got, recData(i)) {
			t.Fatalf("record %d: %q %v", i, got, ok)
		}
	}
	if _, ok := r2.Get(recKey(99)); ok {
		t.Fatal("a record never put was found")
	}
}

func TestRecordsDamage(t *testing.T) {
	tests := []struct {
		name string
		// damage changes the files; want reports which records must still
		// read back (the others must read as missing, never wrong).
		damage func(t *testing.T, dir string)
		want   func(i int) bool
		len    int
	}{
		{"corrupt record", func(t *testing.T, dir string) {
			p := dataFile(t, dir)
			b, _ := os.ReadFile(p)
			b[3] ^= 0xff // inside record 0
			os.WriteFile(p, b, 0o600)
		}, func(i int) bool { return i != 0 }, 10},
		{"truncated data", func(t *testing.T, dir string) {
			p := dataFile(t, dir)
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()-5) // the last record loses its end
		}, func(i int) bool { return i != 9 }, 10},
		{"torn entry", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "test.keys")
			st, _ := os.Stat(p)
			os.Truncate(p, st.Size()-7) // the last entry is torn
		}, func(i int) bool { return i != 9 }, 9},
		{"corrupt entry", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "test.keys")
			b, _ := os.ReadFile(p)
			b[len(b)-entrySize+33] ^= 0x01 // the last entry's offset
			os.WriteFile(p, b, 0o600)
		}, func(i int) bool { return i != 9 }, 9},
		{"corrupt header", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "test.keys")
			b, _ := os.ReadFile(p)
			b[10] ^= 0x01
			os.WriteFile(p, b, 0o600)
		}, func(int) bool { return false }, 0},
		{"missing data file", func(t *testing.T, dir string) {
			os.Remove(dataFile(t, dir))
		}, func(int) bool { return false }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filled(t, 10)
			tt.damage(t, dir)
			r2 := openRecs(t, dir, "v1")
			if r2.Len() != tt.len {
				t.Errorf("%d records listed, want %d", r2.Len(), tt.len)
			}
			for i := range 10 {
				got, ok := r2.Get(recKey(i))
				if ok && !bytes.Equal(got, recData(i)) {
					t.Fatalf("record %d read back wrong: %q", i, got)
				}
				if ok != tt.want(i) {
					t.Errorf("record %d: found %v, want %v", i, ok, tt.want(i))
				}
			}
			// What was lost is put again and reads back, after a reopen too.
			fill(t, r2, 10)
			r2.Close()
			r3 := openRecs(t, dir, "v1")
			for i := range 10 {
				if got, ok := r3.Get(recKey(i)); !ok || !bytes.Equal(got, recData(i)) {
					t.Fatalf("record %d after repair: %q %v", i, got, ok)
				}
			}
		})
	}
}

func TestRecordsStaleKey(t *testing.T) {
	dir := filled(t, 10)
	r2 := openRecs(t, dir, "v2")
	if r2.Len() != 0 {
		t.Fatalf("records of another version read: %d", r2.Len())
	}
	if _, ok := r2.Get(recKey(1)); ok {
		t.Fatal("a record of another version was returned")
	}
	fill(t, r2, 3)
	dataFile(t, dir) // the old version's data file is gone
}

func TestRecordsNoDir(t *testing.T) {
	if _, err := OpenRecords(filepath.Join(t.TempDir(), "missing"), "test", "v1"); err == nil {
		t.Fatal("opened records in a missing directory")
	}
}

// TestRecordsConcurrent: two handles on the same files (a daemon and a
// CLI process) append and read at once, one compacts meanwhile; every
// record read is right, and each sees the other's records.
func TestRecordsConcurrent(t *testing.T) {
	dir := t.TempDir()
	a := openRecs(t, dir, "v1")
	b := openRecs(t, dir, "v1")
	var wg sync.WaitGroup
	for w, r := range []*Records{a, b} {
		wg.Go(func() {
			for i := w; i < 400; i += 2 {
				if err := r.Put(recKey(i), recData(i)); err != nil {
					t.Error(err)
					return
				}
				if i%50 == 0 {
					if _, err := r.Compact(); err != nil {
						t.Error(err)
					}
				}
				for j := 0; j < i; j += 37 {
					if got, ok := r.Get(recKey(j)); ok && !bytes.Equal(got, recData(j)) {
						t.Errorf("record %d read back wrong", j)
					}
				}
			}
		})
	}
	wg.Wait()
	for _, r := range []*Records{a, b} {
		for i := range 400 {
			if got, ok := r.Get(recKey(i)); !ok || !bytes.Equal(got, recData(i)) {
				t.Fatalf("record %d: found %v", i, ok)
			}
		}
	}
}

func TestRecordsCompact(t *testing.T) {
	dir := t.TempDir()
	r := openRecs(t, dir, "v1")
	big := bytes.Repeat([]byte("x"), 1<<20)
	k := recKey(1000)
	// The same key rewritten: all but the last record are garbage.
	for i := range 20 {
		big[0] = byte(i)
		if err := r.Put(k, big); err != nil {
			t.Fatal(err)
		}
	}
	fill(t, r, 5)
	done, err := r.Compact()
	if err != nil || !done {
		t.Fatalf("compact: %v %v", done, err)
	}
	st, _ := os.Stat(dataFile(t, dir))
	if st.Size() > 2<<20 {
		t.Fatalf("data file %d bytes after compaction", st.Size())
	}
	if got, ok := r.Get(k); !ok || got[0] != 19 {
		t.Fatal("the last record of a rewritten key was lost")
	}
	for i := range 5 {
		if got, ok := r.Get(recKey(i)); !ok || !bytes.Equal(got, recData(i)) {
			t.Fatalf("record %d lost by compaction", i)
		}
	}
}

// TestRecordsCompactBound: over MaxBytes, compaction keeps only the
// records this handle used (read or put), and at most MaxBytes of them.
func TestRecordsCompactBound(t *testing.T) {
	used := []int{2, 3}
	tests := []struct {
		name     string
		maxBytes int64
		want     int // records left
	}{
		{"room for the used", int64(len(recData(2)) + len(recData(3))), 2},
		{"room for one", int64(max(len(recData(2)), len(recData(3)))), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := t.TempDir()
			w := openRecs(t, d, "v1")
			fill(t, w, 10)
			w.Close()
			r := openRecs(t, d, "v1")
			r.MaxBytes = tt.maxBytes
			for _, i := range used {
				if _, ok := r.Get(recKey(i)); !ok {
					t.Fatalf("record %d missing", i)
				}
			}
			if done, err := r.Compact(); err != nil || !done {
				t.Fatalf("compact over the bound: %v %v", done, err)
			}
			r.Close()
			r = openRecs(t, d, "v1")
			if r.Len() != tt.want || r.Size() > tt.maxBytes {
				t.Errorf("%d records of %d bytes kept, want %d within %d", r.Len(), r.Size(), tt.want, tt.maxBytes)
			}
			for i := range 10 {
				got, ok := r.Get(recKey(i))
				if ok && (i != 2 && i != 3 || !bytes.Equal(got, recData(i))) {
					t.Errorf("record %d kept (used: %v)", i, used)
				}
			}
		})
	}
}
