package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/smart"
)

// onlyReader hides a reader's length, so a request with it as its body
// goes chunked (no Content-Length).
type onlyReader struct{ io.Reader }

// TestBodyLimit: a body over Options.MaxBodyBytes is refused with 413
// before it is read, whether or not it says its length; a body the proxy
// does not rewrite (exact mode) streams through whatever its size.
func TestBodyLimit(t *testing.T) {
	body := convo(t, "chat", 6, false)
	limit := int64(len(body) - 1)
	tests := []struct {
		name    string
		mode    smart.Mode
		limit   int64
		chunked bool
		want    int // 0: forwarded byte for byte
	}{
		{"over, with a length", smart.ModeOptimize, limit, false, http.StatusRequestEntityTooLarge},
		{"over, chunked", smart.ModeOptimize, limit, true, http.StatusRequestEntityTooLarge},
		{"at the limit", smart.ModeShadow, limit + 1, false, 0},
		{"at the limit, chunked", smart.ModeShadow, limit + 1, true, 0},
		{"exact mode streams over the limit", smart.ModeExact, 16, false, 0},
		{"exact mode streams over the limit, chunked", smart.ModeExact, 16, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := newUpstream(t)
			px, logs := startProxy(t, up, setup{mode: tt.mode, maxBody: tt.limit})
			var r io.Reader = bytes.NewReader(body)
			if tt.chunked {
				r = onlyReader{r}
			}
			resp, answer := postFrom(t, px.URL+"/v1/chat/completions", r, nil)
			if tt.want != 0 {
				if resp.StatusCode != tt.want || resp.Header.Get("X-Ctxd-Error") != "ctxd_request_too_large" || !strings.Contains(string(answer), "--max-body-bytes") {
					t.Fatalf("got %d %s: %s", resp.StatusCode, resp.Header.Get("X-Ctxd-Error"), answer)
				}
				if n := len(up.requests()); n != 0 {
					t.Fatalf("%d requests reached the upstream", n)
				}
				return
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, answer)
			}
			if got := up.last(t).Body; !bytes.Equal(got, body) {
				t.Fatalf("upstream got %d bytes, not the %d sent byte for byte", len(got), len(body))
			}
			rec := records(t, logs, 1)[0]
			if rec["request_bytes_in"] != float64(len(body)) || rec["request_bytes_upstream"] != float64(len(body)) {
				t.Errorf("record counts %v in, %v upstream; want %d", rec["request_bytes_in"], rec["request_bytes_upstream"], len(body))
			}
		})
	}
}

// TestBodyLimitSaid: the real `ctxd proxy` refuses a body over
// --max-body-bytes with a message that reads (it said "request body is
// more than the limit, over the proxy's limit" for a chunked one), and
// its log says the size it refused (it said "bytes 0").
func TestBodyLimitSaid(t *testing.T) {
	up := newUpstream(t)
	body := convo(t, "chat", 2, false)
	limit := len(body) - 1
	tests := []struct {
		name    string
		chunked bool
		msg     string
		logged  int
	}{
		{"with a length", false, fmt.Sprintf("request body is %d bytes, over the proxy's limit of %d bytes", len(body), limit), len(body)},
		{"chunked", true, fmt.Sprintf("request body (sent without a length) is over the proxy's limit of %d bytes", limit), limit + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			base, stop := runProxy(t, up.srv.URL, state, "--max-body-bytes", strconv.Itoa(limit))
			var r io.Reader = bytes.NewReader(body)
			if tt.chunked {
				r = onlyReader{r}
			}
			resp, answer := postFrom(t, base+"/v1/chat/completions", r, nil)
			if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(answer), tt.msg) {
				t.Errorf("got %d %s, want 413 saying %q", resp.StatusCode, answer, tt.msg)
			}
			rec := waitRecord(t, filepath.Join(state, "..", "proxy.log"))
			stop()
			if rec["request_bytes_in"] != float64(tt.logged) {
				t.Errorf("record request_bytes_in = %v, want %d", rec["request_bytes_in"], tt.logged)
			}
		})
	}
}
