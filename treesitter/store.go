package treesitter

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/ctxd/ctxd/internal/uvarint"
	"github.com/ctxd/ctxd/internal/vsort"
)

// A Store keeps what parsing yields across processes, so a fresh CLI run
// or a restarted daemon renders the views of an unchanged file without
// parsing it: per content hash, the file's analysis (symbols, collapsible
// bodies, docs, members: offsets into the file and short derived strings,
// never the file's text, which the caller has read again and whose hash is
// the key), and per hash of a rendered view, whether that view parses
// (the check parse of [Views]). The caller persists it (engine: a sealed
// file beside the file index) with [Store.AppendBinary] and [DecodeStore].
//
// Entries are decoded on use and checked against the source they are used
// for; one that does not decode or does not fit its source is dropped and
// the file parsed again. A Store is safe for concurrent use.
type Store struct {
	// mu guards the fields below.
	mu       sync.Mutex
	gen      uint64 // this process's generation: entries used now carry it
	analyses map[[32]byte]storedAnalysis
	verdicts map[[32]byte]storedVerdict
	dirty    bool
	hits     int
	misses   int
	size     int // bytes of the entries, as entrySize counts them
	vsize    int // of which the verdicts' bytes
	// recs, when not nil, persists the analyses one by one: analyses is
	// then a cache of them, and the encoding holds the verdicts only.
	recs Records
}

// Records persists analyses one at a time, by key, read back when used
// (engine: an index record file). A record it returns must be the bytes
// put under its key, or nothing.
type Records interface {
	Get(key [32]byte) ([]byte, bool)
	Put(key [32]byte, data []byte) error
}

// SetRecords makes r persist the store's analyses, the ones it holds now
// included; from then on the encoding leaves them out. It returns the
// first error of r.Put.
func (s *Store) SetRecords(r Records) error {
	s.mu.Lock()
	s.recs = r
	type kv struct {
		k [32]byte
		d []byte
	}
	var all []kv
	for k, e := range s.analyses {
		all = append(all, kv{k, e.data})
	}
	if len(all) > 0 {
		s.dirty = true // the encoding changes: without them
	}
	s.mu.Unlock()
	for _, e := range all {
		if err := r.Put(e.k, e.d); err != nil {
			return err
		}
	}
	return nil
}

// HasRecords reports whether records back the store.
func (s *Store) HasRecords() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recs != nil
}

// storeMemMax bounds a store in memory (a long-running daemon sees ever
// more files): over it, the least recently used entries (oldest
// generation first) are dropped down to three quarters. A variable for
// the tests.
var storeMemMax = 48 << 20

func analysisSize(data []byte) int { return 48 + len(data) }
func verdictSize(errs []span) int  { return 48 + 16*len(errs) }

// trim drops entries of the oldest generations until the store is under
// three quarters of storeMemMax. With records, the analyses (read again
// from them) are kept under an eighth of it and the verdicts (persisted
// from memory only) under all of it, each apart. s.mu must be held.
func (s *Store) trim() {
	if s.recs == nil {
		if s.size > storeMemMax {
			s.drop(true, true, func() bool { return s.size <= storeMemMax*3/4 })
		}
		return
	}
	if an := s.size - s.vsize; an > storeMemMax/8 {
		s.drop(true, false, func() bool { return s.size-s.vsize <= storeMemMax/8*3/4 })
	}
	if s.vsize > storeMemMax {
		s.drop(false, true, func() bool { return s.vsize <= storeMemMax*3/4 })
	}
}

// drop deletes analyses and verdicts, as asked, oldest generation first,
// until enough reports true. s.mu must be held.
func (s *Store) drop(analyses, verdicts bool, enough func() bool) {
	var gens []uint64
	for _, e := range s.analyses {
		gens = append(gens, e.gen)
	}
	for _, e := range s.verdicts {
		gens = append(gens, e.gen)
	}
	slices.Sort(gens)
	gens = slices.Compact(gens)
	for _, g := range gens {
		if analyses {
			dropGen(s.analyses, g, enough, func(e storedAnalysis) { s.size -= analysisSize(e.data) })
		}
		if verdicts {
			dropGen(s.verdicts, g, enough, func(e storedVerdict) {
				s.size -= verdictSize(e.errs)
				s.vsize -= verdictSize(e.errs)
			})
		}
		if enough() {
			return
		}
	}
}

// dropGen deletes m's entries of generation g, each told to dropped,
// until enough reports true.
func dropGen[E interface{ generation() uint64 }](m map[[32]byte]E, g uint64, enough func() bool, dropped func(E)) {
	for k, e := range m {
		if enough() {
			return
		}
		if e.generation() == g {
			delete(m, k)
			dropped(e)
		}
	}
}

