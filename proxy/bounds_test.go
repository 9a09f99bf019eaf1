package proxy_test

import (
	"bytes"
	"io"
	"net/http"
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
