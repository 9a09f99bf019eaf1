package tokens

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// Counter counts tokens of text in one encoding. Implementations are safe
// for concurrent use.
type Counter interface {
	// Count returns the number of tokens of text. Invalid UTF-8 is counted
	// as if each maximal invalid sequence were U+FFFD.
	Count(text string) int
	// Encoding names what Count measures: "cl100k_base", "o200k_base", or
	// "estimate/<family>" for estimators.
	Encoding() string
	// Exact reports whether counts are the model's real BPE.
	Exact() bool
}

// The exact encodings [Get] knows.
const (
	Cl100kBase = "cl100k_base"
	O200kBase  = "o200k_base"
)

// Encodings lists the exact encodings [Get] accepts, in a stable order.
var Encodings = []string{Cl100kBase, O200kBase}

// backend is one tokenizer library's implementation of an encoding. It
// receives valid UTF-8 only.
type backend interface {
	count(text string) int
}

// Names of the backends, as accepted by the CTXD_TOKENIZER environment
// variable.
const (
	backendBPE         = "ctxd"        // ours: bpe.go
	backendTokenizer   = "tokenizer"   // github.com/tiktoken-go/tokenizer
	backendTiktokenGo  = "tiktoken-go" // github.com/pkoukk/tiktoken-go
	defaultBackendName = backendBPE
)

// envBackend selects the backend for the process (see docs/tokens.md).
const envBackend = "CTXD_TOKENIZER"

// backendMakers builds a backend by name. The shipped binary has ctxd's only;
// the two comparison libraries register theirs from
// backend_compare_test.go, so tests and benchmarks keep them and the
// binary does not carry their code and vocabularies.
var backendMakers = map[string]func(encoding string) (backend, error){
	backendBPE: func(enc string) (backend, error) { return newBPEBackend(enc) },
}

// newBackend builds a backend. It is slow (it decodes a vocabulary of
// 100k-200k entries), so callers build each one once.
func newBackend(kind, encoding string) (backend, error) {
	if mk := backendMakers[kind]; mk != nil {
		return mk(encoding)
	}
	return nil, fmt.Errorf("unknown tokenizer backend %q (this build has %q; %q and %q exist in tests only)", kind, backendBPE, backendTokenizer, backendTiktokenGo)
}

// exactCounter counts with a real BPE and caches counts of long texts,
// and of the blocks (blocks.go) of longer ones.
type exactCounter struct {
	name    string
	backend backend
	cache   *countCache // nil: no caching
	blocks  *blockCache // nil: long texts are counted whole
}

var _ Counter = (*exactCounter)(nil)

func (c *exactCounter) Count(text string) int {
	if text == "" {
		return 0
	}
	if c.cache == nil || len(text) < minCachedLen {
		return c.count(text)
	}
	k := c.cache.key(text)
	if n, ok := c.cache.get(k); ok {
		return n
	}
	n := c.count(text)
	c.cache.put(k, n)
	return n
}

// count counts text, by blocks when it is long.
func (c *exactCounter) count(text string) int {
	text = validUTF8(text)
	if c.blocks == nil || len(text) < minBlockText {
		return c.backend.count(text)
	}
	return c.blocks.countBlocks(text, blockMinLen, c.backend.count)
}

// memoKey returns text's key in the in-process cache, false when the
// cache does not keep counts of text (memo, for a [CountStore]).
func (c *exactCounter) memoKey(text string) (cacheKey, bool) {
	if c.cache == nil || len(text) < minCachedLen {
		return cacheKey{}, false
	}
	return c.cache.key(text), true
}

// cachedKey returns the count the in-process cache holds under k.
func (c *exactCounter) cachedKey(k cacheKey) (int, bool) { return c.cache.get(k) }

// rememberKey puts a count under k in the in-process cache.
func (c *exactCounter) rememberKey(k cacheKey, n int) { c.cache.put(k, n) }

// countUncached counts text without the in-process cache.
func (c *exactCounter) countUncached(text string) int {
	if text == "" {
		return 0
	}
	return c.count(text)
}

func (c *exactCounter) Encoding() string { return c.name }
func (c *exactCounter) Exact() bool      { return true }

// validUTF8 replaces each maximal invalid UTF-8 sequence of s with U+FFFD,
// as Python's bytes.decode(errors="replace") does, so both backends see
// the same text.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			n = maximalSubpart(s)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// maximalSubpart returns the length of the maximal prefix of s (which
// starts with an invalid sequence) that is a truncated valid sequence, at
// least 1 (Unicode's "maximal subpart" rule).
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		c := s[i]
		if i == 1 && (c < lo || c > hi) || i > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
	}
	return i
}

// shared holds the process-wide counters, built on first use.
var shared = struct {
	mu       sync.Mutex
	counters map[string]*sharedCounter
}{counters: map[string]*sharedCounter{}}

type sharedCounter struct {
	once sync.Once
	c    *exactCounter
	err  error
}

// Get returns the shared counter for an encoding name ("cl100k_base",
// "o200k_base"). Counters are built once per process and reused; the first
// call for an encoding takes tens of milliseconds to decode its vocabulary.
// The implementation is [Backend]'s, read at that first call.
func Get(encoding string) (Counter, error) {
	c, err := getExact(encoding)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func getExact(encoding string) (*exactCounter, error) {
	if !knownEncoding(encoding) {
		return nil, fmt.Errorf("get tokenizer: unknown encoding %q (want one of %s)", encoding, strings.Join(Encodings, ", "))
	}
	shared.mu.Lock()
	sc := shared.counters[encoding]
	if sc == nil {
		sc = &sharedCounter{}
		shared.counters[encoding] = sc
	}
	shared.mu.Unlock()
	sc.once.Do(func() {
		b, err := newBackend(Backend(), encoding)
		if err != nil {
			sc.err = fmt.Errorf("get tokenizer %s: %w", encoding, err)
			return
		}
		sc.c = &exactCounter{name: encoding, backend: b, cache: newCountCache(defaultCacheEntries), blocks: newBlockCache(blockCacheSlots)}
	})
	return sc.c, sc.err
}

// Backend names the tokenizer implementation this process counts with:
// "ctxd" (the default, see docs/tokens.md), or, in tests, "tokenizer"
// (github.com/tiktoken-go/tokenizer) or "tiktoken-go"
// (github.com/pkoukk/tiktoken-go) when the CTXD_TOKENIZER environment
// variable names one. Other values of the variable, and the comparison
// names in the shipped binary, are ignored, so a typo cannot stop
// counting; callers that log their configuration should log this.
func Backend() string {
	if v := os.Getenv(envBackend); backendMakers[v] != nil {
		return v
	}
	return defaultBackendName
}

func knownEncoding(encoding string) bool {
	for _, e := range Encodings {
		if e == encoding {
			return true
		}
	}
	return false
}

// mustGet returns the shared counter of a known encoding. The embedded
// vocabularies cannot fail to load short of a broken build, so a failure
// is a programming error.
func mustGet(encoding string) *exactCounter {
	c, err := getExact(encoding)
	if err != nil {
		panic(err)
	}
	return c
}
