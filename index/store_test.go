package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sample() *Snapshot {
	shared := &Content{Hash: [32]byte{1}, Lines: 3, Imports: []string{"fmt", "os"}, GoModule: "example.com/m",
		Bags: []Terms{{Hash: []uint32{3, 9, 70000}, TF: []uint16{1, 4, 65535}, N: 70004}, {Hash: []uint32{5}, TF: []uint16{1}, N: 1}}}
	return &Snapshot{
		Key:     "root=/x",
		Written: 1_700_000_000_000_000_000,
		Files: []File{
			{Path: "b/copy.go", Size: 30, ModTime: 5, Content: shared},
			{Path: "a/main.go", Size: 30, ModTime: 4, Content: shared},
			{Path: "img.png", Size: 900, ModTime: 6, Flags: FlagBinary},
			{Path: "big.txt", Size: 1 << 30, ModTime: 7, Flags: FlagTooBig},
			{Path: "r/ust.rs", Size: 1, ModTime: 8, Content: &Content{Hash: [32]byte{2}, InlineTests: true, Bags: []Terms{{Hash: []uint32{}, TF: []uint16{}}}}},
		},
	}
}

// save saves s at path and returns the file's bytes.
func save(tb testing.TB, path string, s *Snapshot) []byte {
	tb.Helper()
	if err := Save(path, s); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// roundTrip saves in at path and loads it back with load (Load or
// LoadMapped) under sample's key, checking that the files came back.
func roundTrip(t *testing.T, path string, in *Snapshot, load func(path, key string) (*Snapshot, error)) *Snapshot {
	t.Helper()
	save(t, path, in)
	out, err := load(path, "root=/x")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Files, out.Files, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	return out
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "files.idx")
	out := roundTrip(t, path, sample(), Load)
	if out.Files[0].Path != "a/main.go" || out.Files[0].Content != out.Files[1].Content {
		t.Error("identical contents are not stored once and shared")
	}
	if f := out.Lookup("big.txt"); f == nil || f.Flags != FlagTooBig {
		t.Errorf("Lookup(big.txt) = %+v", f)
	}
	if out.Lookup("nope") != nil {
		t.Error("Lookup of a missing path found something")
	}
	n := 0
	out.Each(func(*File) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("Each did not stop: %d calls", n)
	}
	if _, err := Load(path, "root=/y"); !errors.Is(err, ErrStale) {
		t.Errorf("another key: %v, want ErrStale", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 2 {
		t.Errorf("want files.idx and .gitignore, found %v", ents)
	}
}

func TestTrusted(t *testing.T) {
	s := &Snapshot{Written: 100 * RacyWindow}
	f := &File{Size: 10, ModTime: 50 * RacyWindow}
	tests := []struct {
		name        string
		size, mtime int64
		want        bool
	}{
		{"unchanged", 10, 50 * RacyWindow, true},
		{"size changed", 11, 50 * RacyWindow, false},
		{"mtime changed", 10, 50*RacyWindow + 1, false},
	}
	for _, tt := range tests {
		if got := s.Trusted(f, tt.size, tt.mtime); got != tt.want {
			t.Errorf("%s: Trusted = %v", tt.name, got)
		}
	}
	racy := &File{Size: 10, ModTime: 100*RacyWindow - 1}
	if s.Trusted(racy, 10, racy.ModTime) {
		t.Error("a file modified just before the snapshot was trusted")
	}
}

func TestLoadCorrupt(t *testing.T) {
	good := save(t, filepath.Join(t.TempDir(), "files.idx"), sample())
	for i := range good {
		b := append([]byte(nil), good...)
		b[i] ^= 0x01
		if _, err := decode(b, "root=/x"); err == nil {
			t.Fatalf("byte %d flipped: loaded", i)
		}
	}
	for n := range len(good) {
		if _, err := decode(good[:n], "root=/x"); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d: %v, want ErrCorrupt", n, err)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none"), "k"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzDecode: any bytes, including ones with a valid checksum over a
// hostile body, give a snapshot or an error, never a panic or a huge
// allocation.
func FuzzDecode(f *testing.F) {
	good := save(f, filepath.Join(f.TempDir(), "files.idx"), sample())
	f.Add(good, false)
	f.Add([]byte(magic), true)
	f.Fuzz(func(t *testing.T, b []byte, fixSum bool) {
		if fixSum {
			b = withSum(b)
		}
		s, err := decode(b, "root=/x")
		if err == nil && s == nil {
			t.Fatal("nil snapshot without error")
		}
	})
}

// withSum appends a valid checksum, so the fuzzer reaches the body parser.
func withSum(body []byte) []byte {
	var e encoder
	e.buf.Write(body)
	return append(append([]byte(nil), body...), checksum(e.buf.Bytes())...)
}

// TestDecodeInPlace: a file at an aligned address gives bags over its own
// bytes; at an odd one, copies; both the same facts.
func TestDecodeInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "files.idx")
	in := sample()
	for i := range 40 { // bags of odd lengths, so later ones need padding
		h := make([]uint32, i%5)
		tf := make([]uint16, i%5)
		for j := range h {
			h[j], tf[j] = uint32(10*j+i), uint16(j+1)
		}
		in.Files = append(in.Files, File{Path: fmt.Sprintf("p/%02d.go", i), Size: 1, ModTime: 2,
			Content: &Content{Hash: [32]byte{byte(i + 3)}, Bags: []Terms{{Hash: h, TF: tf, N: 9}, {Hash: h[:min(len(h), i%3)], TF: tf[:min(len(h), i%3)], N: 1}}}})
	}
	good := save(t, path, in)
	for _, shift := range []int{0, 1, 2, 3} {
		words := make([]uint32, len(good)/4+2)
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 4*len(words))[shift : shift+len(good)]
		copy(buf, good)
		out, err := decode(buf, "root=/x")
		if err != nil {
			t.Fatalf("shift %d: %v", shift, err)
		}
		if diff := cmp.Diff(in.Files, out.Files, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("shift %d (-in +out):\n%s", shift, diff)
		}
		lo, hi := uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&buf[len(buf)-1]))
		for _, f := range out.Files {
			if f.Content == nil {
				continue
			}
			for _, bag := range f.Content.Bags {
				if len(bag.Hash) == 0 {
					continue
				}
				p := uintptr(unsafe.Pointer(&bag.Hash[0]))
				if inBuf := p >= lo && p <= hi; inBuf != (shift == 0 && littleEndian) {
					t.Fatalf("shift %d: bag of %s in the file's bytes = %v", shift, f.Path, inBuf)
				}
			}
		}
	}
}

