package prune

import (
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/byteview"
)

// Cache is the content-hash and estimator cache the pruner shares with
// the Smart Context optimizer ([request.Cache]): token counts by message,
// each tool output's analysis, and how it condenses. A cache shared by
// the compactors of one daemon re-counts only new messages.
type Cache = request.Cache

// NewCache returns an empty cache.
func NewCache() *Cache { return request.NewCache() }

// condKey is a text condensed under given settings and counted with an
// encoding.
type condKey struct {
	text     request.TextKey
	maxChars int
	isError  bool
	images   int
	encoding string
	rt       request.Retrieval
	// name is the tool result's: its count depends on it (a named tool
	// result counts its name).
	name string
}

type condResult struct {
	out    string
	hidden int
	ok     bool
	hash   string // SHA-256 of the original text
	tokens int    // of the condensed segment
}

// condense returns seg condensed to maxChars characters, from the cache or
// computed (with its hash and its tokens counted by est).
func condense(c *Cache, k condKey, seg *request.Segment, est *request.Estimator) condResult {
	return request.Memo(c, k, func() condResult {
		var res condResult
		res.hash = seg.Hash()
		res.out, res.hidden, res.ok = condenseWith(k.rt, seg.Text, k.maxChars, k.isError, res.hash, k.images)
		res.out = byteview.Detached(res.out, seg.Text) // kept beyond the request (request.Memo)
		if res.ok {
			res.tokens = est.Segment(request.NewSegment(seg.Kind, seg.Name(), "", res.out))
		}
		return res
	})
}

// refKey is a text reduced to its reference (referenceText).
type refKey struct {
	text     request.TextKey
	isError  bool
	encoding string
	rt       request.Retrieval
	name     string // as condKey's
}

// referenced returns seg reduced to its reference, from the cache or
// computed.
func referenced(c *Cache, k refKey, seg *request.Segment, est *request.Estimator) condResult {
	return request.Memo(c, k, func() condResult {
		var res condResult
		res.hash = seg.Hash()
		res.out, res.ok = referenceText(seg.Text, res.hash, k.isError, k.rt)
		res.out = byteview.Detached(res.out, seg.Text)
		if res.ok {
			res.hidden = len([]rune(seg.Text))
			res.tokens = est.Segment(request.NewSegment(seg.Kind, seg.Name(), "", res.out))
		}
		return res
	})
}
