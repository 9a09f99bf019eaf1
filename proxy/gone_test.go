package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestClientGoneIsLogged: a client that hangs up is said so in the log
// of the real `ctxd proxy`: in the middle of a stream (the record was
// lost with the reverse proxy's abort: no line at all), and before the
// upstream answered (it was "upstream unreachable (502)" with an
// upstream error, though the upstream was fine and waiting). The proxy
// serves the next request.
func TestClientGoneIsLogged(t *testing.T) {
	up := newUpstream(t)
	up.gate = make(chan struct{}) // the stream stops after its first event
	arrived := make(chan struct{}, 1)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read whole, so the server sees the hang-up
		arrived <- struct{}{}
		<-r.Context().Done() // never answers
	}))
	t.Cleanup(hang.Close)
	tests := []struct {
		name     string
		upstream string
		stream   bool
		want     map[string]any // fields of the record
		absent   []string
	}{
		{"mid-stream", up.srv.URL, true, map[string]any{"status": 200.0, "client_gone": true, "stream": true}, []string{"upstream_unreachable"}},
		{"before the answer", hang.URL, false, map[string]any{"status": 499.0, "client_gone": true, "upstream_error_kind": ""}, []string{"upstream_unreachable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			base, stop := runProxy(t, tt.upstream, state)
			ctx, cancel := context.WithCancel(t.Context())
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(convo(t, "chat", 1, tt.stream)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tt.stream {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
					t.Fatalf("first event: %v", err)
				}
				cancel() // hang up with the stream half relayed
				resp.Body.Close()
				select { // the next event finds the client gone (or the upstream's request ended)
				case up.gate <- struct{}{}:
				case <-time.After(2 * time.Second):
				}
			} else {
				go func() {
					select {
					case <-arrived: // forwarded: hang up while the upstream thinks
					case <-time.After(30 * time.Second):
					}
					cancel()
				}()
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
					t.Fatalf("status %d, want the client's own cancellation", resp.StatusCode)
				}
			}
			// The proxy still serves.
			if resp, err := http.Get(base + "/ctxd/stats"); err != nil || resp.StatusCode != 200 {
				t.Fatalf("after the hang-up: %v", err)
			} else {
				resp.Body.Close()
			}
			rec := waitRecord(t, filepath.Join(state, "..", "proxy.log"))
			stop()
			for k, v := range tt.want {
				if rec[k] != v {
					t.Errorf("record %s = %v, want %v", k, rec[k], v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := rec[k]; ok {
					t.Errorf("record has %s = %v", k, rec[k])
				}
			}
		})
	}
}

// waitRecord returns the first proxy_request record of a JSON log file,
// waiting a few seconds for it.
func waitRecord(t *testing.T, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		for _, l := range strings.Split(string(b), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "proxy_request" {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no proxy_request record in the log:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestShadowLineSaysWouldSave: in --mode shadow the real `ctxd proxy`
// forwards the original, and its short log line says what optimize
// would have forwarded (it said "tokens N -> N saved 0%", the would-be
// saving only in the debug record).
func TestShadowLineSaysWouldSave(t *testing.T) {
	up := newUpstream(t)
	cmd := exec.Command(ctxdBin, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.srv.URL, "--state-dir", filepath.Join(t.TempDir(), "state"),
		"--mode", "shadow", "--context-window", "32000")
	logs := &testutil.SyncBuffer{}
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	body := convo(t, "chat", 12, false)
	if resp, answer := post(t, base, "/v1/chat/completions", body, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, answer)
	}
	if got := up.last(t).Body; !bytes.Equal(got, body) {
		t.Fatalf("shadow mode forwarded %d bytes, not the %d sent", len(got), len(body))
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "msg=\"200 ") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	m := regexp.MustCompile(`msg="(200 [^"]*)"`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no request line in the log:\n%s", logs)
	}
	if !lineShape.MatchString(m[1]) {
		t.Errorf("line %q is not of the shape %s", m[1], lineShape)
	}
	w := regexp.MustCompile(`tokens (\d+) -> (\d+) saved 0% \(shadow: would be (\d+), saved \d+%\)`).FindStringSubmatch(m[1])
	if w == nil || w[1] != w[2] || w[3] == w[1] {
		t.Errorf("line %q does not say what optimize would forward", m[1])
	}
}

// TestRefusalIsJSON: a request the real `ctxd proxy` refuses before
// anything is forwarded (a text/plain body, a cross-site Origin) gets
// the JSON error of the proxy's other refusals, which the SDKs read as
// a provider's (it was a text/plain line).
func TestRefusalIsJSON(t *testing.T) {
	up := newUpstream(t)
	base, _ := runProxy(t, up.srv.URL, filepath.Join(t.TempDir(), "state"))
	tests := []struct {
		name   string
		header map[string]string
		status int
	}{
		{"text/plain", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"cross-site origin", map[string]string{"Origin": "https://evil.example.com"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, answer := post(t, base, "/v1/chat/completions", convo(t, "chat", 1, false), tt.header)
			var e struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if resp.StatusCode != tt.status || json.Unmarshal(answer, &e) != nil || e.Type != "error" || e.Error.Type != "ctxd_refused_request" ||
				!strings.HasPrefix(e.Error.Message, "ctxd proxy: ") || resp.Header.Get("X-Ctxd-Error") != "ctxd_refused_request" {
				t.Errorf("got %d %q (%s), want %d and the proxy's JSON error", resp.StatusCode, answer, resp.Header.Get("Content-Type"), tt.status)
			}
		})
	}
	if n := len(up.requests()); n != 0 {
		t.Errorf("%d refused requests reached the upstream", n)
	}
}
