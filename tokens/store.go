package tokens

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ctxd/ctxd/internal/uvarint"
	"github.com/ctxd/ctxd/internal/vsort"
)

// A CountStore keeps token counts across processes, keyed by a hash of
// the encoding and the text (never the text): a fresh CLI run or a
// restarted daemon counts unchanged files, views and sections without
// decoding a vocabulary or running BPE. The caller persists it (engine: a
// sealed file beside the file index) with [CountStore.AppendBinary] and
// [DecodeCountStore]. A CountStore is safe for concurrent use.
type CountStore struct {
	// mu guards the fields below.
	mu     sync.Mutex
	gen    uint32 // this process's generation: counts used now carry it
	counts map[countKey]storedCount
	dirty  bool
	hits   int
	misses int
	// vectors keeps block vectors (vectors.go), nil for none.
	vectors VectorStore
}

// countKey is the first 16 bytes of SHA-256 over the encoding, a zero
// byte and the text: a collision needs about 2^64 texts.
type countKey [16]byte

// storedCount is 8 bytes: a map entry with its 16-byte key takes about
// 35 bytes, against 52 with a 64-bit generation (14 MB instead of 21 at
// countMemMax). Four billion process starts fit in a generation.
type storedCount struct {
	gen   uint32
	count uint32
}

// ErrCountStoreEncoding is returned by [DecodeCountStore] for bytes that
// are not a count store.
var ErrCountStoreEncoding = errors.New("bad token count store encoding")

// NewCountStore returns an empty store.
func NewCountStore() *CountStore {
	return &CountStore{gen: 1, counts: map[countKey]storedCount{}}
}

// Stored returns a Counter that answers from s the counts it has and
// counts the others with c, recording them in s. Its counts are c's. An
// estimator (not [Counter.Exact]) is returned as it is: its calibration
// may change between versions, a real encoding's counts do not.
func Stored(c Counter, s *CountStore) Counter {
	if s == nil || !c.Exact() {
		return c
	}
	return &storedCounter{Counter: c, store: s}
}

type storedCounter struct {
	Counter
	store *CountStore
}

// memo is a counter's in-process cache, asked before the store: its key
// (one maphash value) costs far less than the store's SHA-256.
type memo interface {
	// memoKey returns text's key, false when the memo does not keep
	// counts of such a text (too short, no cache).
	memoKey(text string) (cacheKey, bool)
	cachedKey(k cacheKey) (int, bool)
	rememberKey(k cacheKey, n int)
	// countUncached counts text without asking or filling the memo.
	countUncached(text string) int
}

func (c *storedCounter) Count(text string) int { return c.count(text, nil) }

// count is Count that calls miss (when not nil) before it runs the
// tokenizer, when neither the memo nor the store has text's count.
func (c *storedCounter) count(text string, miss func()) int {
	if text == "" {
		return 0
	}
	m, _ := c.Counter.(memo)
	if m == nil {
		k := storeKey(c.Encoding(), text)
		if n, ok := c.store.get(k); ok {
			return n
		}
		if miss != nil {
			miss()
		}
		n := c.Counter.Count(text)
		c.store.put(k, n)
		return n
	}
	// The memo's key is hashed once, for the lookup and the put.
	mk, memoized := m.memoKey(text)
	if memoized {
		if n, ok := m.cachedKey(mk); ok {
			return n
		}
	}
	k := storeKey(c.Encoding(), text)
	n, ok := c.store.get(k)
	if !ok {
		if miss != nil {
			miss()
		}
		n = m.countUncached(text)
		c.store.put(k, n)
	}
	if memoized {
		m.rememberKey(mk, n)
	}
	return n
}

// storeKey is text's count key: the first 16 bytes of the hash baseKeys
// takes.
func storeKey(encoding, text string) countKey {
	_, k := baseKeys(encoding, text)
	return k
}

func (s *CountStore) get(k countKey) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.counts[k]
	if !ok {
		s.misses++
		return 0, false
	}
	s.hits++
	if e.gen != s.gen {
		e.gen = s.gen
		s.counts[k] = e
	}
	return int(e.count), true
}

