package proxy

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/compact/smart"
)

// observerKey carries a model request's observer to ModifyResponse.
type observerKey struct{}

// Bounds of what the observer keeps of a response: a JSON body for its
// usage, an error body for its kind, an SSE line.
const (
	maxJSONKeep  = 8 << 20
	maxErrorKeep = 64 << 10
	maxLineKeep  = 1 << 20
)

// observer watches a relayed response for the upstream's usage and error
// kind, without holding up the bytes: it sees a copy of each chunk after
// the chunk has been handed on.
type observer struct {
	mu        sync.Mutex
	status    int
	stream    bool
	gzip      bool
	firstByte time.Duration
	bytes     int
	buf       []byte // JSON body or error body (bounded)
	line      []byte // partial SSE line
	input     int    // input tokens reported
	model     string // model the upstream reported
	window    int    // context window an upstream context-length error named
	// unreachable: the upstream could not be reached (the proxy answered
	// 502 itself).
	unreachable bool
	// clientGone: the client went away before the response was relayed
	// whole (status is the upstream's, or 499 before it answered).
	clientGone bool
}

// watch is ModifyResponse: it wraps the body of a model response.
func (p *Proxy) watch(resp *http.Response) error {
	obs, _ := resp.Request.Context().Value(observerKey{}).(*observer)
	if obs == nil {
		return nil
	}
	obs.mu.Lock()
	obs.status = resp.StatusCode
	obs.stream = strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	obs.gzip = strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip")
	obs.mu.Unlock()
	resp.Body = &watchedBody{rc: resp.Body, obs: obs}
	return nil
}

type watchedBody struct {
	rc  io.ReadCloser
	obs *observer
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.obs.see(p[:n])
	}
	return n, err
}

func (b *watchedBody) Close() error { return b.rc.Close() }

// see takes a copy of a chunk of the response.
func (o *observer) see(chunk []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bytes += len(chunk)
	switch {
	case o.status >= 400:
		o.buf = appendBounded(o.buf, chunk, maxErrorKeep)
	case o.stream && !o.gzip:
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				o.line = appendBounded(o.line, chunk, maxLineKeep)
				return
			}
			o.line = appendBounded(o.line, chunk[:i], maxLineKeep)
			o.sseLine(o.line)
			o.line = o.line[:0]
			chunk = chunk[i+1:]
		}
	case !o.stream:
		o.buf = appendBounded(o.buf, chunk, maxJSONKeep)
	}
}

func appendBounded(dst, src []byte, limit int) []byte {
	if room := limit - len(dst); room < len(src) {
		src = src[:max(room, 0)]
	}
	return append(dst, src...)
}

// sseLine reads the usage of a "data:" line of an event stream (OpenAI
// chat chunks with usage, Anthropic message_start and message_delta,
// Responses response.completed).
func (o *observer) sseLine(line []byte) {
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
	if !ok || !bytes.Contains(data, []byte(`"usage"`)) {
		return
	}
	o.usage(bytes.TrimSpace(data))
}

// usage reads input tokens (and the model) from a response object or
// event.
func (o *observer) usage(b []byte) {
	var v struct {
		Model   string     `json:"model"`
		Usage   *usageJSON `json:"usage"`
		Message *struct {
			Model string     `json:"model"`
			Usage *usageJSON `json:"usage"`
		} `json:"message"`
		Response *struct {
			Model string     `json:"model"`
			Usage *usageJSON `json:"usage"`
		} `json:"response"`
	}
	if json.Unmarshal(b, &v) != nil {
		return
	}
	take := func(model string, u *usageJSON) {
		if model != "" {
			o.model = model
		}
		if u != nil {
			o.input = max(o.input, u.input())
		}
	}
	take(v.Model, v.Usage)
	if v.Message != nil {
		take(v.Message.Model, v.Message.Usage)
	}
	if v.Response != nil {
		take(v.Response.Model, v.Response.Usage)
	}
}

// usageJSON is the usage object of the three APIs.
type usageJSON struct {
	PromptTokens        int `json:"prompt_tokens"`
	InputTokens         int `json:"input_tokens"`
	CacheReadTokens     int `json:"cache_read_input_tokens"`
	CacheCreationTokens int `json:"cache_creation_input_tokens"`
}

