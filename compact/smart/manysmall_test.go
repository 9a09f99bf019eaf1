package smart

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
	"github.com/ctxd/ctxd/internal/testutil"
)

// manySmall is a conversation of n short messages (scripts/proxy-mem.py's
// SHAPE=many): a system prompt, then alternating user and assistant
// turns of a few words each.
func manySmall(n int) []convo.Msg {
	msgs := []convo.Msg{convo.System("You are helpful. 0")}
	for i := range n {
		text := fmt.Sprintf("message %d says a few words", i)
		if i%2 == 0 {
			msgs = append(msgs, convo.User(text))
		} else {
			msgs = append(msgs, convo.Assistant(text))
		}
	}
	return msgs
}

// TestManySmallBytes pins the bytes forwarded for a request of many tiny
// messages, as the proxy optimizes it (masking on, the stepped eviction
// cutting most of the history into the ledger), and the span stored
// behind the ledger's reference: the request model's per-message
// structures may change how they are held, never what is written. The
// golden was written by the code before those structures changed
// (-update rewrites).
func TestManySmallBytes(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			in, res, l, span := steppedSpan(t, f, manySmall(6000), 16000)
			var got bytes.Buffer
			fmt.Fprintf(&got, "in: %d bytes\nrequest: %d bytes, sha256 %x\nspan: %d bytes, sha256 %x\nreasons: %v\n--- ledger ---\n%s\n",
				len(in), len(res.Body), sha256.Sum256(res.Body), len(span), sha256.Sum256(span), res.Report.PolicyReasons, l)
			testutil.GoldenFile(t, "many_small."+string(f), got.Bytes(), *update)
		})
	}
}
