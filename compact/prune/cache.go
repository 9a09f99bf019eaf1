package prune

import (
	"hash/maphash"
	"sync"

	"github.com/ctxd/ctxd/compact/request"
)

// maxCachedTexts bounds the pruner's text caches; when full they start
// over.
const maxCachedTexts = 16384

// textCache remembers what a run learns about a tool output, by a 128-bit
// hash of its text: whether it reads as an error, and how it condenses. An
// agent re-sends its whole history every turn; with the cache, old outputs
// are not rescanned, re-hashed with SHA-256 or re-counted. It is safe for
// concurrent use.
type textCache struct {
	seed1, seed2 maphash.Seed

	// mu guards errs and cond.
	mu   sync.Mutex
	errs map[textKey]bool
	cond map[condKey]condResult
}

type textKey struct {
	h1, h2 uint64
	n      int
}

// condKey is a text condensed under given settings and counted with an
// encoding.
type condKey struct {
	text     textKey
	maxChars int
	isError  bool
	images   int
	encoding string
}

type condResult struct {
	out    string
	hidden int
	ok     bool
	hash   string // SHA-256 of the original text
	tokens int    // of the condensed segment
}

func newTextCache() *textCache {
	return &textCache{seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), errs: map[textKey]bool{}, cond: map[condKey]condResult{}}
}

func (c *textCache) key(text string) textKey {
	return textKey{h1: maphash.String(c.seed1, text), h2: maphash.String(c.seed2, text), n: len(text)}
}

func (c *textCache) isError(k textKey, text string) bool {
	c.mu.Lock()
	v, ok := c.errs[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = looksLikeError(text)
	c.mu.Lock()
	if len(c.errs) >= maxCachedTexts {
		clear(c.errs)
	}
	c.errs[k] = v
	c.mu.Unlock()
	return v
}

// condense returns seg condensed to maxChars characters, from the cache or
// computed (with its hash and its tokens counted by est).
func (c *textCache) condense(k condKey, seg *request.Segment, est *request.Estimator) condResult {
	c.mu.Lock()
	res, ok := c.cond[k]
	c.mu.Unlock()
	if ok {
		return res
	}
	res.hash = seg.Hash()
	res.out, res.hidden, res.ok = Condense(seg.Text, k.maxChars, k.isError, res.hash, k.images)
	if res.ok {
		res.tokens = est.Segment(&request.Segment{Kind: seg.Kind, Name: seg.Name, Text: res.out})
	}
	c.mu.Lock()
	if len(c.cond) >= maxCachedTexts {
		clear(c.cond)
	}
	c.cond[k] = res
	c.mu.Unlock()
	return res
}