// input is the request's whole input: OpenAI's prompt_tokens or
// input_tokens (cached tokens included), Anthropic's input_tokens plus
// the cache reads and writes (which it counts apart).
func (u *usageJSON) input() int {
	return u.PromptTokens + u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// close finishes reading a non-stream body and classifies an error.
func (o *observer) close() (errKind string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	body := o.buf
	if o.gzip && len(body) > 0 {
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
			if b, err := io.ReadAll(io.LimitReader(zr, maxJSONKeep)); err == nil {
				body = b
			}
		}
	}
	if o.status == statusClientClosed && o.clientGone {
		return "" // no upstream error: the client left first
	}
	if o.status >= 400 {
		kind := errorKind(body)
		if kind == errContext {
			o.window = reportedWindow(body)
		}
		return kind
	}
	if !o.stream && len(body) > 0 {
		o.usage(body)
	}
	return ""
}

// Upstream error kinds the quality proxies count.
const (
	errContext          = "context_length"
	errPrevNotFound     = "previous_response_not_found"
	errInvalidContinues = "invalid_continuation"
	errOther            = "other"
)

// errorKind classifies an upstream error body.
func errorKind(body []byte) string {
	s := strings.ToLower(string(body))
	switch {
	case strings.Contains(s, "previous_response_not_found"), strings.Contains(s, "previous response") && strings.Contains(s, "not found"):
		return errPrevNotFound
	case strings.Contains(s, "context_length_exceeded"), strings.Contains(s, "maximum context length"), strings.Contains(s, "prompt is too long"), strings.Contains(s, "context window"):
		return errContext
	case strings.Contains(s, "tool_result"), strings.Contains(s, "tool_use_id"), strings.Contains(s, "tool_call_id"),
		strings.Contains(s, "no tool output found"), strings.Contains(s, "must be followed by tool messages"):
		return errInvalidContinues
	}
	return errOther
}

// windowPatterns read the window a context-length error names: OpenAI's
// "maximum context length is N tokens", Anthropic's "prompt is too long:
// U tokens > N maximum" and "exceed context limit: U + M > N".
var windowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`maximum context length is (\d{3,9}) tokens`),
	regexp.MustCompile(`\d+ tokens > (\d{3,9}) maximum`),
	regexp.MustCompile(`exceed context limit: \d+ \+ \d+ > (\d{3,9})`),
}

// reportedWindow is the context window an upstream error body names, 0
// when it names none: evidence of the model's window, used for later
// requests of a model the registry does not know.
func reportedWindow(body []byte) int {
	for _, re := range windowPatterns {
		if m := re.FindSubmatch(body); m != nil {
			if n, err := strconv.Atoi(string(m[1])); err == nil && n >= 1024 {
				return n
			}
		}
	}
	return 0
}

// finish records what the response said (usage, errors) and logs the
// request's record.
func (p *Proxy) finish(rec *record, obs *observer, start time.Time) {
	rec.UpstreamErrorKind = obs.close()
	obs.mu.Lock()
	rec.Status, rec.Stream, rec.ResponseBytes, rec.ObservedInputTokens = obs.status, obs.stream, obs.bytes, obs.input
	rec.Unreachable, rec.ClientGone = obs.unreachable, obs.clientGone
	if rec.Model == "" {
		rec.Model = obs.model
	}
	window := obs.window
	obs.mu.Unlock()
	rec.TotalMillis = time.Since(start).Milliseconds()

	p.statsMu.Lock()
	model := rec.Model
	if model == "" {
		model = "unknown"
	}
	mu := p.models[model]
	if mu == nil {
		mu = &ModelUsage{Ratio: 1}
		p.models[model] = mu
	}
	mu.Requests++
	if est := sentEstimate(rec.Report); rec.ObservedInputTokens > 0 && est > 0 {
		mu.Observed++
		mu.ObservedTokens += int64(rec.ObservedInputTokens)
		mu.EstimatedTokens += int64(est)
		mu.Ratio = float64(mu.ObservedTokens) / float64(mu.EstimatedTokens)
	}
	rec.CalibrationRatio = mu.Ratio
	if window > 0 {
		mu.Window = window
	}
	if rec.Session != "" {
		st := p.session(rec.Session)
		if rec.ObservedInputTokens > 0 {
			st.lastObserved = rec.ObservedInputTokens
		}
		switch rec.UpstreamErrorKind {
		case errContext:
			st.feedback.UpstreamContextErrors++
		case errPrevNotFound:
			st.feedback.PreviousResponseNotFound++
		case errInvalidContinues:
			st.feedback.UpstreamInvalidContinuation++
		}
	}
	p.statsMu.Unlock()
	p.logRecord(rec)
}