// TestLoadMapped: the mapped load gives what Load gives, and refuses what
// Load refuses.
func TestLoadMapped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "files.idx")
	out := roundTrip(t, path, sample(), LoadMapped)
	// Save renames a new file over the mapped one: the mapping keeps the
	// old bytes.
	in2 := sample()
	in2.Files[0].Content.Bags[0].Hash[0] = 4
	good := save(t, path, in2)
	if h := out.Lookup("a/main.go").Content.Bags[0].Hash[0]; h != 3 {
		t.Errorf("a file saved over the mapped one changed its bags: %d", h)
	}
	if _, err := LoadMapped(path, "root=/y"); !errors.Is(err, ErrStale) {
		t.Errorf("another key: %v, want ErrStale", err)
	}
	for _, bad := range [][]byte{nil, good[:len(good)/2], append(append([]byte(nil), good[:40]...), append([]byte{good[40] ^ 4}, good[41:]...)...)} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadMapped(path, "root=/x"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%d damaged bytes: %v, want ErrCorrupt", len(bad), err)
		}
	}
	if _, err := LoadMapped(filepath.Join(dir, "none"), "k"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestFind: every path is found whatever the hint; a missing one is not.
func TestFind(t *testing.T) {
	s := roundTrip(t, filepath.Join(t.TempDir(), "files.idx"), sample(), Load)
	for want, f := range s.Files {
		for hint := -2; hint <= len(s.Files)+1; hint++ {
			if got := s.Find(f.Path, hint); got != want {
				t.Errorf("Find(%q, %d) = %d, want %d", f.Path, hint, got, want)
			}
		}
	}
	for _, p := range []string{"", "a", "a/main.go/x", "zzz", "b/copy.gp"} {
		for hint := -1; hint <= len(s.Files); hint++ {
			if got := s.Find(p, hint); got != -1 {
				t.Errorf("Find(%q, %d) = %d, want -1", p, hint, got)
			}
		}
	}
}
