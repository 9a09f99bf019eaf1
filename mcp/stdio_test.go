//go:build unix

package mcp_test

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestStdinClosedAnswersEveryCall: a client that writes its calls and
// closes its end of the pipe at once (a script, `printf ... | ctxd mcp`)
// still gets an answer to each of them (the SDK's transport once
// ended the session at EOF and the calls still running were never answered).
func TestStdinClosedAnswersEveryCall(t *testing.T) {
	repo := testutil.GitRepo(t, repoFiles)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"hello world","model":"gpt-4o"}}}`,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"build_context","arguments":{"request":"how does Put fail when the cart is full","budget":4000}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"outline","arguments":{"path":"store/store.go"}}}`,
	}, "\n") + "\n"
	for run := range 3 {
		cmd := exec.Command(ctxdBin, "mcp", "--root", repo, "--state-dir", t.TempDir())
		cmd.Stdin = strings.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, errb.String())
		}
		for _, id := range []string{`"id":1,`, `"id":2,`, `"id":"three",`, `"id":4,`} {
			if !strings.Contains(out.String(), id) {
				t.Errorf("run %d: no answer with %s:\n%s", run, id, out.String())
			}
		}
	}
}

// xs is an endless run of one byte: a line that never ends.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestHugeLineRefused: a message far over the limit (here 100 MiB of one
// line against 32 MiB) is answered with an invalid-request error naming
// its id, without the server holding it, and the session goes on: the
// next call is answered.
func TestHugeLineRefused(t *testing.T) {
	repo := testutil.GitRepo(t, repoFiles)
	first := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	cmd := exec.Command(ctxdBin, "mcp", "--root", repo, "--state-dir", t.TempDir())
	// A tools/call whose text argument is valid JSON as far as it goes,
	// so only the size limit stops it.
	huge := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"`
	after := `"}}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"still serving"}}}` + "\n"
	cmd.Stdin = io.MultiReader(strings.NewReader(first+huge), io.LimitReader(xs{}, 100<<20), strings.NewReader(after))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctxd mcp: %v\n%s", err, errb.String())
	}
	var refused, served bool
	for _, l := range strings.Split(out.String(), "\n") {
		refused = refused || strings.Contains(l, `"id":2,"error":{"code":-32600,"message":"invalid request: message of 104857`) && strings.Contains(l, "over the limit of 33554432 bytes")
		served = served || strings.Contains(l, `"id":3,"result":`) && strings.Contains(l, "2 tokens")
	}
	if !refused || !served {
		t.Errorf("want id 2 refused as over the limit and id 3 answered:\n%.3000s", out.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// Maxrss is in KiB on Linux. The over-long line is skipped, not
		// held: the peak is the server's own.
		if mb := ru.Maxrss / 1024; mb > 150 {
			t.Errorf("peak RSS %d MB reading a 100 MiB line, want it bounded by the message limit", mb)
		}
	}
}
