package proxy_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/proxy"
)

// TestBrowserCannotDriveProxy: requests a web page can make (any Host
// through DNS rebinding, a cross-site Origin, text/plain and form
// bodies) are refused before anything is forwarded; an agent's request
// on loopback passes.
func TestBrowserCannotDriveProxy(t *testing.T) {
	up := newUpstream(t)
	srv, _ := startProxy(t, up, setup{})
	body := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name   string
		host   string
		header map[string]string
		status int
	}{
		{"agent", "", map[string]string{"Content-Type": "application/json"}, http.StatusOK},
		{"no content type", "", nil, http.StatusOK},
		{"localhost", "localhost", map[string]string{"Content-Type": "application/json"}, http.StatusOK},
		{"rebound host", "evil.example.com", map[string]string{"Content-Type": "application/json"}, http.StatusForbidden},
		{"cross-site origin", "", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example.com"}, http.StatusForbidden},
		{"null origin", "", map[string]string{"Content-Type": "application/json", "Origin": "null"}, http.StatusForbidden},
		{"loopback origin", "", map[string]string{"Content-Type": "application/json", "Origin": "http://localhost:5173"}, http.StatusOK},
		{"sec-fetch cross-site", "", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"text/plain", "", map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, http.StatusUnsupportedMediaType},
		{"form", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"multipart", "", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, http.StatusUnsupportedMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(up.requests())
			req, _ := http.NewRequest("POST", srv.URL+"/v1/chat/completions", strings.NewReader(body))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if forwarded := len(up.requests()) > before; forwarded != (tt.status == http.StatusOK) {
				t.Errorf("forwarded %v, status %d", forwarded, resp.StatusCode)
			}
		})
	}
}

// FuzzAllowedHost: a Host the guard allows is loopback (by name or
// address) or the proxy's own address.
func FuzzAllowedHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8080", "localhost", "[::1]:1", "evil.com", "127.0.0.1.evil.com", "localhost.evil.com", "a.localhost"} {
		f.Add(s)
	}
	p, err := proxy.New(proxy.Options{Upstream: mustURL("http://127.0.0.1:9"), Flow: mustFlow(f)})
	if err != nil {
		f.Fatal(err)
	}
	p.SetPublicURL("http://192.0.2.7:4000")
	f.Fuzz(func(t *testing.T, host string) {
		req, _ := http.NewRequest("GET", "http://127.0.0.1/ctxd/stats", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		p.ServeHTTP(rec, req)
		if rec.Code == http.StatusForbidden {
			return
		}
		h := host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			h = hh
		}
		h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
		ip := net.ParseIP(h)
		if host != "192.0.2.7:4000" && h != "localhost" && !strings.HasSuffix(h, ".localhost") && (ip == nil || !ip.IsLoopback()) {
			t.Fatalf("Host %q allowed", host)
		}
	})
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func mustFlow(f *testing.F) *proxy.Flow {
	fl, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: f.TempDir()}, -1)
	if err != nil {
		f.Fatal(err)
	}
	return fl
}
