package index

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleSymbols() []*Symbols {
	return []*Symbols{
		{Hash: [32]byte{2}, Language: "go", Defs: []Def{{Name: "Shutdown", Parent: "Server", Kind: "method", Line: 14, End: 16, Signature: "func (s *Server) Shutdown(ctx context.Context) error"}}, Refs: []string{"Server", "ctx"}},
		{Hash: [32]byte{1}, Language: "python"},
	}
}

func TestSymbolsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index", "symbols.idx")
	in := sampleSymbols()
	if err := SaveSymbols(path, "k1", in); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSymbols(path, "k1")
	if err != nil {
		t.Fatal(err)
	}
	want := []*Symbols{in[1], in[0]} // sorted by hash
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	if _, err := LoadSymbols(path, "k2"); !errors.Is(err, ErrStale) {
		t.Errorf("another key: %v, want ErrStale", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ".gitignore")); err != nil {
		t.Errorf("no .gitignore in the state directory: %v", err)
	}
}

// FuzzDecodeSymbols: decoding arbitrary bytes never panics, and what
// decodes re-encodes to an index that decodes the same.
//
//	go test -run '^$' -fuzz FuzzDecodeSymbols -fuzztime 1m ./index
func FuzzDecodeSymbols(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "s.idx")
	if err := SaveSymbols(path, "k", sampleSymbols()); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(symbolsMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := decodeSymbols(b, "k")
		if err != nil {
			return
		}
		p := filepath.Join(t.TempDir(), "s.idx")
		if err := SaveSymbols(p, "k", es); err != nil {
			t.Fatal(err)
		}
		again, err := LoadSymbols(p, "k")
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != len(es) {
			t.Fatalf("%d entries, then %d", len(es), len(again))
		}
	})
}