// logRecord logs a request: one short line at info level, and the full
// record (every field, for machines) at debug level, or at info level
// too when Options.FullRecords is set (a JSON log file).
func (p *Proxy) logRecord(rec *record) {
	ctx := context.Background()
	full := slog.LevelDebug
	if p.opts.FullRecords {
		full = levelInfo
	} else {
		p.log.LogAttrs(ctx, levelInfo, rec.line())
	}
	p.log.LogAttrs(ctx, full, recordMessage, rec.attrs()...)
}

// line is the record as one short line for a person: status (or why
// there is none), model, estimated tokens in -> out and the share saved,
// latency, whether the forwarded prefix is the one sent last time
// (provider caches hold), the window and its source.
func (r *record) line() string {
	var b strings.Builder
	switch {
	case r.Unreachable:
		b.WriteString("upstream unreachable (502)")
	case r.ClientGone && r.Status == statusClientClosed:
		b.WriteString("client gone (499)")
	case r.Failed != "":
		fmt.Fprintf(&b, "refused %d %s", r.Status, r.Failed)
	default:
		fmt.Fprintf(&b, "%d", r.Status)
	}
	model := r.Model
	if model == "" {
		model = "-"
	}
	fmt.Fprintf(&b, " %s %s", strings.TrimPrefix(r.Route, "/v1/"), model)
	if rep := r.Report; rep != nil {
		in, out := rep.EstimatedTokensBefore, sentEstimate(rep)
		saved := 0
		if in > 0 {
			saved = int(math.Round(float64(in-out) * 100 / float64(in)))
		}
		fmt.Fprintf(&b, " tokens %d -> %d saved %d%%", in, out, saved)
		if would := rep.EstimatedTokensAfter; r.Mode == string(smart.ModeShadow) && !rep.Applied && would > 0 && would != in && in > 0 {
			// Shadow mode forwards the original: say what optimize would
			// have forwarded, the point of running it.
			fmt.Fprintf(&b, " (shadow: would be %d, saved %d%%)", would, int(math.Round(float64(in-would)*100/float64(in))))
		}
	} else {
		fmt.Fprintf(&b, " bytes %d (%s)", r.BytesIn, cmp.Or(r.Reason, r.Mode))
	}
	fmt.Fprintf(&b, " %dms", r.TotalMillis)
	if r.CacheStable != "" {
		fmt.Fprintf(&b, " cache-stable %s", map[string]string{"yes": "yes", "no": "no", "new": "new-session"}[r.CacheStable])
	}
	if rep := r.Report; rep != nil {
		if rep.ModelContextWindowSource == smart.WindowNone {
			b.WriteString(" window none")
		} else {
			fmt.Fprintf(&b, " window %d (%s)", rep.ModelContextWindowTokens, rep.ModelContextWindowSource)
		}
	}
	if r.UpstreamErrorKind != "" {
		fmt.Fprintf(&b, " upstream-error %s", r.UpstreamErrorKind)
	}
	if r.ClientGone && r.Status != statusClientClosed {
		b.WriteString(" client-gone mid-response")
	}
	if r.Session != "" {
		fmt.Fprintf(&b, " session %s", r.Session)
	}
	return b.String()
}

