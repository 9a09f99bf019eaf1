package proxy_test

import (
	"bytes"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"testing"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/heapgoal"
	"github.com/ctxd/ctxd/proxy"
)

// TestHeapGoal: a body being rewritten and forwarded runs under a soft
// memory limit of the idle process plus a few times the body (issue 28),
// and the limit before it is back once it is answered.
func TestHeapGoal(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	debug.SetMemoryLimit(math.MaxInt64)
	var during atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		during.Store(debug.SetMemoryLimit(-1))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer up.Close()
	flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: filepath.Join(t.TempDir(), "state")}, -1)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.URL)
	p, err := proxy.New(proxy.Options{Upstream: u, Flow: flow, Logger: slog.New(slog.DiscardHandler), HeapGoal: heapgoal.New(10, 4, 1<<20)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	body := manySmall(3000)
	resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if d := during.Load(); d == math.MaxInt64 || d < int64(4*len(body)) {
		t.Errorf("limit while forwarding %d, want a finite one over 4x the %d-byte body", d, len(body))
	}
	// The handler releases its hold once the answer is written: the
	// client may read it first.
	srv.Close() // waits for the handler
	if after := debug.SetMemoryLimit(-1); after != math.MaxInt64 {
		t.Errorf("limit after the answer %d, want none", after)
	}
}
