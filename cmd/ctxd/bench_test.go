package main

import (
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkDaemonRepeatRequest measures a running `ctxd serve` answering
// the same ctx/buildPrompt on the Go standard library again, over stdio:
// the round trip an editor sees once the daemon is warm.
//
//	go test -run XXX -bench DaemonRepeatRequest -count 10 ./cmd/ctxd
func BenchmarkDaemonRepeatRequest(b *testing.B) {
	goroot := filepath.Join(runtime.GOROOT(), "src")
	d := startDaemon(b, b.TempDir())
	if r := d.call("initialize", map[string]any{"root": goroot}); r["error"] != nil {
		b.Fatal(r["error"])
	}
	params := map[string]any{"user_request": "how does the http server handle keep-alive connections"}
	if r := d.call("ctx/buildPrompt", params); r["error"] != nil {
		b.Fatal(r["error"])
	}
	for b.Loop() {
		if r := d.call("ctx/buildPrompt", params); r["error"] != nil {
			b.Fatal(r["error"])
		}
	}
}
