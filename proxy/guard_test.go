package proxy_test

import (
	"net/http"
	"strings"
	"testing"
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
