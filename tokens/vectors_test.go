package tokens

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// newProcess is a stored counter of enc as a new process has it: its
// own empty memo and block cache over the shared backend, on store s.
func newProcess(t testing.TB, enc string, s *CountStore) (Counter, *exactCounter) {
	e := &exactCounter{name: enc, backend: mustBackend(t, backendBPE, enc), cache: newCountCache(1024), blocks: newBlockCache(1 << 16)}
	return Stored(e, s), e
}

// TestPrimeExact records the block vectors of .go files of GOROOT in
// one process (CountBase), then, in a new one (new memo and block
// cache, the store and vectors kept), primes each file's blocks from its
// vector and counts views of the file: every count equals BPE's over the
// whole text, each primed block's count equals BPE's over the block, and
// the views' blocks the file shares are found in the cache.
func TestPrimeExact(t *testing.T) {
	files := goTree(t)
	for _, enc := range Encodings {
		be := mustBackend(t, backendBPE, enc)
		s, vecs := NewCountStore(), testutil.NewRecords()
		s.SetVectors(vecs)
		first, _ := newProcess(t, enc, s)
		for path, src := range files {
			if got, want := CountBase(first, src), be.count(validUTF8(src)); got != want {
				t.Fatalf("%s: %s: CountBase %d, BPE %d", enc, path, got, want)
			}
		}
		c, e := newProcess(t, enc, s)
		primed, shared, total := 0, 0, 0
		for path, src := range files {
			Prime(c, src)
			if len(src) >= minBlockText {
				primed++
				splitBlocks(validUTF8(src), blockMinLen, func(b string) {
					n, ok := e.blocks.get(e.blocks.key(b))
					if !ok {
						return // evicted by a later block of the same pair
					}
					if want := be.count(b); n != want {
						t.Fatalf("%s: %s: primed block %q: %d tokens, BPE %d", enc, path, clip(b), n, want)
					}
				})
			}
			for _, v := range viewsOf(path, src) {
				v = validUTF8(v)
				splitBlocks(v, blockMinLen, func(b string) {
					total++
					if _, ok := e.blocks.get(e.blocks.key(b)); ok {
						shared++
					}
				})
				if got, want := c.Count(v), be.count(v); got != want {
					t.Fatalf("%s: %s: view counted %d, BPE %d", enc, path, got, want)
				}
			}
		}
		t.Logf("%s: %d files primed, %d of %d view blocks found before counting", enc, primed, shared, total)
		if primed > 0 && shared*2 < total {
			t.Errorf("%s: only %d of %d view blocks primed", enc, shared, total)
		}
	}
}

// TestPrimeRejects: a vector that does not agree with its text (another
// length, another sum, a zero, a torn uvarint) or a text whose count the
// store does not know primes nothing.
func TestPrimeRejects(t *testing.T) {
	if vk, ck := baseKeys(O200kBase, "text"); ck != storeKey(O200kBase, "text") || countKey(vk[:16]) != ck {
		t.Fatal("baseKeys' count key is not storeKey's")
	}
	src := strings.Repeat("func f(x int) int {\n\treturn x * 2 // double it\n}\n\n", 40)
	s, vecs := NewCountStore(), testutil.NewRecords()
	s.SetVectors(vecs)
	c, _ := newProcess(t, O200kBase, s)
	n := CountBase(c, src)
	vk, _ := baseKeys(O200kBase, src)
	good, _ := vecs.Get(vk)
	counts, ok := decodeVector(good, n)
	if !ok || len(counts) < 3 {
		t.Fatalf("recorded vector does not decode: %v, %d counts", ok, len(counts))
	}
	enc := func(cs []uint64) []byte {
		var b []byte
		for _, x := range cs {
			b = binary.AppendUvarint(b, x)
		}
		return b
	}
	base := make([]uint64, len(counts))
	for i, x := range counts {
		base[i] = uint64(x)
	}
	moved := append([]uint64(nil), base...)
	moved[0]++
	moved[1]--
	bad := map[string][]byte{
		"short":     enc(base[1:]),
		"long":      enc(append(append([]uint64(nil), base...), 1)),
		"sum":       enc(append([]uint64{base[0] + 1}, base[1:]...)),
		"zero":      enc(append([]uint64{0, base[0]}, base[1:]...)),
		"torn":      append(enc(base), 0x80),
		"empty":     nil,
		"same sum":  nil, // moved: right length and sum, primes (see below)
		"too large": enc([]uint64{1 << 40}),
	}
	for name, data := range bad {
		if name == "same sum" {
			continue
		}
		vecs.Put(vk, data)
		_, e := newProcess(t, O200kBase, s)
		Prime(Stored(e, s), src)
		if got := e.blocks.len(); got != 0 {
			t.Errorf("%s: vector primed %d blocks", name, got)
		}
	}
	// A vector of the right length and sum primes (its blocks' counts
	// cannot be checked without BPE): the record file's checksums and
	// the key's hash of the text guard it.
	vecs.Put(vk, enc(moved))
	_, e2 := newProcess(t, O200kBase, s)
	Prime(Stored(e2, s), src)
	if e2.blocks.len() == 0 {
		t.Error("a vector of the right length and sum primed nothing")
	}
	// Unknown count: nothing primed.
	vecs.Put(vk, good)
	other := NewCountStore()
	other.SetVectors(vecs)
	_, e3 := newProcess(t, O200kBase, other)
	Prime(Stored(e3, other), src)
	if e3.blocks.len() != 0 {
		t.Error("primed a text whose count the store does not know")
	}
}

