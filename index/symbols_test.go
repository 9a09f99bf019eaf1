package index

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleSymbols() []*Symbols {
	return []*Symbols{
		{Hash: [32]byte{2}, Language: "go", Defs: []Def{
			{Name: "Shutdown", Parent: "Server", Kind: "method", Line: 14, End: 16, Signature: "func (s *Server) Shutdown(ctx context.Context) error"},
			{Name: "MaxConns", Kind: "const", Line: 3, End: 3},
		}, Refs: []string{"Server", "ctx"}},
		{Hash: [32]byte{1}, Language: "python"},
		{Hash: [32]byte{3}, Language: "ruby", Refs: []string{"items"}},
	}
}

// TestSymbolsRoundTrip: an entry decodes from its record as it was
// encoded, and a record that is not one decodes to [ErrCorrupt], never to
// an entry.
func TestSymbolsRoundTrip(t *testing.T) {
	for _, in := range sampleSymbols() {
		got, err := DecodeSymbols(in.Hash, EncodeSymbols(in))
		if err != nil {
			t.Fatalf("%s: %v", in.Language, err)
		}
		if d := cmp.Diff(in, got); d != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", in.Language, d)
		}
	}
	good := EncodeSymbols(sampleSymbols()[0])
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)-3]},
		{"trailing bytes", append(append([]byte(nil), good...), 0)},
		{"count past the end", []byte{2, 'g', 'o', 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"string past the end", []byte{0x7f, 'g', 'o'}},
		{"bad varint", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := DecodeSymbols([32]byte{9}, tt.b)
			if !errors.Is(err, ErrCorrupt) || s != nil {
				t.Errorf("DecodeSymbols = %v, %v; want nil, ErrCorrupt", s, err)
			}
		})
	}
}

// FuzzDecodeSymbols: decoding a record's bytes (read from the state
// directory, untrusted) never panics, and what decodes re-encodes to a
// record that decodes the same.
//
//	go test -run '^$' -fuzz FuzzDecodeSymbols -fuzztime 1m ./index
func FuzzDecodeSymbols(f *testing.F) {
	for _, s := range sampleSymbols() {
		f.Add(EncodeSymbols(s))
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0x80, 0x80, 0x80, 0x80, 0x10})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSymbols([32]byte{7}, b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := DecodeSymbols(s.Hash, EncodeSymbols(s))
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if d := cmp.Diff(s, again); d != "" {
			t.Fatalf("re-encoded entry differs (-first +again):\n%s", d)
		}
	})
}