// storedAnalysis is an analysis in its encoded form (see
// store_analysis.go), decoded on use.
type storedAnalysis struct {
	gen  uint64
	data []byte
}

// storedVerdict is the parse errors of a rendered view (nil: it parses).
type storedVerdict struct {
	gen  uint64
	errs []span
}

func (e storedAnalysis) generation() uint64 { return e.gen }
func (e storedVerdict) generation() uint64  { return e.gen }

// span is a half-open byte range.
type span struct{ start, end int }

// StoreVersion is the version of the store's encoding and of what the
// analysis computes (analyze.go, langs.go, the pinned grammars): a store
// written by another version is rebuilt. Bump it with any change to what
// an analysis holds or how it is found; TestStoreVersion fails when the
// analyses of the test corpus change and this did not.
const StoreVersion = 7 // 7: the functions object literals hold are the analysis's hooks (outline lines); 6: 6: a function assigned to a computed member ("app[method] = function") is a definition named by the member's text; 5: a chain of member assignments of one function ("res.set = res.header = function header() {}") defines it under every member's name; 4: definitions inside function bodies (inner functions, closures assigned to names, nested classes) are symbols, their bodies collapsible inside a kept function; 2: keys derived from the source's SHA-256, not the source; 3: test framework calls (describe, it) are symbols and their bodies collapse one by one

// ErrStoreEncoding is returned by [DecodeStore] for bytes that are not a
// store.
var ErrStoreEncoding = errors.New("bad tree-sitter store encoding")

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{gen: 1, analyses: map[[32]byte]storedAnalysis{}, verdicts: map[[32]byte]storedVerdict{}}
}

// Dirty reports whether the store learned something since it was decoded
// or last encoded.
func (s *Store) Dirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirty
}

// StoreStats counts a store's entries and this process's lookups.
type StoreStats struct {
	Analyses, Verdicts int
	// Hits and Misses count analysis lookups.
	Hits, Misses int
}

// Stats returns the store's counts.
func (s *Store) Stats() StoreStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return StoreStats{Analyses: len(s.analyses), Verdicts: len(s.verdicts), Hits: s.hits, Misses: s.misses}
}

// analysisData returns the encoded analysis of key, marking it used.
func (s *Store) analysisData(key [32]byte) ([]byte, bool) { return s.lookup(key, true) }

// lookup returns the entry of key among the analyses, marking it used,
// counted in the hits and misses when count is set.
func (s *Store) lookup(key [32]byte, count bool) ([]byte, bool) {
	s.mu.Lock()
	e, ok := s.analyses[key]
	r := s.recs
	if ok {
		if count {
			s.hits++
		}
		if e.gen != s.gen {
			e.gen = s.gen
			s.analyses[key] = e
		}
		s.mu.Unlock()
		return e.data, true
	}
	s.mu.Unlock()
	var data []byte
	if r != nil {
		data, ok = r.Get(key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		if count {
			s.misses++
		}
		return nil, false
	}
	if count {
		s.hits++
	}
	s.remember(key, data)
	return data, true
}

// remember caches data, a record, in memory. s.mu must be held.
func (s *Store) remember(key [32]byte, data []byte) {
	if old, ok := s.analyses[key]; ok {
		s.size -= analysisSize(old.data)
	}
	s.analyses[key] = storedAnalysis{gen: s.gen, data: data}
	s.size += analysisSize(data)
	s.trim()
}

func (s *Store) putAnalysis(key [32]byte, data []byte) {
	s.mu.Lock()
	s.remember(key, data)
	r := s.recs
	if r == nil {
		s.dirty = true
	}
	s.mu.Unlock()
	if r != nil {
		_ = r.Put(key, data) // a cache: a failed write parses again
	}
}

// dropAnalysis forgets an entry that did not decode for its source.
func (s *Store) dropAnalysis(key [32]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.analyses[key]; ok {
		s.size -= analysisSize(old.data)
		delete(s.analyses, key)
	}
	s.dirty = true
}

func (s *Store) verdict(key [32]byte) ([]span, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.verdicts[key]
	if ok && e.gen != s.gen {
		e.gen = s.gen
		s.verdicts[key] = e
	}
	return e.errs, ok
}

func (s *Store) putVerdict(key [32]byte, errs []span) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.verdicts[key]; ok {
		s.size -= verdictSize(old.errs)
		s.vsize -= verdictSize(old.errs)
	}
	s.verdicts[key] = storedVerdict{gen: s.gen, errs: slices.Clone(errs)}
	s.size += verdictSize(errs)
	s.vsize += verdictSize(errs)
	s.dirty = true
	s.trim()
}