// FuzzDecodeVector: any bytes decode to nothing or to counts of at least
// one each summing to the total.
func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{1, 2, 3}, 6)
	f.Add([]byte{0x80, 0x01, 5}, 133)
	f.Add([]byte{0}, 0)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, b []byte, total int) {
		counts, ok := decodeVector(b, total)
		if !ok {
			return
		}
		sum := 0
		for _, x := range counts {
			if x == 0 {
				t.Fatal("zero count accepted")
			}
			sum += int(x)
		}
		if sum != total || len(counts) == 0 {
			t.Fatalf("sum %d of %d counts, total %d", sum, len(counts), total)
		}
	})
}

// FuzzPrime primes a text from arbitrary vector bytes: never a panic,
// and nothing primed unless the bytes decode to as many counts as the
// text has blocks, summing to its count; its real vector (CountBase's)
// primes each block with BPE's count of the block.
func FuzzPrime(f *testing.F) {
	f.Add(strings.Repeat("x := 1\n", 200), []byte{1, 2})
	f.Add(strings.Repeat("\tif err != nil {\n\t\treturn err\n\t}\n", 60), []byte{})
	f.Fuzz(func(t *testing.T, text string, data []byte) {
		if len(text) < minBlockText {
			text += strings.Repeat("line of text\n", minBlockText/13+1)
		}
		be := mustBackend(t, backendBPE, O200kBase)
		s, vecs := NewCountStore(), testutil.NewRecords()
		s.SetVectors(vecs)
		c, _ := newProcess(t, O200kBase, s)
		want := be.count(validUTF8(text))
		if got := CountBase(c, text); got != want {
			t.Fatalf("CountBase %d, BPE %d", got, want)
		}
		blocks := 0
		splitBlocks(validUTF8(text), blockMinLen, func(string) { blocks++ })
		vk, _ := baseKeys(O200kBase, text)
		real, _ := vecs.Get(vk)
		if counts, ok := decodeVector(real, want); !ok || len(counts) != blocks {
			t.Fatalf("recorded vector: ok %v, %d counts, %d blocks", ok, len(counts), blocks)
		}
		vecs.Put(vk, data)
		c2, e2 := newProcess(t, O200kBase, s)
		Prime(c2, text)
		if e2.blocks.len() > 0 {
			if counts, ok := decodeVector(data, want); !ok || len(counts) != blocks {
				t.Fatalf("primed from a vector of %d counts (ok %v) for %d blocks", len(counts), ok, blocks)
			}
		}
		vecs.Put(vk, real)
		c3, e3 := newProcess(t, O200kBase, s)
		Prime(c3, text)
		splitBlocks(validUTF8(text), blockMinLen, func(b string) {
			if n, ok := e3.blocks.get(e3.blocks.key(b)); ok && n != be.count(b) {
				t.Fatalf("primed block %q: %d, BPE %d", clip(b), n, be.count(b))
			}
		})
	})
}

// TestCountThen: miss runs once the counter must run BPE (a text neither
// its memo nor its store counted), never for a known count, and the
// count is Count's.
func TestCountThen(t *testing.T) {
	long := strings.Repeat("func f(x int) int { return x }\n", 20)
	for _, text := range []string{"short text", long} {
		s := NewCountStore()
		c, _ := newProcess(t, O200kBase, s)
		want := mustBackend(t, backendBPE, O200kBase).count(text)
		misses := 0
		miss := func() { misses++ }
		if got := CountThen(c, text, miss); got != want || misses != 1 {
			t.Errorf("%d bytes, first: %d tokens (want %d), %d misses (want 1)", len(text), got, want, misses)
		}
		if got := CountThen(c, text, miss); got != want || misses != 1 {
			t.Errorf("%d bytes, counted: %d tokens, %d misses (want 1)", len(text), got, misses)
		}
		c2, _ := newProcess(t, O200kBase, s) // a new process: the store has it
		if got := CountThen(c2, text, miss); got != want || misses != 1 {
			t.Errorf("%d bytes, stored: %d tokens, %d misses (want 1)", len(text), got, misses)
		}
	}
	plain := mustGet(O200kBase)
	if got := CountThen(plain, "abc", func() { t.Error("miss called for a counter without a store") }); got != plain.Count("abc") {
		t.Errorf("plain counter: %d", got)
	}
}
