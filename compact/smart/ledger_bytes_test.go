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

// The stepped eviction's bytes are pinned: the forwarded request (the
// masking's rewrites, the ledger in the evicted rounds' place) and the
// span stored behind the ledger's reference, in each format. Written
// without intermediate copies (buildLedger, applyEviction), they must
// be what the formatted, re-parsed path wrote (-update rewrites).
func TestLedgerBytes(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			_, res, l, span := steppedSpan(t, f, agentRounds(40), 24000)
			if res.Report.SelectedCandidateCount == 0 {
				t.Fatalf("no rewrite beside the eviction: the test no longer covers a rewritten request")
			}
			// The ledger in full; the request and the span (230 KB) by
			// their length and hash.
			var got bytes.Buffer
			fmt.Fprintf(&got, "request: %d bytes, sha256 %x\nspan: %d bytes, sha256 %x\n--- ledger ---\n%s\n", len(res.Body), sha256.Sum256(res.Body), len(span), sha256.Sum256(span), l)
			testutil.GoldenFile(t, "ledger_bytes."+string(f), got.Bytes(), *update)
		})
	}
}

// steppedSpan runs [stepped] with a new store and returns, beside the
// body sent and the result, the ledger of the forwarded request and the
// span stored behind its reference.
func steppedSpan(t *testing.T, f request.Format, msgs []convo.Msg, window int) (in []byte, res *Result, ledger string, span []byte) {
	t.Helper()
	store := newStore(t)
	in, res = stepped(t, store, f, msgs, window)
	ledger, _ = ledgerOf(t, f, res.Body)
	ms := request.ParseMarkers(ledger)
	if len(ms) == 0 {
		t.Fatalf("no ledger reference; reasons %v:\n%s", res.Report.PolicyReasons, ledger)
	}
	full, err := store.Resolve(t.Context(), "s", ms[0].Hash)
	if err != nil {
		t.Fatal(err)
	}
	span, _, err = store.Get(t.Context(), "s", full)
	if err != nil {
		t.Fatal(err)
	}
	return in, res, ledger, span
}
