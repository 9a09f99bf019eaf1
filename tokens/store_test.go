package tokens

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// storeTexts are texts of every kind a prompt counts: short and long,
// code, prose, non-ASCII, invalid UTF-8.
var storeTexts = []string{
	"x", "hello world", "func (s *Server) Shutdown(ctx context.Context) error {\n\treturn nil\n}\n",
	strings.Repeat("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n", 40),
	"日本語のテキスト 👋🌍", "\xff\xfe broken", strings.Repeat(" ", 300),
}

// freshCounter is an exact counter as a new process makes it: its
// vocabulary not decoded yet.
func freshCounter(t *testing.T, enc string) (*exactCounter, *bpeBackend) {
	t.Helper()
	b, err := newBPEBackend(enc)
	if err != nil {
		t.Fatal(err)
	}
	return &exactCounter{name: enc, backend: b, cache: newCountCache(defaultCacheEntries)}, b
}

// TestStoredCounts: a stored counter counts as its counter does; a second
// process with the store counts every text again without decoding the
// vocabulary, for each encoding.
func TestStoredCounts(t *testing.T) {
	for _, enc := range Encodings {
		t.Run(enc, func(t *testing.T) {
			plain, _ := freshCounter(t, enc)
			s := NewCountStore()
			first := Stored(plain, s)
			for _, text := range storeTexts {
				if got, want := first.Count(text), plain.Count(text); got != want {
					t.Errorf("%.20q: stored counter %d, counter %d", text, got, want)
				}
			}
			s2, err := DecodeCountStore(s.AppendBinary(nil, 0))
			if err != nil {
				t.Fatal(err)
			}
			next, b := freshCounter(t, enc)
			second := Stored(next, s2)
			for _, text := range storeTexts {
				if got, want := second.Count(text), plain.Count(text); got != want {
					t.Errorf("%.20q: from the store %d, want %d", text, got, want)
				}
			}
			if b.ranks != nil {
				t.Error("the second process decoded the vocabulary")
			}
			if st := s2.Stats(); st.Misses != 0 || s2.Dirty() {
				t.Errorf("second process: %+v", st)
			}
			// An edited text misses and is counted.
			if got, want := second.Count(storeTexts[2]+"// more\n"), plain.Count(storeTexts[2]+"// more\n"); got != want {
				t.Errorf("edited text: %d, want %d", got, want)
			}
			if !s2.Dirty() {
				t.Error("a new count did not mark the store dirty")
			}
		})
	}
}

// TestStoredEstimator: an estimator is not stored (its calibration may
// change between versions).
func TestStoredEstimator(t *testing.T) {
	c, _ := ForModel("claude-sonnet-4", 0)
	if c.Exact() {
		t.Skip("model counts exactly")
	}
	if got := Stored(c, NewCountStore()); got != c {
		t.Error("an estimator was wrapped")
	}
}

// TestCountStoreBound: over maxEntries, the counts used most recently are
// kept.
func TestCountStoreBound(t *testing.T) {
	c, _ := freshCounter(t, O200kBase)
	s := NewCountStore()
	Stored(c, s).Count("old text")
	s2, err := DecodeCountStore(s.AppendBinary(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	Stored(c, s2).Count("recent text")
	s3, err := DecodeCountStore(s2.AppendBinary(nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s3.get(storeKey(O200kBase, "recent text")); !ok || s3.Stats().Counts != 1 {
		t.Errorf("bounded store: %+v, recent kept %v", s3.Stats(), ok)
	}
}

// TestDecodeCountStoreCorrupt: every truncation fails with
// ErrCountStoreEncoding.
func TestDecodeCountStoreCorrupt(t *testing.T) {
	c, _ := freshCounter(t, O200kBase)
	s := NewCountStore()
	for _, text := range storeTexts {
		Stored(c, s).Count(text)
	}
	b := s.AppendBinary(nil, 0)
	for n := range len(b) {
		if _, err := DecodeCountStore(b[:n]); !errors.Is(err, ErrCountStoreEncoding) {
			t.Fatalf("truncated to %d of %d: err %v", n, len(b), err)
		}
	}
	if _, err := DecodeCountStore(append(b, 0)); !errors.Is(err, ErrCountStoreEncoding) {
		t.Errorf("trailing byte: err %v", err)
	}
}

// FuzzDecodeCountStore: arbitrary bytes never panic the decoder, and what
// decodes encodes and decodes again to the same counts.
//
//	go test -fuzz=FuzzDecodeCountStore ./tokens
func FuzzDecodeCountStore(f *testing.F) {
	s := NewCountStore()
	s.put(storeKey(O200kBase, "a"), 1)
	s.put(storeKey(O200kBase, "bb"), 1<<20)
	f.Add(s.AppendBinary(nil, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeCountStore(b)
		if err != nil {
			return
		}
		s2, err := DecodeCountStore(s.AppendBinary(nil, 0))
		if err != nil {
			t.Fatal(err)
		}
		counts := func(s *CountStore) map[countKey]uint32 {
			m := map[countKey]uint32{}
			for k, e := range s.counts {
				m[k] = e.count
			}
			return m
		}
		if !maps.Equal(counts(s), counts(s2)) {
			t.Error("counts changed in a round trip")
		}
	})
}

// TestCountStoreMemoryBound: in memory, a store over its limit drops the
// counts of older processes first.
func TestCountStoreMemoryBound(t *testing.T) {
	defer func(n int) { countMemMax = n }(countMemMax)
	countMemMax = 4
	s := NewCountStore()
	for i := range 3 {
		s.put(storeKey(O200kBase, strings.Repeat("o", i+1)), 1)
	}
	s2, err := DecodeCountStore(s.AppendBinary(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s2.put(storeKey(O200kBase, strings.Repeat("n", i+1)), 1)
	}
	if n := len(s2.counts); n > countMemMax {
		t.Errorf("%d counts, limit %d", n, countMemMax)
	}
	for i := range 3 {
		if _, ok := s2.counts[storeKey(O200kBase, strings.Repeat("n", i+1))]; !ok {
			t.Errorf("recent count %d dropped", i)
		}
	}
}