func (s *CountStore) put(k countKey, n int) {
	if n < 0 || n > 1<<31 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[k] = storedCount{gen: s.gen, count: uint32(n)}
	s.dirty = true
	if len(s.counts) > countMemMax {
		s.trim()
	}
}

// countMemMax bounds a store in memory (about 35 bytes a count, 14 MB):
// over it, the counts of the oldest generations are dropped down to three
// quarters. A variable for the tests.
var countMemMax = 400_000

// trim drops the oldest generations' counts. s.mu must be held.
func (s *CountStore) trim() {
	var gens []uint32
	for _, e := range s.counts {
		gens = append(gens, e.gen)
	}
	slices.Sort(gens)
	gens = slices.Compact(gens)
	for _, g := range gens {
		for k, e := range s.counts {
			if len(s.counts) <= countMemMax*3/4 {
				return
			}
			if e.gen == g {
				delete(s.counts, k)
			}
		}
	}
}

// Dirty reports whether the store learned a count since it was decoded or
// last encoded.
func (s *CountStore) Dirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirty
}

// CountStoreStats counts a store's entries and this process's lookups.
type CountStoreStats struct {
	Counts, Hits, Misses int
}

// Stats returns the store's counts.
func (s *CountStore) Stats() CountStoreStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return CountStoreStats{Counts: len(s.counts), Hits: s.hits, Misses: s.misses}
}

// Encoding: uvarint gen, uvarint count, then per entry the 16-byte key,
// uvarint gen, uvarint token count; most recently used first, at most
// maxEntries, so the store stays bounded.

// AppendBinary appends the store's encoding to b, keeping the maxEntries
// most recently used counts (all when maxEntries <= 0), and marks the
// store clean.
func (s *CountStore) AppendBinary(b []byte, maxEntries int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	type ent struct {
		k countKey
		storedCount
	}
	ents := make([]ent, 0, len(s.counts))
	for k, e := range s.counts {
		ents = append(ents, ent{k, e})
	}
	vsort.Func(ents, func(x, y ent) int {
		return cmp.Or(cmp.Compare(y.gen, x.gen), slices.Compare(x.k[:], y.k[:])) // most recent first
	})
	if maxEntries > 0 && len(ents) > maxEntries {
		ents = ents[:maxEntries]
	}
	b = binary.AppendUvarint(b, uint64(s.gen))
	b = binary.AppendUvarint(b, uint64(len(ents)))
	for _, e := range ents {
		b = append(b, e.k[:]...)
		b = binary.AppendUvarint(b, uint64(e.gen))
		b = binary.AppendUvarint(b, uint64(e.count))
	}
	s.dirty = false
	return b
}

// DecodeCountStore decodes what [CountStore.AppendBinary] wrote. A
// malformed encoding returns an error wrapping [ErrCountStoreEncoding].
func DecodeCountStore(b []byte) (*CountStore, error) {
	bad := func(what string) (*CountStore, error) {
		return nil, fmt.Errorf("decode token count store: %w: %s", ErrCountStoreEncoding, what)
	}
	r := uvarint.NewReader(b)
	last := r.Uvarint()
	if r.Err() != nil || last >= 1<<32-1 {
		return bad("generation")
	}
	n := r.Count(18)
	if r.Err() != nil {
		return bad("count")
	}
	s := NewCountStore()
	s.gen = uint32(last) + 1
	s.counts = make(map[countKey]storedCount, n) // sized once, not grown
	for range n {
		var k countKey
		copy(k[:], r.Bytes(len(k)))
		if r.Err() != nil {
			return bad("short entry")
		}
		gen, c := r.Uvarint(), r.Uvarint()
		if r.Err() != nil || c > 1<<31 || gen > 1<<32-1 {
			return bad("entry")
		}
		s.counts[k] = storedCount{gen: uint32(gen), count: uint32(c)}
	}
	if r.Len() != 0 {
		return bad(fmt.Sprintf("%d trailing bytes", r.Len()))
	}
	return s, nil
}
