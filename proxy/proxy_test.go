package proxy_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/proxy"
)

// ctxdBin is the ctxd binary (the restart test runs `ctxd proxy`).
var ctxdBin string

func TestMain(m *testing.M) { testutil.MainWithCtxd(m, "../cmd/ctxd", &ctxdBin) }

// records returns the proxy_request records logged once at least want
// are there (a record is written after the response is relayed, so a
// client may finish reading first), or after a few seconds.
func records(t *testing.T, s *testutil.SyncBuffer, want int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		recs := parseRecords(t, s)
		if len(recs) >= want || time.Now().After(deadline) {
			return recs
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func parseRecords(t *testing.T, s *testutil.SyncBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(s.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if m["msg"] == "proxy_request" {
			out = append(out, m)
		}
	}
	return out
}

type setup struct {
	mode smart.Mode
	// canary, when set, rewrites only that percent of sessions.
	canary   *int
	stateDir string
	// budget, when set, is every request's explicit token budget.
	budget int
	hints  proxy.Hints
	// lines logs the default short line per request (the full record at
	// debug level) instead of the full record at info level.
	lines bool
	// redact redacts secrets in every conversation (the configuration's
	// secrets.redact_conversation).
	redact bool
	// maxBody, when set, is the largest body read to rewrite.
	maxBody int64
}

// startProxy runs a proxy to up on loopback, logging JSON to the returned
// buffer.
func startProxy(t *testing.T, up *upstream, s setup) (*httptest.Server, *testutil.SyncBuffer) {
	t.Helper()
	if s.stateDir == "" {
		s.stateDir = filepath.Join(t.TempDir(), "state")
	}
	canary := -1
	if s.canary != nil {
		canary = *s.canary
	}
	logs := &testutil.SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: s.stateDir, Logger: log, RedactConversation: s.redact}, canary)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(up.srv.URL)
	// Condense older outputs to views of at most 8000 bytes (the
	// default for an Anthropic model in tight mode rejects views of
	// these outputs as too large for their allocation).
	p, err := proxy.New(proxy.Options{Upstream: u, Mode: s.mode, Flow: flow, Logger: log, Call: smart.Call{MaxToolOutput: 8000, Budget: s.budget}, Hints: s.hints, FullRecords: !s.lines, MaxBodyBytes: s.maxBody})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	p.SetPublicURL(srv.URL)
	t.Cleanup(srv.Close)
	return srv, logs
}

// post sends body to base+path as JSON with the headers hdr and returns
// the response with its body read.
func post(t *testing.T, base, path string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	return postFrom(t, base+path, bytes.NewReader(body), hdr)
}

// postFrom is post with the body read from r (the client sends one it
// cannot measure in chunks).
func postFrom(t *testing.T, target string, r io.Reader, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, target, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestLongConversationArrivesSmaller(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			up := newUpstream(t)
			px, logs := startProxy(t, up, setup{})
			body := convo(t, f.name, paysRounds, false)
			resp, answer := post(t, px.URL, f.path, body, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, answer)
			}
			if want := jsonAnswer(f.path, modelOf(t, body), up.usageOf(modelOf(t, up.last(t).Body), up.last(t).Body)); string(answer) != want {
				t.Errorf("answer relayed changed:\n got %s\nwant %s", answer, want)
			}
			got := up.last(t).Body
			if len(got) >= len(body)*3/4 {
				t.Errorf("upstream got %d bytes of %d: not smaller by a quarter", len(got), len(body))
			}
			if !json.Valid(got) {
				t.Fatal("upstream got invalid JSON")
			}
			checkPairs(t, got)
			in, out := items(t, body), items(t, got)
			if len(in) != len(out) {
				t.Errorf("items %d -> %d", len(in), len(out))
			}
			if !bytes.Equal(in[len(in)-1], out[len(out)-1]) {
				t.Errorf("latest user turn changed:\n in %s\nout %s", in[len(in)-1], out[len(out)-1])
			}
			if !bytes.Contains(got, []byte("[ctxd:ref sha256=")) || !bytes.Contains(got, []byte("or run: ctxd rehydrate --state-dir ")) || !bytes.Contains(got, []byte("or GET "+px.URL+"/ctxd/artifacts/")) {
				t.Errorf("upstream body has no reference saying how to read it back")
			}
			recs := records(t, logs, 1)
			if len(recs) != 1 {
				t.Fatalf("%d proxy_request records, want 1", len(recs))
			}
			r := recs[0]
			for k, want := range map[string]any{"applied": true, "rollout_mode": "optimize", "status": 200.0, "route": f.path, "session_source": "derived"} {
				if r[k] != want {
					t.Errorf("record %s = %v, want %v", k, r[k], want)
				}
			}
			for _, k := range []string{"estimated_tokens_before", "estimated_tokens_after", "pressure_band", "task_quality_repeated_tool_call_count", "task_quality_model_reread_requests", "observed_input_tokens", "proxy_overhead_us"} {
				if _, ok := r[k]; !ok {
					t.Errorf("record lacks %s", k)
				}
			}
			if r["observed_input_tokens"].(float64) != float64(up.usageOf(modelOf(t, got), got)) {
				t.Errorf("observed_input_tokens = %v, want the upstream's %d", r["observed_input_tokens"], up.usageOf(modelOf(t, got), got))
			}
		})
	}
}

