package smart

import (
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/byteview"
)

// viewKey names a view of a text: the transform, its shape and the
// encoding its tokens were counted with.
type viewKey struct {
	text      request.TextKey
	transform string
	v         view
	encoding  string
	rt        request.Retrieval // the references' hints
	// kind and name are the segment's: its count depends on them (a
	// named tool result counts its name), so a view counted for one
	// segment is not the count of the same text in another.
	kind request.SegmentKind
	name string
}

type viewResult struct {
	text   string
	ok     bool
	tokens int
}

// cachedView returns a cached view of text src from the shared cache
// (request.Memo), or builds it with build and counts it.
func cachedView(c *request.Cache, k viewKey, src string, build func() (string, bool), count func(string) int) viewResult {
	return request.Memo(c, k, func() viewResult {
		var res viewResult
		res.text, res.ok = build()
		// Kept beyond the request: a view that is (part of) its text,
		// which may be a view of the body, is copied (request.Memo).
		res.text = byteview.Detached(res.text, src)
		if res.ok {
			res.tokens = count(res.text)
		}
		return res
	})
}

// maxCached bounds the optimizer's map of resolved hash prefixes; a full
// map starts over.
const maxCached = 16384