// sentEstimate is the estimated tokens of the body that went upstream:
// the rewrite's when it was applied, else the original's (shadow,
// canary-out, nothing saved). 0 without a report (exact mode).
func sentEstimate(rep *smart.Report) int {
	switch {
	case rep == nil:
		return 0
	case rep.Applied:
		return rep.EstimatedTokensAfter
	}
	return rep.EstimatedTokensBefore
}

// estimateRatio is the calibration of a model's estimates the next
// request gets (smart.Call.EstimateRatio): its observed/estimated ratio
// once the upstream has reported usage for it, 0 before, and 0 when the
// ratio is out of smart's bounds (a count that cannot be a calibration,
// which the log and /ctxd/stats still show). The caller holds statsMu.
func (p *Proxy) estimateRatio(model string) float64 {
	if model == "" {
		return 0
	}
	mu := p.models[model]
	if mu == nil || mu.Observed == 0 || mu.Ratio < smart.MinEstimateRatio || mu.Ratio > smart.MaxEstimateRatio {
		return 0
	}
	return mu.Ratio
}

// The per-request record.
const (
	recordMessage = "proxy_request"
	levelInfo     = slog.LevelInfo
)

// record is one request's log record. It never holds bodies or headers.
type record struct {
	Route               string
	Mode                string
	Reason              string
	Session             string
	SessionSource       string
	Model               string
	Status              int
	Failed              string
	Stream              bool
	BytesIn, BytesOut   int
	ResponseBytes       int
	OverheadMicros      int64
	TotalMillis         int64
	ObservedInputTokens int
	CalibrationRatio    float64
	ArtifactReads       int
	UpstreamErrorKind   string
	// Unreachable: the upstream could not be reached.
	Unreachable bool
	// ClientGone: the client went away before the response was relayed
	// whole (Status 499: before the upstream answered).
	ClientGone bool
	// CacheStable is "yes" when what went upstream last time in the
	// session is a byte prefix of what went now, "no" when not, "new"
	// for a session's first request, "" when not known.
	CacheStable string
	Report      *smart.Report
}

func (r *record) attrs() []slog.Attr {
	a := []slog.Attr{
		slog.String("route", r.Route),
		slog.String("proxy_mode", r.Mode),
		slog.String("session_id", r.Session),
		slog.String("session_source", r.SessionSource),
		slog.String("model", r.Model),
		slog.Int("status", r.Status),
		slog.Bool("stream", r.Stream),
		slog.Int("request_bytes_in", r.BytesIn),
		slog.Int("request_bytes_upstream", r.BytesOut),
		slog.Int("response_bytes", r.ResponseBytes),
		slog.Int64("proxy_overhead_us", r.OverheadMicros),
		slog.Int64("total_ms", r.TotalMillis),
		slog.Int("observed_input_tokens", r.ObservedInputTokens),
		slog.Float64("observed_over_estimated", r.CalibrationRatio),
		slog.Int("task_quality_artifact_reads", r.ArtifactReads),
		slog.String("upstream_error_kind", r.UpstreamErrorKind),
	}
	if r.Unreachable {
		a = append(a, slog.Bool("upstream_unreachable", true))
	}
	if r.ClientGone {
		a = append(a, slog.Bool("client_gone", true))
	}
	if r.CacheStable != "" {
		a = append(a, slog.String("cache_stable", r.CacheStable))
	}
	if r.Reason != "" {
		a = append(a, slog.String("proxy_reason", r.Reason))
	}
	if r.Failed != "" {
		a = append(a, slog.String("failed_closed", r.Failed))
	}
	if r.Report != nil {
		a = append(a, telemetryAttrs(r.Report)...)
	}
	return a
}

// telemetryAttrs are the Smart Context report's telemetry fields, keys as
// in its JSON form (docs/smart-context.md), in key order.
func telemetryAttrs(rep *smart.Report) []slog.Attr {
	b, err := json.Marshal(rep.Telemetry)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	a := make([]slog.Attr, 0, len(m)+3)
	a = append(a, slog.Bool("applied", rep.Applied), slog.Bool("fits", rep.Fits), slog.Int64("rewrite_overhead_us", rep.OverheadMicros))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		a = append(a, slog.Any(k, m[k]))
	}
	return a
}
