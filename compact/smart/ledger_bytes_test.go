package smart

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
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
			store := newStore(t)
			_, res := stepped(t, store, f, agentRounds(40), 24000)
			l, span := ledgerSpan(t, store, "s", f, res)
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

// ledgerSpan returns the ledger of res's forwarded request and the span
// stored behind its reference in session's store.
func ledgerSpan(t *testing.T, store *artifacts.Store, session string, f request.Format, res *Result) (string, []byte) {
	t.Helper()
	l, _ := ledgerOf(t, f, res.Body)
	ms := request.ParseMarkers(l)
	if len(ms) == 0 {
		t.Fatalf("no ledger reference; reasons %v", res.Report.PolicyReasons)
	}
	full, err := store.Resolve(t.Context(), session, ms[0].Hash)
	if err != nil {
		t.Fatal(err)
	}
	span, _, err := store.Get(t.Context(), session, full)
	if err != nil {
		t.Fatal(err)
	}
	return l, span
}
