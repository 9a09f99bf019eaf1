package tokens

import (
	"hash/maphash"
	"strings"
	"sync"
)

// Counting a long text by blocks.
//
// A BPE count is the sum of the counts of the pre-tokenizer's pieces, so
// a text cut where its split pattern starts a new piece, and where each
// side alone splits as it does inside the whole, counts as the sum of its
// two sides. The views ctxd builds for one request (a file with some
// functions collapsed, with some kept whole) share nearly all their
// lines with texts counted before: the file, its other views, other
// requests' views. Cut at such places into blocks of a few lines, a text
// is counted as the sum of its blocks' counts, each taken from a bounded
// cache keyed by a 128-bit hash of the block, or counted and kept there.
//
// blockBoundary says where a cut is safe; TestBlockBoundary and
// FuzzBlockCountAdditive check it against the splitters, and
// TestBlockCountGoroot against counts of whole files of the Go tree.

// minBlockText is the shortest text counted by blocks: below it, cutting
// and hashing cost about what they save.
const minBlockText = 1024

// blockMinLen is the shortest block (but a text's last): a block costs
// a hash and a lookup, about what counting a short line costs. On the
// 10k-file tree's never-seen requests, 24 found 59% of the bytes counted
// in the cache, 0 61%, 64 52% (h14count notes). Persisted block vectors
// depend on it and on blockBoundary: change VectorsKey with either.
const blockMinLen = 24

// blockCacheSlots is the size of each shared counter's block cache: 16
// bytes a slot, 2 MB. Most hits are of blocks counted shortly before (a
// file's other views): a quarter of 1<<18 found 55% of the bytes instead
// of 59%.
const blockCacheSlots = 1 << 17

// blockBoundary reports whether both encodings' split patterns (o200k_base
// and cl100k_base, pretokenize.go) start a piece at byte p of t (0 < p <
// len(t)) and split t[:p] and t[p:] alone as they split them inside t.
// It holds after a newline when:
//
//   - t[p] is not '\r' or '\n', and the run of whitespace starting at p
//     holds no '\r' or '\n' (it may end the text): the newline at p-1 then
//     ends a whitespace piece (\s*[\r\n]+ takes a whitespace run up to its
//     last newline) or the tail of a punctuation piece
//     ( ?[^\s\p{L}\p{N}]+[\r\n/]*), and either ends at p, in t as in t[:p];
//   - t[p] is not '/', which that tail would take (o200k_base's tail
//     takes slashes), unless t[p-2] is an ASCII letter, digit, space or
//     tab, which no tail follows: the newline is then a whitespace piece's.
//
// No alternative of either pattern looks behind its start, nor does one
// that starts before the newline look past the piece holding it (a
// newline is no letter, digit, contraction or punctuation), so the pieces
// before p and from p are those of t[:p] and t[p:].
func blockBoundary(t string, p int) bool {
	if p <= 0 || p >= len(t) || t[p-1] != '\n' {
		return false
	}
	switch t[p] {
	case '\r', '\n':
		return false
	case '/':
		if p < 2 || !asciiNoTail[t[p-2]] {
			return false
		}
	}
	s := scanner{t}
	for j := p; ; {
		c, n := s.at(j)
		if n == 0 || c&clsS == 0 {
			return true
		}
		if c&clsNL != 0 {
			return false
		}
		j += n
	}
}

// asciiNoTail holds the bytes after which a newline cannot be in a
// punctuation piece's tail: ASCII letters, digits, space and tab.
var asciiNoTail = func() (t [256]bool) {
	for c := 0; c < 128; c++ {
		t[c] = c == ' ' || c == '\t' || asciiClass[c]&(clsL|clsN) != 0
	}
	return t
}()

// splitBlocks calls f with consecutive blocks of text that together are
// text: each cut is at a blockBoundary, and each block but the last is
// at least minLen bytes long. A cut is placed at the first boundary at
// least minLen bytes after the previous one, so two texts that share a
// run of lines get the same blocks in it from the first long line on.
func splitBlocks(text string, minLen int, f func(block string)) {
	start := 0
	for i := start + minLen; i < len(text); {
		// The next newline at or after i-1: a boundary is just after one.
		from := max(i-1, start)
		nl := strings.IndexByte(text[from:], '\n')
		if nl < 0 {
			break
		}
		p := from + nl + 1
		if p-start >= minLen && blockBoundary(text, p) {
			f(text[start:p])
			start = p
			i = start + minLen
			continue
		}
		i = p + 1
	}
	if start < len(text) {
		f(text[start:])
	}
}

// blockCache is a bounded cache of block counts: a fixed table of slots
// in pairs (two-way set associative, the most recent first), keyed by
// a 64-bit maphash value and the length, as countCache's: a lookup in a
// full cache (blockCacheSlots, 2^17 blocks) finds another block's count
// with odds under 2^-47. It holds no pointers, so the garbage collector does not
// scan it. Safe for concurrent use: each pair is guarded by one of
// blockLocks mutexes.
type blockCache struct {
	seed  maphash.Seed
	mask  uint64 // len(slots)/2 - 1: the pair index bits
	slots []blockSlot
	locks [blockLocks]paddedMutex
}

// blockLocks is the number of lock stripes of a blockCache.
const blockLocks = 64

type paddedMutex struct {
	sync.Mutex
	_ [56]byte // one per cache line
}

// blockSlot is one cached count; n == 0 marks an empty slot (blocks are
// never empty).
type blockSlot struct {
	h        uint64
	n, count uint32
}

// newBlockCache returns a cache of at least slots entries (rounded up to
// a power of two, at least two). Each costs 16 bytes.
func newBlockCache(slots int) *blockCache {
	n := 2
	for n < slots {
		n *= 2
	}
	return &blockCache{
		seed:  maphash.MakeSeed(),
		mask:  uint64(n/2 - 1),
		slots: make([]blockSlot, n),
	}
}

func (c *blockCache) key(block string) blockSlot {
	return blockSlot{h: maphash.String(c.seed, block), n: uint32(len(block))}
}

func (c *blockCache) get(k blockSlot) (int, bool) {
	pair := k.h & c.mask
	mu := &c.locks[pair%blockLocks]
	s := c.slots[2*pair : 2*pair+2 : 2*pair+2]
	mu.Lock()
	defer mu.Unlock()
	for i := range s {
		if e := s[i]; e.n == k.n && e.h == k.h {
			if i == 1 {
				s[0], s[1] = s[1], s[0]
			}
			return int(e.count), true
		}
	}
	return 0, false
}

// put records a count, evicting the pair's least recent one.
func (c *blockCache) put(k blockSlot, count int) {
	if count < 0 || uint64(count) > 1<<32-1 {
		return
	}
	k.count = uint32(count)
	pair := k.h & c.mask
	mu := &c.locks[pair%blockLocks]
	s := c.slots[2*pair : 2*pair+2 : 2*pair+2]
	mu.Lock()
	defer mu.Unlock()
	if e := s[0]; e.n == k.n && e.h == k.h {
		s[0] = k
		return
	}
	s[1], s[0] = s[0], k
}

// countBlocks counts valid UTF-8 text as the sum of its blocks' counts,
// each from cache or counted by count and recorded there.
func (c *blockCache) countBlocks(text string, minLen int, count func(string) int) int {
	total := 0
	splitBlocks(text, minLen, func(block string) { total += c.countBlock(block, count) })
	return total
}
