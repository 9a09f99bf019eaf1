package tokens

import (
	"hash/maphash"
	"sync"
)

// minCachedLen is the shortest text whose count is cached. Below it,
// hashing and locking cost about as much as counting.
const minCachedLen = 256

// defaultCacheEntries bounds each shared counter's cache. An entry is about
// 100 bytes, so a full cache holds a few MB.
const defaultCacheEntries = 32768

// cacheKey identifies a text by its 64-bit maphash (one pass over the
// text, under a seed of this process's) and its length. A collision needs
// two texts of equal length whose hashes match: about 2^-64 a pair, so a
// lookup in a full cache (defaultCacheEntries, 2^15 texts) finds another
// text's count with odds under 2^-49. The key was two hashes with
// independent seeds, 128 bits: twice the hashing of every counted text,
// the cache's whole cost on a hit (BENCHMARKS.md "hleft").
type cacheKey struct {
	h uint64
	n int
}

// countCache is a bounded LRU of token counts keyed by content hash. It is
// safe for concurrent use.
type countCache struct {
	seed maphash.Seed
	max  int

	// mu guards entries and the recency list (head is the most recent).
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	head    *cacheEntry
	tail    *cacheEntry
}

type cacheEntry struct {
	key        cacheKey
	count      int
	prev, next *cacheEntry
}

func newCountCache(maxEntries int) *countCache {
	return &countCache{
		seed:    maphash.MakeSeed(),
		max:     maxEntries,
		entries: make(map[cacheKey]*cacheEntry),
	}
}

func (c *countCache) key(text string) cacheKey {
	return cacheKey{h: maphash.String(c.seed, text), n: len(text)}
}

func (c *countCache) get(k cacheKey) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return 0, false
	}
	c.moveToFront(e)
	return e.count, true
}

func (c *countCache) put(k cacheKey, count int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		e.count = count
		c.moveToFront(e)
		return
	}
	e := &cacheEntry{key: k, count: count}
	c.entries[k] = e
	c.pushFront(e)
	for len(c.entries) > c.max && c.tail != nil {
		old := c.tail
		c.unlink(old)
		delete(c.entries, old.key)
	}
}

func (c *countCache) pushFront(e *cacheEntry) {
	e.prev, e.next = nil, c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *countCache) unlink(e *cacheEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

func (c *countCache) moveToFront(e *cacheEntry) {
	if c.head == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}
