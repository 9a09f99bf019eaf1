package smart

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/maphash"
	"sync"
)

// maxCached bounds each of the optimizer's caches; a full cache starts
// over.
const maxCached = 16384

// textKey names a text by a 128-bit hash and its length.
type textKey struct {
	h1, h2 uint64
	n      int
}

// viewKey names a view of a text: the transform, its shape and the
// encoding its tokens were counted with.
type viewKey struct {
	text      textKey
	transform string
	v         view
	encoding  string
}

type viewResult struct {
	text   string
	ok     bool
	tokens int
}

// textCache remembers, by content, what the optimizer learned of a text:
// its analysis and SHA-256, and the views built of it with their token
// counts. An agent re-sends its history every turn, so after the first
// turn an old output costs a hash lookup. It is safe for concurrent use.
type textCache struct {
	seed1, seed2 maphash.Seed

	// mu guards infos and views.
	mu    sync.Mutex
	infos map[textKey]*info
	views map[viewKey]viewResult
}

func newTextCache() *textCache {
	return &textCache{seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), infos: map[textKey]*info{}, views: map[viewKey]viewResult{}}
}

func (c *textCache) key(text string) textKey {
	return textKey{h1: maphash.String(c.seed1, text), h2: maphash.String(c.seed2, text), n: len(text)}
}

// info returns the analysis of text (key is c.key(text)). The result is
// shared and must not be modified.
func (c *textCache) info(k textKey, text string) *info {
	c.mu.Lock()
	in, ok := c.infos[k]
	c.mu.Unlock()
	if ok {
		return in
	}
	in = analyze(text)
	sum := sha256.Sum256([]byte(text))
	in.hash = hex.EncodeToString(sum[:])
	c.mu.Lock()
	if len(c.infos) >= maxCached {
		clear(c.infos)
	}
	c.infos[k] = in
	c.mu.Unlock()
	return in
}

// view returns a cached view, or builds it with build and counts it.
func (c *textCache) view(k viewKey, build func() (string, bool), count func(string) int) viewResult {
	c.mu.Lock()
	res, ok := c.views[k]
	c.mu.Unlock()
	if ok {
		return res
	}
	res.text, res.ok = build()
	if res.ok {
		res.tokens = count(res.text)
	}
	c.mu.Lock()
	if len(c.views) >= maxCached {
		clear(c.views)
	}
	c.views[k] = res
	c.mu.Unlock()
	return res
}
