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
// still gets an answer to each of them; before drain, the SDK's transport
// ended the session at EOF and the calls still running were never answered.
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

// TestHugeLineEndsSession: a client that writes a message far over
// mcp.MaxMessageBytes without a newline ends its session with a clear
// error instead of growing the server's memory with its input.
func TestHugeLineEndsSession(t *testing.T) {
	repo := testutil.GitRepo(t, repoFiles)
	first := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	cmd := exec.Command(ctxdBin, "mcp", "--root", repo, "--state-dir", t.TempDir())
	// A tools/call whose text argument never ends: valid JSON as far as
	// it goes, so only a size limit stops it.
	huge := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"`
	cmd.Stdin = io.MultiReader(strings.NewReader(first+huge), io.LimitReader(xs{}, 400<<20))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err == nil {
		t.Fatalf("ctxd mcp exited 0 after a %d-byte line", 400<<20)
	}
	if e := errb.String(); !strings.Contains(e, "without a newline") && !strings.Contains(e, "maximum line length") {
		t.Errorf("stderr does not say why the session ended:\n%.2000s", errb.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// Maxrss is in KiB on Linux. The input was 400 MiB; the server
		// may hold one message's worth (the SDK's reader and ours).
		if mb := ru.Maxrss / 1024; mb > 250 {
			t.Errorf("peak RSS %d MB reading a huge line, want it bounded by the message limit", mb)
		}
	}
}
