package proxy_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// lookCtx counts the looks at its context's error and, at the look
// numbered cancelAt, has another goroutine cancel the context it wraps
// (a client hanging up while the proxy works) and waits for it.
type lookCtx struct {
	context.Context
	cancel   context.CancelFunc
	cancelAt int64
	looks    atomic.Int64
}

func (c *lookCtx) Err() error {
	if n := c.looks.Add(1); c.cancelAt > 0 && n == c.cancelAt {
		done := make(chan struct{})
		go func() { c.cancel(); close(done) }()
		<-done
	}
	return c.Context.Err()
}

// TestHangUpDuringParse: a client that leaves while the proxy parses its
// request of 30,000 messages (the parse looks at the request's context
// every thousand or so elements: issue 28) gets nothing sent upstream,
// neither the rewrite nor the original the proxy forwards when a body
// does not parse, and the work stops there: the proxy looks at the
// context a few times more at most, where a whole request looks
// hundreds of times.
func TestHangUpDuringParse(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(`{"model": "gpt-4o", "messages": [{"role": "system", "content": "You are helpful."}`)
	for i := range 30000 {
		fmt.Fprintf(&buf, `, {"role": "user", "content": "message %d says a few words"}`, i)
	}
	buf.WriteString("]}")
	body := buf.Bytes()
	serve := func(t *testing.T, at int64) (*httptest.ResponseRecorder, *lookCtx, *upstream) {
		up := newUpstream(t)
		px, _ := startProxy(t, up, setup{})
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		lc := &lookCtx{Context: ctx, cancel: cancel, cancelAt: at}
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
	looks := whole.looks.Load()
	t.Logf("a whole request looks at its context %d times", looks)
	if looks < 100 {
		t.Fatalf("a whole request looked at its context %d times: the parse does not look", looks)
	}
	for _, at := range []int64{2, 20, 60} {
		t.Run(fmt.Sprint("cancelled at look ", at), func(t *testing.T) {
			w, lc, up := serve(t, at)
			if n := len(up.requests()); n != 0 {
				t.Fatalf("%d requests went upstream after the client left (answer %d)", n, w.Code)
			}
			if got := w.Header().Get("X-Ctxd-Error"); got != "ctxd_client_gone" {
				t.Errorf("answer %d %q, want ctxd_client_gone", w.Code, got)
			}
			if got := lc.looks.Load(); got > at+4 {
				t.Errorf("%d looks after the cancellation at look %d: the work went on", got-at, at)
			}
		})
	}
}