// verdictKey hashes a rendered view and its language.
func verdictKey(lang, text string) [32]byte {
	h := sha256.New()
	h.Write([]byte(lang))
	h.Write([]byte{0})
	h.Write(unsafe.Slice(unsafe.StringData(text), len(text))) // read only: no copy of the view
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Encoding (all integers uvarints):
//
//	gen
//	count, then per analysis: hash [32]byte, gen, len, bytes
//	count, then per verdict:  hash [32]byte, gen, count, (start, end)...
//
// Entries are written most recently used first until maxBytes is reached,
// so the store stays bounded however many files a workspace has: the
// least recently used are left out.

// AppendBinary appends the store's encoding to b, at most about maxBytes
// of entries (the most recently used; all when maxBytes <= 0), and marks
// the store clean.
func (s *Store) AppendBinary(b []byte, maxBytes int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	type ent struct {
		key  [32]byte
		gen  uint64
		size int
		an   bool
	}
	ents := make([]ent, 0, len(s.analyses)+len(s.verdicts))
	for k, e := range s.analyses {
		if s.recs != nil {
			break // the records hold them
		}
		ents = append(ents, ent{k, e.gen, 32 + 2*binary.MaxVarintLen32 + len(e.data), true})
	}
	for k, e := range s.verdicts {
		ents = append(ents, ent{k, e.gen, 32 + binary.MaxVarintLen32*(2+2*len(e.errs)), false})
	}
	// Most recent first; ties by key, so the encoding is deterministic.
	vsort.Func(ents, func(x, y ent) int {
		return cmp.Or(cmp.Compare(y.gen, x.gen), slices.Compare(x.key[:], y.key[:])) // most recent first
	})
	total := 0
	var an, vd []ent
	for _, e := range ents {
		if maxBytes > 0 && total+e.size > maxBytes {
			continue // a smaller one may still fit
		}
		total += e.size
		if e.an {
			an = append(an, e)
		} else {
			vd = append(vd, e)
		}
	}
	b = binary.AppendUvarint(b, s.gen)
	b = binary.AppendUvarint(b, uint64(len(an)))
	for _, e := range an {
		b = append(b, e.key[:]...)
		b = binary.AppendUvarint(b, e.gen)
		data := s.analyses[e.key].data
		b = binary.AppendUvarint(b, uint64(len(data)))
		b = append(b, data...)
	}
	b = binary.AppendUvarint(b, uint64(len(vd)))
	for _, e := range vd {
		b = append(b, e.key[:]...)
		b = binary.AppendUvarint(b, e.gen)
		errs := s.verdicts[e.key].errs
		b = binary.AppendUvarint(b, uint64(len(errs)))
		for _, sp := range errs {
			b = binary.AppendUvarint(b, uint64(sp.start))
			b = binary.AppendUvarint(b, uint64(sp.end))
		}
	}
	s.dirty = false
	return b
}

// DecodeStore decodes what [Store.AppendBinary] wrote. The analyses are
// kept encoded (b must not change afterwards) and decoded when used. A
// malformed encoding returns an error wrapping [ErrStoreEncoding].
func DecodeStore(b []byte) (*Store, error) {
	r := uvarint.NewReader(b)
	s := NewStore()
	last := r.Uvarint()
	na := r.Count(32 + 3)
	s.analyses = make(map[[32]byte]storedAnalysis, na) // sized once, not grown
	for range na {
		var k [32]byte
		copy(k[:], r.Bytes(32))
		gen := r.Uvarint()
		data := r.Bytes(r.Count(1))
		if r.Err() != nil {
			break
		}
		if old, ok := s.analyses[k]; ok {
			s.size -= analysisSize(old.data)
		}
		s.analyses[k] = storedAnalysis{gen: gen, data: data}
		s.size += analysisSize(data)
	}
	nv := r.Count(32 + 2)
	s.verdicts = make(map[[32]byte]storedVerdict, nv)
	for range nv {
		var k [32]byte
		copy(k[:], r.Bytes(32))
		gen := r.Uvarint()
		n := r.Count(2)
		var errs []span
		for range n {
			st, en := r.Offset(), r.Offset()
			if en < st {
				r.Fail("span ends before it starts")
			}
			errs = append(errs, span{st, en})
		}
		if r.Err() != nil {
			break
		}
		if old, ok := s.verdicts[k]; ok {
			s.size -= verdictSize(old.errs)
			s.vsize -= verdictSize(old.errs)
		}
		s.verdicts[k] = storedVerdict{gen: gen, errs: errs}
		s.size += verdictSize(errs)
		s.vsize += verdictSize(errs)
	}
	if r.Err() == nil && r.Len() != 0 {
		r.Fail(fmt.Sprintf("%d trailing bytes", r.Len()))
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("decode tree-sitter store: %w: %v", ErrStoreEncoding, r.Err())
	}
	if last >= 1<<62 {
		return nil, fmt.Errorf("decode tree-sitter store: %w: generation %d", ErrStoreEncoding, last)
	}
	s.gen = last + 1
	return s, nil
}
