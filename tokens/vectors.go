package tokens

import (
	"crypto/sha256"
	"encoding/binary"
	"unsafe"

	"github.com/ctxd/ctxd/internal/uvarint"
)

// Block vectors: the per-block counts of a base text (a file's content),
// persisted so a process that never counted the file can count its views
// by blocks without running BPE over the lines they share with it.
//
// A restarted daemon counts files and their standard views from the
// [CountStore] (one number per text), so the blocks of a file are not in
// its block cache: a view of the file it has never counted (one keeping
// the functions a request is about whole) ran BPE over every block.
// [CountBase] records, when it counts a base text, the count of each of
// its blocks (a uvarint each, about one byte per 40-60 bytes of source)
// in a [VectorStore]; [Prime] puts a recorded vector's counts in the
// block cache before the views of the base are counted. Counting is
// unchanged: a view is still the sum of its blocks' counts, each either
// BPE's or the same block's count recorded from BPE.

// VectorsKey names what a block vector is computed with, for a store
// that keeps vectors across versions (a sealed or record file's key): the
// block rule (blockBoundary, blockMinLen) and the encoding of a vector.
// A change to either changes it.
const VectorsKey = "token-block-vectors/1/min24"

// VectorStore keeps block vectors by a 32-byte key (index.Records is
// one). Implementations are safe for concurrent use.
type VectorStore interface {
	Get(k [32]byte) ([]byte, bool)
	Has(k [32]byte) bool
	Put(k [32]byte, data []byte) error
}

// SetVectors makes the counters of s ([Stored]) record and read block
// vectors in v (nil: none).
func (s *CountStore) SetVectors(v VectorStore) {
	s.mu.Lock()
	s.vectors = v
	s.mu.Unlock()
}

func (s *CountStore) vectorStore() VectorStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vectors
}

// baseKeys returns the vector key of text, the SHA-256 of the encoding, a
// zero byte and the text (in its own record file), and its count key, the
// same hash's first 16 bytes (storeKey): one hash for both. It hashes
// the text in place: a []byte conversion would copy every long text
// counted (a view of a file never seen, say) only to hash it.
func baseKeys(encoding, text string) ([32]byte, countKey) {
	h := sha256.New()
	h.Write([]byte(encoding))
	h.Write([]byte{0})
	h.Write(unsafe.Slice(unsafe.StringData(text), len(text))) // read only
	var k [32]byte
	h.Sum(k[:0])
	return k, countKey(k[:16])
}

// blocked returns c's stored counter and exact counter when c counts
// long texts by blocks and has a vector store.
func blocked(c Counter) (*storedCounter, *exactCounter, VectorStore, bool) {
	s, ok := c.(*storedCounter)
	if !ok {
		return nil, nil, nil, false
	}
	e, ok := s.Counter.(*exactCounter)
	if !ok || e.blocks == nil {
		return nil, nil, nil, false
	}
	v := s.store.vectorStore()
	return s, e, v, v != nil
}

// CountBase returns c.Count(text), and records text's block vector when
// c is a [Stored] counter with a vector store ([CountStore.SetVectors])
// and none is recorded: the text is then counted by blocks (BPE for the
// blocks not in the cache) even when its count is known.
func CountBase(c Counter, text string) int {
	s, e, v, ok := blocked(c)
	if !ok || len(text) < minBlockText {
		return c.Count(text)
	}
	vk, ck := baseKeys(e.name, text)
	if v.Has(vk) {
		return c.Count(text)
	}
	valid := validUTF8(text)
	var vec []byte
	n := 0
	splitBlocks(valid, blockMinLen, func(block string) {
		m := e.blocks.countBlock(block, e.backend.count)
		vec = binary.AppendUvarint(vec, uint64(m))
		n += m
	})
	v.Put(vk, vec) // best effort: a vector not saved is counted again
	s.store.put(ck, n)
	if mk, memoized := e.memoKey(text); memoized {
		e.rememberKey(mk, n)
	}
	return n
}

// Prime puts text's recorded block counts in c's block cache, when c is
// a [Stored] counter with a vector store that holds text's vector and
// the vector agrees with the text: as many counts as blocks, summing to
// the text's count as stored. It changes no count, only what BPE runs:
// the blocks of views of text it shares are then found in the cache.
func Prime(c Counter, text string) {
	s, e, v, ok := blocked(c)
	if !ok || len(text) < minBlockText {
		return
	}
	vk, ck := baseKeys(e.name, text)
	total, known := s.store.get(ck)
	if !known {
		return
	}
	data, ok := v.Get(vk)
	if !ok {
		return
	}
	counts, ok := decodeVector(data, total)
	if !ok {
		return
	}
	keys := make([]blockSlot, 0, len(counts))
	fits := true
	splitBlocks(validUTF8(text), blockMinLen, func(block string) {
		if len(keys) == len(counts) || uint64(len(block)) > 1<<32-1 {
			fits = false
			return
		}
		keys = append(keys, e.blocks.key(block))
	})
	if !fits || len(keys) != len(counts) {
		return
	}
	for i, k := range keys {
		e.blocks.put(k, int(counts[i]))
	}
}

// CountThen returns c.Count(text), calling miss first when c is a
// [Stored] counter that is about to run its tokenizer on text (neither
// its memo nor its store has the count): the moment to [Prime] the base
// text shares blocks with, and only then.
func CountThen(c Counter, text string, miss func()) int {
	if s, ok := c.(*storedCounter); ok {
		return s.count(text, miss)
	}
	return c.Count(text)
}

// decodeVector decodes a block vector: uvarints, each at least 1 (a block
// is never empty), summing to total. ok is false for anything else.
func decodeVector(b []byte, total int) ([]uint32, bool) {
	counts := make([]uint32, 0, len(b))
	sum := 0
	for r := uvarint.NewReader(b); r.Len() > 0; {
		x := r.Uvarint()
		if r.Err() != nil || x == 0 || x > uint64(total) {
			return nil, false
		}
		sum += int(x)
		if sum > total {
			return nil, false
		}
		counts = append(counts, uint32(x))
	}
	return counts, sum == total && len(counts) > 0
}

// countBlock returns block's count from the cache, or counted by count
// and recorded there.
func (c *blockCache) countBlock(block string, count func(string) int) int {
	if uint64(len(block)) > 1<<32-1 {
		return count(block) // a length the key cannot hold
	}
	k := c.key(block)
	if n, ok := c.get(k); ok {
		return n
	}
	n := count(block)
	c.put(k, n)
	return n
}
