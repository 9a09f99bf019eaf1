package index

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "files.idx")
	in := sample()
	if err := Save(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(path, "root=/x")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in.Files, out.Files, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
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
	path := filepath.Join(t.TempDir(), "files.idx")
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
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
	path := filepath.Join(f.TempDir(), "files.idx")
	if err := Save(path, sample()); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(path)
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
