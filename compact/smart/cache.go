package smart

import (
	"strings"

	"github.com/ctxd/ctxd/compact/request"
)

// viewKey names a view of a text: the transform, its shape and the
// encoding its tokens were counted with.
type viewKey struct {
	text      request.TextKey
	transform string
	v         view
	encoding  string
	rt        request.Retrieval // the references' hints
}

type viewResult struct {
	text   string
	ok     bool
	tokens int
}

// cachedView returns a cached view from the shared cache (request.Memo), or
// builds it with build and counts it.
func cachedView(c *request.Cache, k viewKey, build func() (string, bool), count func(string) int) viewResult {
	return request.Memo(c, k, func() viewResult {
		var res viewResult
		res.text, res.ok = build()
		// Kept beyond the request: a view may be (part of) a text that
		// is a view of the body (request.Memo).
		res.text = strings.Clone(res.text)
		if res.ok {
			res.tokens = count(res.text)
		}
		return res
	})
}

// maxCached bounds the optimizer's map of resolved hash prefixes; a full
// map starts over.
const maxCached = 16384
