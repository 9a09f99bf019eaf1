package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// livePeakPerByte bounds what the proxy holds live at its peak over the
// idle process, per byte of a request of many tiny messages (issue 28:
// the proxy's peak memory is at most 4x the body plus a constant). The
// heap goal (internal/heapgoal) runs the collector when the heap has
// grown 10% over what is live, so the process peaks near 1.1x this plus
// what the runtime keeps beside the heap: the live peak must stay well
// under 4x for the process's peak to. Here: 2.85-2.97x at 30,000
// messages, 3.05x at 300,000 (BENCHMARKS.md, "h28heap"); 3.36-3.41x
// before the model of 48+40 bytes a message. It is the live heap the collector
// finds, not RSS, and every collection stops the world while it marks
// (GODEBUG=gcstoptheworld=1: a concurrent one counts the garbage
// allocated while it marked as live, up to 1x the body more here), so a
// loaded machine does not move it.
const livePeakPerByte = 3.2

// livePeakLargePerByte bounds the live peak of one 8 MiB tool output:
// the peak is 43.5 MB on d510f06 either way, but the idle heap under it
// is 31.6 MB without -race and 23.1 MB under -race (CI's pass), 1.38x and
// 2.38x the body (BENCHMARKS.md "Review (2026-11-29 15:27"); issue 28
// found about 90x the body on large messages before its first round.
const livePeakLargePerByte = 3.0

// TestLivePeak sends 30,000 tiny messages (2 MB) through the proxy in
// process with the collector running whenever the heap has grown 1%
// (GOGC 1), each collection with the world stopped, polls the live heap
// the collector finds and fails when its peak over the idle process is
// more than livePeakPerByte times the body. The test runs itself again in
// a child process for the GODEBUG setting, which the runtime reads at
// start. HEAPPROBE_N sets another number of messages.
func TestLivePeak(t *testing.T) {
	if testing.Short() {
		t.Skip("2 MB requests with the collector running whenever the heap grows 1%")
	}
	if os.Getenv("CTXD_LIVEPEAK_CHILD") == "" {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLivePeak$", "-test.v")
		cmd.Env = append(os.Environ(), "CTXD_LIVEPEAK_CHILD=1", "GODEBUG=gcstoptheworld=1")
		out, err := cmd.CombinedOutput()
		t.Logf("the child process:\n%s", out)
		if err != nil {
			t.Fatalf("the child process: %v", err)
		}
		return
	}
	n := 30000
	if s := os.Getenv("HEAPPROBE_N"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatalf("HEAPPROBE_N: %v", err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	// Each shape one failure of issue 28: 30,000 tiny messages (the model
	// per message), and one 8 MiB tool output, every line different, as a
	// log or a file read is (the copies of one large text: it was 90x).
	tests := []struct {
		name  string
		body  func(salt int) []byte
		bound float64
	}{
		{fmt.Sprintf("%d tiny messages", n), func(salt int) []byte {
			// Each request a new session (its system prompt differs), as
			// scripts/proxy-mem.py's are.
			return bytes.Replace(manySmall(n), []byte("You are helpful. 0"), fmt.Appendf(nil, "You are helpful. %d", salt), 1)
		}, livePeakPerByte},
		{"one 8 MiB tool output", func(salt int) []byte { return largeToolOutput(8<<20, salt) }, livePeakLargePerByte},
	}
	for _, tt := range tests {
		// Each shape its own proxy, closed with its subtest: what one
		// shape's session keeps is not in the next one's idle heap.
		t.Run(tt.name, func(t *testing.T) {
			srv := smallAnswerProxy(t, nil, nil)
			send(t, srv.URL, manySmall(10)) // the tokenizer tables: part of the constant
			least := math.Inf(1)
			for salt := 1; salt <= 2; salt++ {
				// The client's copy of the body is live before the
				// request, so it is in the idle heap.
				body := tt.body(salt)
				peak, idle := livePeak(func() { send(t, srv.URL, body) })
				per := float64(peak-idle) / float64(len(body))
				t.Logf("%s, %d-byte body: idle live heap %.1f MB, peak %.1f MB: %.2fx the body",
					tt.name, len(body), float64(idle)/1e6, float64(peak)/1e6, per)
				least = min(least, per)
			}
			if least > tt.bound {
				t.Errorf("live peak %.2fx the body in the lesser of two requests, want at most %.1fx (issue 28: the proxy's peak is at most 4x the body plus a constant)", least, tt.bound)
			}
		})
	}
}

// largeToolOutput is a chat request whose one tool output is size bytes
// of numbered lines, every line different.
func largeToolOutput(size, salt int) []byte {
	var text strings.Builder
	for i := 0; text.Len() < size; i++ {
		fmt.Fprintf(&text, "%d: line %d of the text with some words\n", salt, i)
	}
	out, err := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{
		map[string]any{"role": "system", "content": "You are helpful."},
		map[string]any{"role": "user", "content": fmt.Sprintf("go %d", salt)},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "sh", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": text.String()[:size]},
		map[string]any{"role": "user", "content": "and now?"},
	}})
	if err != nil {
		panic(err)
	}
	return out
}

// livePeak runs do and returns the largest live heap a collection found
// while it ran and the live heap before it.
func livePeak(do func()) (peak, idle uint64) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() uint64 {
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	idle = read()
	var stop atomic.Bool
	var top atomic.Uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for !stop.Load() {
			if v := read(); v > top.Load() {
				top.Store(v)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	do()
	stop.Store(true)
	<-done
	return max(top.Load(), idle), idle
}
