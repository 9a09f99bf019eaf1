package request

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/maphash"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/internal/memo"
)

// maxCached bounds each map of a [Cache]; a full map starts over.
const maxCached = 16384

// minCachedText is the shortest text whose analysis a [Cache] keeps:
// a shorter one is analyzed again on every call. Its entry (key, Info,
// hex hash, map slot: about 400 bytes) would outweigh the text many
// times, and a request of 30,000 tiny messages would hold 16,384 of
// them (issue 28); analyzing so short a text costs about what the
// lookup does.
const minCachedText = 256

// TextKey names a text by a 128-bit hash and its length.
type TextKey struct {
	h1, h2 uint64
	n      int
}

// Cache is the one content-hash cache of both compactors (compact/prune
// and compact/smart): what they learn of a text (its SHA-256 and signal
// analysis, what it condenses to) by a 128-bit hash of its content, and
// one token estimator per encoding and image rule. An agent re-sends its
// whole history every turn, so after the first turn an old message
// costs a hash lookup. Entries do not depend on a caller's options (the
// settings that matter are part of the keys), so every compactor of a
// daemon shares one. It is safe for concurrent use and bounded in size.
type Cache struct {
	seed1, seed2 maphash.Seed

	// estMu guards est.
	estMu sync.Mutex
	est   map[string]*Estimator // by encoding and image rule

	infos   *memo.Map[TextKey, *signal.Info]
	derived *memo.Map[any, any]
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), est: map[string]*Estimator{}, infos: memo.New[TextKey, *signal.Info](maxCached), derived: memo.New[any, any](maxCached)}
}

// Key returns the cache key of a text.
func (c *Cache) Key(text string) TextKey {
	return TextKey{h1: maphash.String(c.seed1, text), h2: maphash.String(c.seed2, text), n: len(text)}
}

// KeyBytes is [Cache.Key] of b's content (an item's raw bytes) without
// copying it into a string.
func (c *Cache) KeyBytes(b []byte) TextKey {
	return TextKey{h1: maphash.Bytes(c.seed1, b), h2: maphash.Bytes(c.seed2, b), n: len(b)}
}

// Encoder is a [Counter] that names its encoding ([tokens.Counter]).
type Encoder interface {
	Counter
	Encoding() string
}

// Estimator returns the shared estimator for an encoding and image rule.
func (c *Cache) Estimator(counter Encoder, rule ImageRule) *Estimator {
	key := counter.Encoding() + "|" + string(rule)
	c.estMu.Lock()
	defer c.estMu.Unlock()
	e := c.est[key]
	if e == nil {
		e = NewEstimator(counter, rule)
		c.est[key] = e
	}
	return e
}

// Info returns the signal analysis of text with its SHA-256 (k is
// c.Key(text)). The result is shared and must not be modified.
func (c *Cache) Info(k TextKey, text string) *signal.Info {
	if len(text) < minCachedText {
		return analyze(text)
	}
	return c.infos.Get(k, func() *signal.Info { return detachInfo(analyze(text)) })
}

// detachInfo gives in's strings (substrings of the text, which may be a view
// of a request's body: decodeString) their own memory, for an analysis
// the cache keeps beyond the request.
func detachInfo(in *signal.Info) *signal.Info {
	for _, l := range [][]string{in.Signals, in.Tests, in.Paths} {
		Detach(l)
	}
	return in
}

// Detach gives each string of l its own memory (strings.Clone): a text of
// a request may be a view of its body (Parse does not copy texts without
// escapes), and a string kept beyond the request (in a [Cache] or a
// session's state) would keep the whole body alive.
func Detach(l []string) {
	for i, s := range l {
		l[i] = strings.Clone(s)
	}
}

// Analysis is [Cache.Info] without the hash for a text too short to be
// kept (its Hash is then ""), for a reader of the signals alone: the
// ledger reads every evicted message's, and a request of many tiny
// messages paid a hex SHA-256 for each (issue 28).
func (c *Cache) Analysis(k TextKey, text string) *signal.Info {
	if len(text) < minCachedText {
		return signal.Analyze(text)
	}
	return c.Info(k, text)
}

// Signals is [Cache.Analysis]'s Signals, without an analysis allocated
// for a text too short to be kept (a request of many tiny messages paid
// one for each evicted message: issue 28).
func (c *Cache) Signals(k TextKey, text string) []string {
	if len(text) < minCachedText {
		var in signal.Info
		signal.AnalyzeInto(&in, text)
		return in.Signals
	}
	return c.Info(k, text).Signals
}

// analyze is text's signal analysis with its SHA-256.
func analyze(text string) *signal.Info {
	in := signal.Analyze(text)
	sum := sha256.Sum256(byteview.ReadOnly(text))
	in.Hash = hex.EncodeToString(sum[:])
	return in
}

// Memo returns what build derives from a text under key k (a comparable
// value naming the text's [TextKey] and every setting the result
// depends on; each caller uses a key type of its own), building it once.
// The value outlives the request: a string in it that may be part of a
// request's text must be cloned ([Detach]), or it keeps the body alive.
func Memo[V any](c *Cache, k any, build func() V) V {
	return c.derived.Get(k, func() any { return build() }).(V)
}
