package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/procstat"
)

// TestLoad is the load benchmark command of issue 11 (not a CI check: it
// runs only with CTXD_LOAD set):
//
//	CTXD_LOAD=2000 go test -run TestLoad -v -timeout 30m ./cmd/ctxd
//
// 8 clients on one `ctxd serve --listen unix:` send ctx/buildPrompt
// (varied requests on this repository's tree) until CTXD_LOAD requests are
// done; it prints p50/p95/p99 latency, errors and the daemon's RSS every
// 5 s.
func TestLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CTXD_LOAD"))
	if n <= 0 {
		t.Skip("set CTXD_LOAD=N to run the load benchmark")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	sock := filepath.Join(t.TempDir(), "ctxd.sock")
	cmd, _ := startListening(t, root, "", "--listen", "unix:"+sock, "--log-level", "warn")
	const clients = 8
	queries := []string{"how does the stream resynchronize after a bad frame", "where are secrets redacted", "explain the session resume", "how is the xml prompt rendered", "fix the token budget split", "add a test for safefs"}
	var next, errs atomic.Int64
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	start := time.Now()
	stop := make(chan struct{})
	var rss []string
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if kb := procstat.KiB(strconv.Itoa(cmd.Process.Pid), "VmRSS"); kb > 0 {
					rss = append(rss, fmt.Sprintf("%4.0fs %4d MB", time.Since(start).Seconds(), kb>>10))
				}
			}
		}
	}()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			conn := dialRaw(t, "unix", sock)
			if r := conn.call(1, "initialize", map[string]any{"root": root}); r["error"] != nil {
				errs.Add(1)
				return
			}
			for id := 2; ; id++ {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				t0 := time.Now()
				r := conn.call(id, "ctx/buildPrompt", map[string]any{"user_request": queries[int(i)%len(queries)]})
				lat[c] = append(lat[c], time.Since(t0))
				if r["error"] != nil {
					errs.Add(1)
				}
			}
		}(c)
	}
	wg.Wait()
	close(stop)
	total := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(float64(len(all))*p))] }
	t.Logf("load: %d clients, %d requests in %.1fs (%.1f req/s), errors %d", clients, len(all), total.Seconds(), float64(len(all))/total.Seconds(), errs.Load())
	t.Logf("latency p50 %v p95 %v p99 %v max %v", pct(0.50).Round(time.Millisecond), pct(0.95).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))
	for _, r := range rss {
		t.Logf("RSS %s", r)
	}
	if hwm := vmHWM(t, cmd.Process.Pid); hwm > 0 {
		t.Logf("peak RSS (VmHWM) %d MB", hwm>>10)
	}
	if errs.Load() > 0 {
		t.Errorf("%d errors", errs.Load())
	}
}