func modelOf(t *testing.T, body []byte) string {
	var v struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	return v.Model
}

func TestPassThroughModes(t *testing.T) {
	zero := 0
	tests := []struct {
		name    string
		s       setup
		rollout string
	}{
		{"exact", setup{mode: smart.ModeExact}, ""},
		{"shadow", setup{mode: smart.ModeShadow}, "shadow"},
		{"canary out", setup{canary: &zero}, "canary_out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := newUpstream(t)
			px, logs := startProxy(t, up, tt.s)
			for _, f := range formats {
				// Odd spacing survives only byte for byte.
				body := append([]byte("  "), convo(t, f.name, paysRounds, false)...)
				body = append(body, "\n\n"...)
				resp, _ := post(t, px.URL, f.path, body, nil)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: status %d", f.name, resp.StatusCode)
				}
				if got := up.last(t).Body; !bytes.Equal(got, body) {
					t.Errorf("%s: upstream got %d bytes, not the %d sent byte for byte", f.name, len(got), len(body))
				}
			}
			recs := records(t, logs, 3)
			if len(recs) != 3 {
				t.Fatalf("%d records, want 3", len(recs))
			}
			if tt.rollout != "" && recs[0]["rollout_mode"] != tt.rollout {
				t.Errorf("rollout_mode %v, want %s", recs[0]["rollout_mode"], tt.rollout)
			}
			if tt.name == "shadow" && recs[0]["estimated_tokens_after"].(float64) >= recs[0]["estimated_tokens_before"].(float64) {
				t.Errorf("shadow computed no decisions: %v", recs[0])
			}
		})
	}
}

func TestStreamChunkByChunk(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			up := newUpstream(t)
			up.gate = make(chan struct{})
			px, _ := startProxy(t, up, setup{})
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, px.URL+f.path, bytes.NewReader(convo(t, f.name, 6, true)))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Fatalf("content type %q", ct)
			}
			want := sseAnswer(f.path, modelOf(t, convo(t, f.name, 6, true)), 0)
			br := bufio.NewReader(resp.Body)
			for i := range want {
				// Event i arrives while the upstream still holds event
				// i+1: nothing is buffered.
				ev := readEvent(t, br)
				if n := strings.Index(want[i], `"usage"`); n > 0 && !strings.HasPrefix(ev, want[i][:n]) || n < 0 && ev+"\n" != want[i] {
					t.Errorf("event %d = %q, want %q", i, ev, want[i])
				}
				if i < len(want)-1 {
					up.gate <- struct{}{}
				}
			}
		})
	}
}

// readEvent reads one server-sent event (up to its blank line).
func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var sb strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read event: %v (got %q)", err, sb.String())
		}
		if line == "\n" {
			return sb.String()
		}
		sb.WriteString(line)
	}
}

