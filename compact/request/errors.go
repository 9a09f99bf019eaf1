package request

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
)

// ErrUnresolvedReference is the error of a compactor given a request
// that carries a ctxd reference its session cannot resolve (the
// artifact is not stored, or does not verify against its hash). Both
// compactors fail closed on it: a request whose references cannot be
// followed is never passed on.
var ErrUnresolvedReference = errors.New("unresolvable ctxd reference")

// DeriveScope names the artifact scope of a request that gives no
// session: a hash of its format, its first two items (the system prompt
// and the first request, which stay the same across the turns of one
// conversation) and its fixed text. Both compactors derive the same
// scope, so a reference one emits resolves for the other.
func DeriveScope(req *Request) string {
	h := sha256.New()
	h.Write([]byte(req.Format))
	for i, it := range req.Items {
		if i == 2 {
			break
		}
		h.Write([]byte{0})
		h.Write(it.Raw())
	}
	for _, f := range req.Fixed {
		if f.Kind == SegText {
			h.Write([]byte{1})
			h.Write([]byte(f.Text))
		}
	}
	return "conv-" + hex.EncodeToString(h.Sum(nil)[:12])
}
