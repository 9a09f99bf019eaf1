package proxy

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// A web page the user visits can send requests to a proxy on loopback:
// a form or fetch with a "simple" content type needs no CORS preflight,
// and DNS rebinding gives a page's own name a loopback address. The
// proxy forwards with the user's API key, so it answers only requests
// that could not have come from a page (the checks of Jupyter's and
// Vite's dev servers):
//   - Host names a loopback host or the address the proxy listens on;
//   - Origin, when sent, is such a host too, and Sec-Fetch-Site is not
//     cross-site;
//   - a request with a body declares a JSON content type (or none, as
//     curl and SDKs may), never text/plain or a form.

// guard returns why r is refused (status and reason), or 0.
func (p *Proxy) guard(r *http.Request) (int, string) {
	if !p.allowedHost(r.Host) {
		return http.StatusForbidden, fmt.Sprintf("Host %q is not a loopback name or the proxy's address (a web page's request is refused; call the proxy as http://127.0.0.1:PORT or http://localhost:PORT)", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !p.allowedHost(u.Host) {
			return http.StatusForbidden, fmt.Sprintf("cross-site Origin %q refused", o)
		}
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return http.StatusForbidden, "cross-site request refused (Sec-Fetch-Site)"
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		return 0, ""
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt == "text/plain" || mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
			return http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q refused: send application/json", ct)
		}
	}
	return 0, ""
}

// allowedHost reports a Host (or an Origin's host) that is a loopback
// name or address, or the host of the proxy's public URL.
func (p *Proxy) allowedHost(hostport string) bool {
	if hostport == "" {
		return false
	}
	if pub, err := url.Parse(p.opts.PublicURL); err == nil && pub.Host != "" && strings.EqualFold(pub.Host, hostport) {
		return true
	}
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