func TestUpstreamErrorsPassThrough(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			up := newUpstream(t)
			px, logs := startProxy(t, up, setup{})
			resp, body := post(t, px.URL, f.path, convo(t, f.name, 2, false), map[string]string{"X-Test-Status": "429"})
			if resp.StatusCode != 429 || string(body) != errorBody(f.path, 429) || resp.Header.Get("Retry-After") != "7" || resp.Header.Get("X-Request-Id") != "req_upstream_error" {
				t.Errorf("relayed %d %q (Retry-After %q), want the upstream's 429 unchanged", resp.StatusCode, body, resp.Header.Get("Retry-After"))
			}
			if r := records(t, logs, 1); len(r) != 1 || r[0]["status"] != 429.0 {
				t.Errorf("records %v", r)
			}
		})
	}
}

func TestHeadersReachUpstreamAndNeverTheLog(t *testing.T) {
	up := newUpstream(t)
	px, logs := startProxy(t, up, setup{})
	secrets := map[string]string{
		"Authorization":       "Bearer sk-proj-SECRET0123456789",
		"X-Api-Key":           "sk-ant-SECRET9876543210",
		"Anthropic-Version":   "2023-06-01",
		"Openai-Organization": "org-SECRETORG",
		"X-Ctxd-Session":      "hdr-session-1",
	}
	for _, f := range formats {
		resp, _ := post(t, px.URL, f.path, convo(t, f.name, 6, false), secrets)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", f.name, resp.StatusCode)
		}
		got := up.last(t).Header
		for k, v := range secrets {
			if k == "X-Ctxd-Session" {
				if got.Get(k) != "" {
					t.Errorf("%s: X-Ctxd-Session was forwarded", f.name)
				}
				continue
			}
			if got.Get(k) != v {
				t.Errorf("%s: upstream got %s = %q, want %q", f.name, k, got.Get(k), v)
			}
		}
	}
	// Another path passes through too, with its query.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, px.URL+"/v1/models?limit=2", nil)
	req.Header.Set("Authorization", secrets["Authorization"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := up.last(t); r.Path != "/v1/models" || r.Query != "limit=2" || r.Header.Get("Authorization") != secrets["Authorization"] {
		t.Errorf("GET /v1/models reached upstream as %+v", r)
	}
	log := logs.String()
	for k, v := range secrets {
		if k != "X-Ctxd-Session" && k != "Anthropic-Version" && strings.Contains(log, v) {
			t.Errorf("the log contains the %s value", k)
		}
	}
	for _, r := range records(t, logs, 3) {
		if r["session_id"] != "hdr-session-1" || r["session_source"] != "header" {
			t.Errorf("record session %v (%v), want the header's", r["session_id"], r["session_source"])
		}
	}
	if strings.Contains(log, "pkg3 & keep") || strings.Contains(log, "func alpha") {
		t.Errorf("the log contains request text")
	}
}

// TestFailsClosed: a request whose ctxd references cannot be read or
// resolved, or that names a bad session, is answered by the proxy and
// never forwarded (TestStepsAside has the requests that are forwarded
// unmodified instead).
func TestFailsClosed(t *testing.T) {
	up := newUpstream(t)
	px, logs := startProxy(t, up, setup{})
	for _, tc := range []struct {
		path, body string
		hdr        map[string]string
		want       int
	}{
		{"/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"[ctxd:ref sha256=0123456789ab"}`, nil, 400},
		{"/v1/messages", `["not","a","request","[ctxd:ref sha256=0123456789ab]"]`, nil, 400},
		{"/v1/responses", `{"model":"gpt-4o","input":[{"type":"function_call_output","call_id":"x","output":"o"}]}`, map[string]string{"X-Ctxd-Session": "../../etc"}, 400},
	} {
		resp, body := post(t, px.URL, tc.path, []byte(tc.body), tc.hdr)
		var e struct {
			Error struct {
				Type, Message string
			}
		}
		if resp.StatusCode != tc.want || json.Unmarshal(body, &e) != nil || !strings.HasPrefix(e.Error.Type, "ctxd_") || !strings.Contains(e.Error.Message, "ctxd proxy") {
			t.Errorf("%s %s: %d %s", tc.path, tc.body, resp.StatusCode, body)
		}
	}
	if n := len(up.requests()); n != 0 {
		t.Errorf("the upstream received %d requests that could not be made safe", n)
	}
	if r := records(t, logs, 3); len(r) != 3 || r[0]["failed_closed"] == nil {
		t.Errorf("records %v", r)
	}
}

func TestUsageCalibratesNextRequest(t *testing.T) {
	up := newUpstream(t)
	px, logs := startProxy(t, up, setup{})
	for range 2 {
		post(t, px.URL, "/v1/chat/completions", convo(t, "chat", 6, true), map[string]string{"X-Ctxd-Session": "usage-1"})
	}
	recs := records(t, logs, 2)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	first := recs[0]["observed_input_tokens"].(float64)
	if first == 0 {
		t.Fatalf("no usage observed from the stream")
	}
	if got := recs[1]["observed_context_tokens"].(float64); got != first {
		t.Errorf("second request's observed_context_tokens = %v, want the first's observed %v", got, first)
	}
	resp, err := http.Get(px.URL + "/ctxd/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Models map[string]proxy.ModelUsage `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if m := st.Models["gpt-4o"]; m.Requests != 2 || m.Observed != 2 || m.Ratio <= 0 {
		t.Errorf("stats = %+v", st.Models)
	}
}

// TestObservedRatioCalibratesPressure: the usage the upstream reports
// for a model calibrates the estimates of that model's later requests.
// The fake provider counts twice the tokens ctxd's estimator does
// (a byte per two tokens' worth of text); after one answer, a request
// of another conversation (so no session observation is involved) of
// the same size is under more pressure, in a harder band, and is
// condensed where the first was not.
func TestObservedRatioCalibratesPressure(t *testing.T) {
	body := convo(t, "chat", proxy.DefaultMaskHorizon, false) // within the masking horizon: only pressure rewrites it
	shadow, err := smart.New(smart.Options{}).Optimize(t.Context(), body, smart.Call{Mode: smart.ModeShadow, Session: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	est := shadow.Report.EstimatedTokensBefore
	up := newUpstream(t)
	up.bytesPerToken = 2
	// 40% pressure uncalibrated: the low band, lossless rewrites only.
	px, logs := startProxy(t, up, setup{budget: est * 5 / 2})
	post(t, px.URL, "/v1/chat/completions", body, map[string]string{"X-Ctxd-Session": "cal-1"})
	post(t, px.URL, "/v1/chat/completions", body, map[string]string{"X-Ctxd-Session": "cal-2"})
	recs := records(t, logs, 2)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	first, second := recs[0], recs[1]
	ratio := float64(len(body)/2) / float64(est)
	if first["estimate_calibration_ratio"] != 0.0 || first["pressure_band"] != smart.BandLow {
		t.Errorf("first request: ratio %v band %v, want no calibration, low band", first["estimate_calibration_ratio"], first["pressure_band"])
	}
	got, _ := second["estimate_calibration_ratio"].(float64)
	if d := got - ratio; d < -0.01 || d > 0.01 {
		t.Errorf("second request's estimate_calibration_ratio = %v, want the first's observed/estimated %.3f", got, ratio)
	}
	p1, p2 := first["pressure_basis_points"].(float64), second["pressure_basis_points"].(float64)
	if want := p1 * ratio; p2 < want-2 || p2 > want+2 {
		t.Errorf("second pressure %v bp, want the first's %v × %.3f = %.0f", p2, p1, ratio, want)
	}
	if second["pressure_band"] == smart.BandLow || second["observed_context_tokens"] != 0.0 {
		t.Errorf("second request: band %v observed_context_tokens %v, want a harder band from calibration alone", second["pressure_band"], second["observed_context_tokens"])
	}
	if rs, _ := second["policy_reasons"].([]any); !containsAny(rs, "estimate_calibrated_by_observed_ratio") {
		t.Errorf("second request's policy_reasons %v", rs)
	}
	reqs := up.requests()
	if len(reqs[1].Body) >= len(reqs[0].Body) || second["tool_outputs_condensed"].(float64) == 0 {
		t.Errorf("upstream bodies %d then %d bytes, %v outputs condensed: calibration did not change the policy", len(reqs[0].Body), len(reqs[1].Body), second["tool_outputs_condensed"])
	}
}

func containsAny(xs []any, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// TestHints: --hints chooses what references say; every choice keeps
// the references parseable and the estimate smaller with fewer hints.
func TestHints(t *testing.T) {
	body := convo(t, "chat", paysRounds, false)
	after := map[proxy.Hints]float64{}
	for _, tc := range []struct {
		hints        proxy.Hints
		command, get bool
	}{
		{proxy.HintsAll, true, true},
		{proxy.HintsCommand, true, false},
		{proxy.HintsGet, false, true},
		{proxy.HintsNone, false, false},
	} {
		up := newUpstream(t)
		px, logs := startProxy(t, up, setup{hints: tc.hints, budget: 80000}) // outputs condensed behind references, no eviction; at 40,000-50,000 a ledger filled to its 4% bound absorbs the hints' length (50,000 failed 2 of 8 runs: the GET hint holds the port), 80,000 passed 28 of 28
		post(t, px.URL, "/v1/chat/completions", body, nil)
		got := up.last(t).Body
		if !bytes.Contains(got, []byte("[ctxd:ref sha256=")) {
			t.Fatalf("%s: no reference", tc.hints)
		}
		if c, g := bytes.Contains(got, []byte(", or run: ctxd rehydrate ")), bytes.Contains(got, []byte(", or GET "+px.URL+"/ctxd/artifacts/")); c != tc.command || g != tc.get {
			t.Errorf("%s: command hint %v, GET hint %v", tc.hints, c, g)
		}
		after[tc.hints] = records(t, logs, 1)[0]["estimated_tokens_after"].(float64)
	}
	if !(after[proxy.HintsNone] < after[proxy.HintsGet] && after[proxy.HintsGet] < after[proxy.HintsAll] && after[proxy.HintsCommand] < after[proxy.HintsAll]) {
		t.Errorf("estimates after by hints: %v", after)
	}
	if _, err := proxy.ParseHints("some"); err == nil {
		t.Error("ParseHints accepted an unknown choice")
	}
}

func TestUsageFromGzipAnswer(t *testing.T) {
	up := newUpstream(t)
	up.gzip = true
	px, logs := startProxy(t, up, setup{})
	resp, zb := post(t, px.URL, "/v1/messages", convo(t, "anthropic", 6, false), map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the gzip answer was not relayed as it came: %v", resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if !json.Valid(b) {
		t.Errorf("relayed gzip body does not decode to JSON")
	}
	recs := records(t, logs, 1)
	if len(recs) != 1 || recs[0]["observed_input_tokens"].(float64) != float64(up.usageOf(modelOf(t, up.last(t).Body), up.last(t).Body)) {
		t.Errorf("usage of a gzip answer not observed: %v", recs)
	}
}

// TestUpstreamErrorsFeedQualityProxies: an upstream's
// previous-response-not-found error is counted on the next request of
// the conversation, and its kind is in the failing request's record.
func TestUpstreamErrorsFeedQualityProxies(t *testing.T) {
	up := newUpstream(t)
	px, logs := startProxy(t, up, setup{})
	body := convo(t, "responses", 6, false)
	hdr := map[string]string{"X-Ctxd-Session": "q-1", "X-Test-Status": "400",
		"X-Test-Error": `{"error":{"message":"Previous response with id 'resp_x' not found.","type":"invalid_request_error","code":"previous_response_not_found"}}`}
	post(t, px.URL, "/v1/responses", body, hdr)
	post(t, px.URL, "/v1/responses", body, map[string]string{"X-Ctxd-Session": "q-1"})
	recs := records(t, logs, 2)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	if recs[0]["upstream_error_kind"] != "previous_response_not_found" {
		t.Errorf("first record's upstream_error_kind = %v", recs[0]["upstream_error_kind"])
	}
	if recs[1]["task_quality_previous_response_not_found"] != 1.0 {
		t.Errorf("second record's task_quality_previous_response_not_found = %v, want 1", recs[1]["task_quality_previous_response_not_found"])
	}
}

// TestInvalidContinuationForwardsNextRequestWhole: after the upstream
// refuses a request for its tool-call continuation, the session's next
// request is forwarded as the agent sent it (and says why), and the one
// after that is rewritten again.
func TestInvalidContinuationForwardsNextRequestWhole(t *testing.T) {
	up := newUpstream(t)
	px, logs := startProxy(t, up, setup{budget: 40000})
	body := convo(t, "chat", 6, false)
	bad := map[string]string{"X-Ctxd-Session": "ic-1", "X-Test-Status": "400",
		"X-Test-Error": `{"error":{"message":"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.","type":"invalid_request_error","param":"messages","code":null}}`}
	post(t, px.URL, "/v1/chat/completions", body, bad)
	post(t, px.URL, "/v1/chat/completions", body, map[string]string{"X-Ctxd-Session": "ic-1"})
	post(t, px.URL, "/v1/chat/completions", body, map[string]string{"X-Ctxd-Session": "ic-1"})
	recs := records(t, logs, 3)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	reqs := up.requests()
	if recs[0]["upstream_error_kind"] != "invalid_continuation" || len(reqs[0].Body) >= len(body) {
		t.Errorf("first: kind %v, %d of %d bytes upstream", recs[0]["upstream_error_kind"], len(reqs[0].Body), len(body))
	}
	rs, _ := recs[1]["policy_reasons"].([]any)
	if !bytes.Equal(reqs[1].Body, body) || recs[1]["task_quality_invalid_tool_call_continuation"] != 1.0 || !containsAny(rs, "full_request_fallback_upstream_invalid_continuation") {
		t.Errorf("second: forwarded whole %v, invalid continuation %v, reasons %v", bytes.Equal(reqs[1].Body, body), recs[1]["task_quality_invalid_tool_call_continuation"], rs)
	}
	if len(reqs[2].Body) >= len(body) || recs[2]["applied"] != true {
		t.Errorf("third: %d of %d bytes, applied %v", len(reqs[2].Body), len(body), recs[2]["applied"])
	}
}

// TestStepsAside: when the proxy cannot improve a request safely it
// forwards the original bytes and the agent sees the provider's answer:
// a body it cannot read, a request over the window (the provider's own
// context-length error), a state directory it cannot write.
func TestStepsAside(t *testing.T) {
	up := newUpstream(t)
	state := filepath.Join(t.TempDir(), "state")
	px, logs := startProxy(t, up, setup{stateDir: state, budget: 300})
	big := strings.Repeat("the quick brown fox jumps over the lazy dog ", 2000)
	tool := strings.Repeat("line of build output that goes on\n", 400)
	msgs := []map[string]any{{"role": "user", "content": "run the build"}}
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "sh", "arguments": `{"cmd":"make"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": tool})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "what failed?"})
	withTools, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
	overWindow, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": "user", "content": big}}})
	bodies := []struct {
		name string
		body []byte
		prep func()
	}{
		{"not JSON", []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}`), nil},
		{"not a request", []byte(`["not","a","request"]`), nil},
		{"over the window", overWindow, nil},
		{"state dir unwritable", withTools, func() {
			// As root, permissions do not stop a write: a file where the
			// artifacts folder goes does.
			if err := os.RemoveAll(filepath.Join(state, "artifacts")); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(state, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(state, "artifacts"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tc := range bodies {
		t.Run(tc.name, func(t *testing.T) {
			if tc.prep != nil {
				tc.prep()
			}
			resp, body := post(t, px.URL, "/v1/chat/completions", tc.body, nil)
			if resp.Header.Get("X-Ctxd-Error") != "" {
				t.Fatalf("the proxy answered itself: %d %s", resp.StatusCode, body)
			}
			reqs := up.requests()
			if len(reqs) != i+1 || !bytes.Equal(reqs[i].Body, tc.body) {
				t.Fatalf("the original body was not forwarded (%d requests upstream)", len(reqs))
			}
		})
	}
	for _, r := range records(t, logs, len(bodies)) {
		if reason, _ := r["proxy_reason"].(string); r["failed_closed"] != nil || !strings.HasPrefix(reason, "stepped_aside_") {
			t.Errorf("record %v: not stepped aside", r)
		}
	}
}
