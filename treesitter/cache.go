package treesitter

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// lru is a cache bounded by the total size of its values (as the caller
// measures them), evicting the least recently used. It is safe for
// concurrent use.
type lru[V any] struct {
	max int

	mu    sync.Mutex // guards the fields below
	size  int
	order *list.List // front = most recent; elements hold *lruEntry[V]
	items map[[32]byte]*list.Element
}

type lruEntry[V any] struct {
	key  [32]byte
	val  V
	size int
}

func newLRU[V any](maxBytes int) *lru[V] {
	return &lru[V]{max: maxBytes, order: list.New(), items: map[[32]byte]*list.Element{}}
}

func (c *lru[V]) get(k [32]byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[V]).val, true
	}
	var zero V
	return zero, false
}

func (c *lru[V]) put(k [32]byte, v V, size int) {
	if size > c.max/4 {
		return // one huge entry would flush everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		old := e.Value.(*lruEntry[V])
		c.size += size - old.size
		old.val, old.size = v, size
		c.order.MoveToFront(e)
	} else {
		c.items[k] = c.order.PushFront(&lruEntry[V]{key: k, val: v, size: size})
		c.size += size
	}
	for c.size > c.max && c.order.Len() > 0 {
		e := c.order.Back()
		ent := e.Value.(*lruEntry[V])
		c.order.Remove(e)
		delete(c.items, ent.key)
		c.size -= ent.size
	}
}

// sourceSum is a source's SHA-256 and length: computed once per call and
// shared by the cache keys derived from it (a chunk's views, its analysis
// and the store's touch each hashed the whole source again).
type sourceSum struct {
	sum [32]byte
	n   int
}

func sumOf(src []byte) sourceSum { return sourceSum{sha256.Sum256(src), len(src)} }

// sumWith is sumOf, taken from o.Sum when the caller has it.
func sumWith(src []byte, o Options) sourceSum {
	if o.Sum != nil {
		return sourceSum{*o.Sum, len(src)}
	}
	return sumOf(src)
}

// keyOf hashes everything a result depends on: what is computed, the
// language, the options that change output, and the source (its sum).
func keyOf(what, lang string, src sourceSum, o Options) [32]byte {
	h := sha256.New()
	var n [8]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	num := func(v int) {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	str(what)
	str(lang)
	num(o.threshold())
	num(len(o.KeepFuncs))
	for _, f := range o.KeepFuncs {
		str(f)
	}
	num(len(o.KeepLines))
	for _, l := range o.KeepLines {
		num(l)
	}
	if len(o.RefLines) > 0 { // keys without them stay as they were
		str("ref")
		num(len(o.RefLines))
		for _, l := range o.RefLines {
			num(l)
		}
	}
	if len(o.MatchLines) > 0 {
		str("match")
		num(len(o.MatchLines))
		for _, l := range o.MatchLines {
			num(l)
		}
	}
	if len(o.DeclLines) > 0 {
		str("decl")
		num(len(o.DeclLines))
		for _, l := range o.DeclLines {
			num(l)
		}
	}
	if o.OutlineKept {
		str("outlined")
	}
	num(src.n)
	h.Write(src.sum[:])
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// noCachesKey marks a context whose parses leave the process's caches
// alone (WithoutCaches).
type noCachesKey struct{}

// WithoutCaches returns ctx under which analyses and views are not put
// into the process's caches (those found there are still used), nor
// symbol-index entries into the index's memory (symbols.Index.File): a
// pass over a whole tree, the daemon's background analysis, would
// otherwise fill them with files no request asked for (~35 and ~20 MB
// live at 100k files) and evict what requests use.
func WithoutCaches(ctx context.Context) context.Context {
	return context.WithValue(ctx, noCachesKey{}, true)
}

// CachesOff reports a context made by WithoutCaches.
func CachesOff(ctx context.Context) bool {
	return ctx.Value(noCachesKey{}) != nil
}
