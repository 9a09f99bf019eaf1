package proxy_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestHangUpStopsWork: a client that leaves while the proxy parses or
// counts its request of 30,000 messages (both look at the request's
// context every thousand or so elements, the optimizer between its
// passes: issue 28) gets nothing sent upstream, neither the rewrite nor
// the original the proxy forwards when a body does not parse, and the
// work stops there: the proxy looks at the context a few times more at
// most, where a whole request looks about 160 times.
func TestHangUpStopsWork(t *testing.T) {
	body := testutil.ManyMessages(30000)
	serve := func(t *testing.T, at int64) (*httptest.ResponseRecorder, *testutil.LookCtx, *upstream) {
		up := newUpstream(t)
		px, _ := startProxy(t, up, setup{})
		lc := testutil.CancelAtLook(t, at)
		req := httptest.NewRequestWithContext(lc, http.MethodPost, px.URL+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		px.Config.Handler.ServeHTTP(w, req)
		return w, lc, up
	}
	w, whole, up := serve(t, 0)
	if w.Code != http.StatusOK || len(up.requests()) != 1 {
		t.Fatalf("uncancelled: %d, %d requests upstream: %s", w.Code, len(up.requests()), w.Body)
	}
	looks := whole.Looks()
	t.Logf("a whole request looks at its context %d times", looks)
	if looks < 100 {
		t.Fatalf("a whole request looked at its context %d times: the parse does not look", looks)
	}
	for _, at := range []int64{2, 20, 60, 100, 130, 150} {
		t.Run(fmt.Sprint("cancelled at look ", at), func(t *testing.T) {
			w, lc, up := serve(t, at)
			if n := len(up.requests()); n != 0 {
				t.Fatalf("%d requests went upstream after the client left (answer %d)", n, w.Code)
			}
			if got := w.Header().Get("X-Ctxd-Error"); got != "ctxd_client_gone" {
				t.Errorf("answer %d %q, want ctxd_client_gone", w.Code, got)
			}
			if got := lc.Looks(); got > at+4 {
				t.Errorf("%d looks after the cancellation at look %d: the work went on", got-at, at)
			}
		})
	}
}
