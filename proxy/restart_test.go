package proxy_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// runProxy starts `ctxd proxy` on a free loopback port and returns its
// base URL and a function that stops it (SIGINT, then wait).
func runProxy(t *testing.T, upstream, state string, extra ...string) (string, func()) {
	t.Helper()
	args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--state-dir", state, "--max-tool-output", "8000",
		"--log-file", filepath.Join(state, "..", "proxy.log")}, extra...)
	cmd := exec.Command(ctxdBin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ctxd proxy exited: %v", err)
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("ctxd proxy did not stop on SIGINT")
		}
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the proxy's address: %v", err)
	}
	m := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("first line %q names no address", line)
	}
	go io.Copy(io.Discard, out)
	return m[1], stop
}

// TestReferenceResolvesAfterRestart: a reference the proxy emits on turn
// 2 of a conversation resolves on turn 5, after the proxy restarted,
// through the hint's GET and through `ctxd rehydrate`.
func TestReferenceResolvesAfterRestart(t *testing.T) {
	up := newUpstream(t)
	state := filepath.Join(t.TempDir(), "state")

	// A window the conversation presses: below pressure Smart Context
	// makes only lossless rewrites (issue 12), and this test needs the
	// oldest outputs condensed.
	// Masking off: with it, a request this far over the window loses
	// its oldest rounds in a step (the ledger's reference stands for
	// them), and turn 5's step is not turn 2's.
	window := []string{"--context-window", "32000", "--mask-horizon", "-1"}
	base, stop := runProxy(t, up.srv.URL, state, window...)
	// Turn 2: four tool rounds so far; the oldest outputs are condensed.
	resp, _ := post(t, base, "/v1/chat/completions", convo(t, "chat", 4, false), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("turn 2: status %d", resp.StatusCode)
	}
	turn2 := string(up.last(t).Body)
	hint := regexp.MustCompile(`ctxd rehydrate --state-dir (\S+) --session ([A-Za-z0-9._-]+) ([0-9a-f]{16}) a-b, or GET (http://[^ ]+)/ctxd/artifacts/`).FindStringSubmatch(turn2)
	if hint == nil {
		t.Fatalf("turn 2 went upstream without a reference hint:\n%.2000s", turn2)
	}
	hintState, session, hash := hint[1], hint[2], hint[3]
	if hint[4] != base {
		t.Errorf("hint names %s, the proxy is %s", hint[4], base)
	}
	stop()

	base, _ = runProxy(t, up.srv.URL, state, window...)
	// Turns 3 and 4 happened elsewhere; turn 5 has seven rounds.
	resp, _ = post(t, base, "/v1/chat/completions", convo(t, "chat", 7, false), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("turn 5: status %d", resp.StatusCode)
	}
	turn5 := string(up.last(t).Body)
	if !strings.Contains(turn5, "ctxd rehydrate --state-dir "+hintState+" --session "+session+" "+hash) {
		t.Errorf("turn 5 does not carry turn 2's reference %s in session %s", hash, session)
	}
	want := strings.Join(strings.SplitAfter(testutil.ToolOutput(0), "\n")[1:4], "")
	get, err := http.Get(base + "/ctxd/artifacts/" + session + "/" + hash + "?lines=2-4")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	body, _ := io.ReadAll(get.Body)
	if get.StatusCode != 200 || string(body) != want {
		t.Errorf("GET after restart: %d %q, want lines 2-4 of the first output %q", get.StatusCode, body, want)
	}
	if get.Header.Get("X-Ctxd-Lines") != "2-4/600" {
		t.Errorf("X-Ctxd-Lines = %q", get.Header.Get("X-Ctxd-Lines"))
	}
	// The command exactly as the hint writes it, lines a-b = 2-4.
	out, err := exec.Command(ctxdBin, "rehydrate", "--state-dir", hintState, "--session", session, hash, "2-4").Output()
	if err != nil || string(out) != want {
		t.Errorf("ctxd rehydrate: %v %q, want %q", err, out, want)
	}
	miss, err := http.Get(base + "/ctxd/artifacts/" + session + "/0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	miss.Body.Close()
	if miss.StatusCode != http.StatusNotFound {
		t.Errorf("unknown reference: status %d, want 404", miss.StatusCode)
	}
	// The log file has one record per model request and no secrets.
	log, err := os.ReadFile(filepath.Join(state, "..", "proxy.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), `"msg":"proxy_request"`); n != 2 {
		t.Errorf("%d proxy_request records in the log, want 2", n)
	}
}
