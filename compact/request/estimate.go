package request

import (
	"github.com/ctxd/ctxd/internal/memo"
	"hash/maphash"
	"math"
)

// Counter counts the tokens of a text. [tokens.Counter] satisfies it.
type Counter interface {
	Count(text string) int
}

// Overheads of the chat template that a plain text count misses. OpenAI
// documents 3 tokens per message (plus 1 for a name) and 3 to prime the
// reply; the per-call overhead is our estimate of the hidden function-call
// framing, since no provider documents it.
const (
	MessageOverhead  = 3
	NameOverhead     = 1
	ToolCallOverhead = 3
	ReplyPriming     = 3
)

// opaqueBytesPerToken estimates opaque payloads (encrypted reasoning,
// redacted thinking, very large unknown parts) without tokenizing them:
// base64 runs at about 3 bytes per token in cl100k and o200k, so this
// over-counts slightly.
const opaqueBytesPerToken = 3

// maxTokenizedOther is the largest unknown part tokenized as text; larger
// ones are estimated by size.
const maxTokenizedOther = 64 << 10

// maxCachedItems bounds the per-item cache; when full it starts over.
const maxCachedItems = 16384

// minCachedItem is the smallest item (in raw bytes) whose counts the
// estimator caches: a smaller one is counted again on every call. Its
// entry (key, counts, map slot: about 100 bytes) would weigh more than
// the item, and counting a few words costs about what hashing the
// item twice for the key does (issue 28: 30,000 tiny messages).
const minCachedItem = 256

// Estimator estimates the tokens of items with a model's encoding and
// image rule, caching each item's counts by the hash of its bytes. It is
// safe for concurrent use.
type Estimator struct {
	counter Counter
	rule    ImageRule
	seed1   maphash.Seed
	seed2   maphash.Seed

	cache *memo.Map[itemKey, []int] // segment counts, then the item total
}

type itemKey struct {
	h1, h2 uint64
	n      int
	role   string
}

// NewEstimator returns an estimator counting text with c and images with
// rule.
func NewEstimator(c Counter, rule ImageRule) *Estimator {
	return &Estimator{counter: c, rule: rule, seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), cache: memo.New[itemKey, []int](maxCachedItems)}
}

// Text counts text.
func (e *Estimator) Text(text string) int {
	if text == "" {
		return 0
	}
	return e.counter.Count(text)
}

// Request sets the token estimate of every item and returns the request's
// total: items, fixed parts and the reply priming.
func (e *Estimator) Request(r *Request) int {
	total := ReplyPriming + e.Fixed(r)
	for _, it := range r.Items {
		total += e.Item(it)
	}
	return total
}

// Fixed counts the request's fixed parts (system, instructions, tools).
func (e *Estimator) Fixed(r *Request) int {
	n := 0
	for i := range r.Fixed {
		n += e.segment(&r.Fixed[i])
	}
	return n
}

// Item sets it.Tokens and each segment's Tokens and returns it.Tokens.
func (e *Estimator) Item(it *Item) int {
	if len(it.Raw()) < minCachedItem {
		return e.count(it, nil)
	}
	key := itemKey{h1: maphash.Bytes(e.seed1, it.Raw()), h2: maphash.Bytes(e.seed2, it.Raw()), n: len(it.Raw()), role: it.Role()}
	counts, ok := e.cache.Lookup(key)
	if ok && len(counts) == len(it.Segments)+1 {
		for i := range it.Segments {
			it.Segments[i].Tokens = tok32(counts[i])
		}
		it.Tokens = tok32(counts[len(it.Segments)])
		return counts[len(it.Segments)]
	}
	counts = make([]int, len(it.Segments)+1)
	total := e.count(it, counts)
	e.cache.Put(key, counts)
	return total
}

// count sets it.Tokens and each segment's Tokens and returns it.Tokens;
// counts, when not nil, receives the segments' counts, then the total.
func (e *Estimator) count(it *Item, counts []int) int {
	total := 0
	if it.Role() != "" {
		total += MessageOverhead + e.Text(it.Role())
	}
	for i := range it.Segments {
		n := e.segment(&it.Segments[i])
		it.Segments[i].Tokens = tok32(n)
		if counts != nil {
			counts[i] = n
		}
		total += n
	}
	it.Tokens = tok32(total)
	if counts != nil {
		counts[len(it.Segments)] = total
	}
	return total
}

// Segment counts one segment as it stands.
func (e *Estimator) Segment(s *Segment) int { return e.segment(s) }

func (e *Estimator) segment(s *Segment) int {
	n := 0
	switch s.Kind {
	case SegToolCall:
		n = ToolCallOverhead + e.Text(s.Name()) + e.Text(s.Text)
	case SegRedactedThinking:
		n = (len(s.Text) + opaqueBytesPerToken - 1) / opaqueBytesPerToken
	case SegOther:
		if len(s.Text) > maxTokenizedOther {
			n = (len(s.Text) + opaqueBytesPerToken - 1) / opaqueBytesPerToken
		} else {
			n = e.Text(s.Text)
		}
	default:
		n = e.Text(s.Text)
	}
	if s.Kind == SegToolResult && s.Name() != "" {
		n += NameOverhead + e.Text(s.Name())
	}
	for _, img := range s.Images() {
		n += ImageTokens(e.rule, img)
	}
	return n
}

// tok32 is n as an item's or a segment's Tokens: 32 bits, saturating (a
// request of many tiny messages holds a count for each: issue 28).
func tok32(n int) int32 { return int32(min(n, math.MaxInt32)) }
