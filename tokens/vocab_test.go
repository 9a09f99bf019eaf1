package tokens

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	tiktokenassets "github.com/pkoukk/tiktoken-go-loader/assets"
)

// vocabEncodings are the encodings whose vocabularies are embedded: the
// ones newBPEBackend counts with.
var vocabEncodings = []string{Cl100kBase, O200kBase}

// TestVocabFiles checks that each embedded vocabulary decodes to exactly
// the ranks of the loader's .tiktoken file (every token with its rank,
// nothing more). With -update it rewrites the embedded files from the
// loader's: go test ./tokens -run TestVocabFiles -update.
func TestVocabFiles(t *testing.T) {
	for _, enc := range vocabEncodings {
		t.Run(enc, func(t *testing.T) {
			src, err := tiktokenassets.Assets.ReadFile(enc + ".tiktoken")
			if err != nil {
				t.Fatal(err)
			}
			want, err := parseTiktokenRanks(src)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				z, err := compressVocab(want)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.FromSlash(vocabFile(enc)), z, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d bytes from %d", vocabFile(enc), len(z), len(src))
			}
			got, err := loadVocab(enc)
			if err != nil {
				t.Fatalf("%v (run go test ./tokens -run TestVocabFiles -update)", err)
			}
			if d := diffRanks(want, got); d != "" {
				t.Errorf("%s differs from the loader's %s.tiktoken (run go test ./tokens -run TestVocabFiles -update): %s", vocabFile(enc), enc, d)
			}
		})
	}
}

// diffRanks describes the first difference between two tables, "" when
// they hold the same tokens with the same ranks.
func diffRanks(want, got *rankTable) string {
	if want.Len() != got.Len() {
		return fmt.Sprintf("%d tokens, want %d", got.Len(), want.Len())
	}
	for _, sl := range want.slots {
		if sl.lenRank == 0 {
			continue
		}
		tok := want.data[sl.off : sl.off+sl.lenRank>>24]
		if r, ok := got.get(tok); !ok || r != int(sl.lenRank&maxRank) {
			return fmt.Sprintf("token %q: rank %d, %v; want %d", tok, r, ok, sl.lenRank&maxRank)
		}
	}
	return ""
}

// compressVocab writes a table in the embedded form: each token as the
// pair of lower ranks it is made of (the pair whose higher rank is
// lowest: the merge that made it), in byte planes, compressed.
func compressVocab(t *rankTable) ([]byte, error) {
	var byRank []string
	for _, sl := range t.slots {
		if sl.lenRank == 0 {
			continue
		}
		r := int(sl.lenRank & maxRank)
		for len(byRank) <= r {
			byRank = append(byRank, "")
		}
		byRank[r] = t.data[sl.off : sl.off+sl.lenRank>>24]
	}
	n := len(byRank)
	raw := make([]byte, 4+6*n)
	binary.LittleEndian.PutUint32(raw, uint32(n))
	put := func(plane, r, v int) {
		p := raw[4+3*plane*n:]
		p[r], p[n+r], p[2*n+r] = byte(v), byte(v>>8), byte(v>>16)
	}
	for r, tok := range byRank {
		if tok == "" {
			return nil, fmt.Errorf("rank %d: no token (the loader's ranks are dense)", r)
		}
		if len(tok) == 1 {
			put(0, r, byteToken)
			put(1, r, int(tok[0]))
			continue
		}
		left, right := -1, -1
		for k := 1; k < len(tok); k++ {
			a, okA := t.get(tok[:k])
			b, okB := t.get(tok[k:])
			if okA && okB && a < r && b < r && (left < 0 || max(a, b) < max(left, right)) {
				left, right = a, b
			}
		}
		if left < 0 {
			return nil, fmt.Errorf("rank %d: token %q is not two tokens of lower rank", r, tok)
		}
		put(0, r, left)
		put(1, r, right)
	}
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// vocabBytes is the decompressed form of tokens given by their pairs:
// a [2]int{byteToken, c} is the byte c.
func vocabBytes(pairs ...[2]int) []byte {
	n := len(pairs)
	b := make([]byte, 4+6*n)
	binary.LittleEndian.PutUint32(b, uint32(n))
	for r, p := range pairs {
		for plane, v := range p {
			q := b[4+3*plane*n:]
			q[r], q[n+r], q[2*n+r] = byte(v), byte(v>>8), byte(v>>16)
		}
	}
	return b
}

func TestDecodeVocab(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    map[string]int
		wantErr bool
	}{
		{"bytes and pairs", vocabBytes([2]int{byteToken, 'h'}, [2]int{byteToken, 'i'}, [2]int{0, 1}, [2]int{2, 2}),
			map[string]int{"h": 0, "i": 1, "hi": 2, "hihi": 3}, false},
		{"none", vocabBytes(), map[string]int{}, false},
		{"no count", []byte{1, 0}, nil, true},
		{"cut short", vocabBytes([2]int{byteToken, 'h'})[:8], nil, true},
		{"a pair of a later rank", vocabBytes([2]int{byteToken, 'h'}, [2]int{0, 2}, [2]int{0, 0}), nil, true},
		{"a pair of its own rank", vocabBytes([2]int{byteToken, 'h'}, [2]int{1, 0}), nil, true},
		{"a marker with no byte", vocabBytes([2]int{byteToken, 300}), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeVocab(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if got.Len() != len(tt.want) {
				t.Errorf("%d tokens, want %d", got.Len(), len(tt.want))
			}
			for k, v := range tt.want {
				if r, ok := got.get(k); !ok || r != v {
					t.Errorf("get(%q) = %d, %v; want %d", k, r, ok, v)
				}
			}
		})
	}
}

func FuzzDecodeVocab(f *testing.F) {
	f.Add(vocabBytes([2]int{byteToken, 'h'}, [2]int{byteToken, 'i'}, [2]int{0, 1}, [2]int{2, 2}))
	f.Add(vocabBytes([2]int{byteToken, 'h'}, [2]int{0, 2}, [2]int{0, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := decodeVocab(data); err == nil && r.Len() > len(data) {
			t.Errorf("%d tokens from %d bytes", r.Len(), len(data))
		}
	})
}

// parseTiktokenRanks reads a .tiktoken file: one "base64(token) rank" per
// line. The tokens are decoded into one buffer the table indexes.
func parseTiktokenRanks(data []byte) (*rankTable, error) {
	type entry struct{ off, n, rank int }
	entries := make([]entry, 0, bytes.Count(data, []byte{'\n'})+1)
	buf := make([]byte, 0, len(data)*3/4)
	for line := 1; len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(l) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(l, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("line %d: want \"token rank\"", line)
		}
		off := len(buf)
		buf = buf[:off+base64.StdEncoding.DecodedLen(len(tok))]
		n, err := base64.StdEncoding.Decode(buf[off:], tok)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		buf = buf[:off+n]
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		entries = append(entries, entry{off, n, r})
	}
	ranks := newRankTable(string(buf), len(entries))
	for _, e := range entries {
		if err := ranks.put(e.off, e.n, e.rank); err != nil {
			return nil, err
		}
	}
	return ranks, nil
}
