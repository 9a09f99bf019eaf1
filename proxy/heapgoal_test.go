package proxy_test

import (
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
// memory limit of the idle process plus a few times the body and a low
// GOGC (issue 28), and those before it are back once it is answered.
func TestHeapGoal(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	var during, duringPct atomic.Int64
	srv := smallAnswerProxy(t, heapgoal.New(10, 4, 1<<20), func() {
		during.Store(debug.SetMemoryLimit(-1))
		pct := debug.SetGCPercent(100)
		debug.SetGCPercent(pct)
		duringPct.Store(int64(pct))
	})
	body := manySmall(3000)
	send(t, srv.URL, body)
	if d := during.Load(); d == math.MaxInt64 || d < int64(4*len(body)) {
		t.Errorf("limit while forwarding %d, want a finite one over 4x the %d-byte body", d, len(body))
	}
	if p := duringPct.Load(); p < 10 || p >= 100 {
		t.Errorf("GOGC while forwarding %d, want 10 or a little more (the slack over the idle process)", p)
	}
	// The handler releases its hold once the answer is written: the
	// client may read it first.
	srv.Close() // waits for the handler
	if after := debug.SetMemoryLimit(-1); after != math.MaxInt64 {
		t.Errorf("limit after the answer %d, want none", after)
	}
	if after := debug.SetGCPercent(100); after != 100 {
		t.Errorf("GOGC after the answer %d, want 100", after)
	}
}

// smallAnswerProxy is a proxy (optimize mode, its own state directory,
// heap goal goal) in front of an upstream that reads each body, calls
// seen when it is not nil and answers a small chat completion; it is
// closed with the test.
func smallAnswerProxy(t *testing.T, goal *heapgoal.Goal, seen func()) *httptest.Server {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if seen != nil {
			seen()
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	t.Cleanup(up.Close)
	flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: filepath.Join(t.TempDir(), "state")}, -1)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.URL)
	p, err := proxy.New(proxy.Options{Upstream: u, Flow: flow, Logger: slog.New(slog.DiscardHandler), HeapGoal: goal})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv
}
