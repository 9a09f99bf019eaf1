// Package proxy is ctxd's model proxy (`ctxd proxy`): an HTTP reverse
// proxy between an agent and its model provider that applies Smart
// Context (compact/smart, through engine.Requests) to the body of every
// POST /v1/chat/completions, /v1/responses and /v1/messages before
// forwarding it, and forwards everything else unchanged.
//
// What it promises:
//   - headers (Authorization, x-api-key, anthropic-version, ...) reach the
//     upstream untouched (hop-by-hop headers aside, and X-Ctxd-* headers,
//     which are the proxy's) and are never logged;
//   - responses, server-sent-event streams included, are relayed as they
//     arrive, flushed per write; upstream errors are relayed unchanged;
//   - exact mode and canary-out requests are forwarded byte for byte;
//     shadow mode computes the decisions and the telemetry and forwards
//     the original;
//   - a session per conversation (the X-Ctxd-Session header, else derived
//     from the conversation's first items) scopes the artifact store in
//     the state directory, so references of earlier turns resolve after a
//     restart; every reference says how to read it back (`ctxd rehydrate`
//     and GET /ctxd/artifacts/{session}/{hash}?lines=a-b on the proxy),
//     written by the optimizer into the marker (smart.Call.Retrieval);
//   - the upstream's reported input tokens are recorded per model and per
//     session: the session's last observation feeds the next request's
//     pressure (smart.Call.ObservedInputTokens); the per-model ratio of
//     observed to estimated tokens calibrates the estimates of that
//     model's later requests (smart.Call.EstimateRatio) and is in the log
//     and at GET /ctxd/stats;
//   - one structured log record per request (message "proxy_request")
//     with the Smart Context telemetry and the quality proxies seen in
//     traffic;
//   - a request Smart Context cannot make safe fails closed with an HTTP
//     error; a broken body is never forwarded.
//
// docs/proxy.md has the setup for agents.
package proxy

import (
	"errors"
	"fmt"
	"github.com/ctxd/ctxd/internal/heapgoal"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
)

// The routes Smart Context applies to.
const (
	RouteChat      = "/v1/chat/completions"
	RouteResponses = "/v1/responses"
	RouteMessages  = "/v1/messages"
)

// HeaderSession names the conversation's session; it is not forwarded.
const HeaderSession = "X-Ctxd-Session"

// DefaultMaxBodyBytes is the largest request body the proxy reads to
// rewrite when Options.MaxBodyBytes is 0. A request holds at most about
// four times its body at its peak (BENCHMARKS.md, "h28bounds").
const DefaultMaxBodyBytes = 256 << 20

// Options configure a [Proxy].
type Options struct {
	// Upstream is the provider's base URL (scheme and host, optionally a
	// path prefix); request paths are appended to it.
	Upstream *url.URL
	// Mode is optimize (the default), shadow or exact.
	Mode smart.Mode
	// Flow is the request flow (optimizer and artifact store); see
	// NewFlowWith.
	Flow *Flow
	// Call holds defaults for every request's Smart Context call
	// (context window, budget, max tool output, masking); Session, Mode
	// and ObservedInputTokens are set per request. MaskHorizon, MaskStep,
	// MaskBig, MaskBigHorizon and MaskLong 0 take DefaultMaskHorizon,
	// DefaultMaskStep (with MaskPaced), DefaultMaskBig,
	// DefaultMaskBigHorizon and DefaultMaskLong; negative turns masking
	// (stepping, the size rule, condensing of long outputs) off.
	Call smart.Call
	// Hints is how references say to read them back (the zero value
	// is HintsAll).
	Hints Hints
	// PublicURL is the proxy's own base URL as agents reach it, used in
	// the rehydration hint of references ("http://127.0.0.1:8787").
	PublicURL string
	// Transport sends upstream requests; nil is http.DefaultTransport.
	Transport http.RoundTripper
	// Logger receives one short info line per request and the full
	// record at debug level; never bodies or headers. nil discards.
	Logger *slog.Logger
	// FullRecords logs the full record at info level instead of the
	// short line (for a JSON log file read by machines).
	FullRecords bool
	// MaxBodyBytes is the largest body read to rewrite (0:
	// DefaultMaxBodyBytes); a larger one is refused with 413. Bodies
	// the proxy does not rewrite (exact mode, a compressed body, other
	// routes) stream through whatever their size.
	MaxBodyBytes int64
	// HeapGoal, when set, keeps the runtime's soft memory limit near the
	// idle process plus a multiple of the bodies being rewritten (the
	// command sets one unless GOMEMLIMIT is set; see internal/heapgoal).
	HeapGoal *heapgoal.Goal
}

// The masking defaults of the proxy (smart.Call.MaskHorizon, MaskStep,
// MaskBig, MaskBigHorizon, MaskPaced, MaskLong). Tool outputs beyond the
// latest DefaultMaskHorizon are masked before any pressure, and outputs
// over DefaultMaskBig tokens once DefaultMaskBigHorizon outputs follow
// them; a step may come at any output (DefaultMaskStep), each masking
// the due outputs from its cheapest cut on (a small old output waits
// until its rewrite is worth it). Published evidence of an unchanged
// solve rate (observation masking in SWE-agent, "The Complexity Trap",
// 2025) keeps the latest 10 turns' observations whole but keeps nothing
// of older ones; a masked output here keeps its head, critical lines,
// locations and a reference. The rule is by size and by what the agent
// is working on (BENCHMARKS.md, "h26bill2" and "h26anth2"): a log, run,
// search or listing of over 300 tokens is whole in the request it
// arrives in and masked from one output old (its errors, failing tests
// and locations stay in the masked view); a file read stays whole while
// its file is in play (one of the latest [smart.ReadInPlay] calls names
// it, its own included, or an error they report does: it is never
// masked younger than that), up to four outputs; a smaller output stays
// whole for four. What they bill against
// pass-through, how much of the latest outputs they mask and which
// signals stay in view are measured by the turn-by-turn replay, not
// restated here: docs/proxy.md ("Why these defaults") and the latest
// replay in BENCHMARKS.md.
// --mask-horizon, --mask-step, --mask-big, --mask-big-horizon,
// --mask-paced and --mask-long set them per proxy.
const (
	DefaultMaskHorizon = 4
	// DefaultMaskStep: with pacing a step may come at any output; the
	// cheapest cut decides whether one is worth its rewrite.
	DefaultMaskStep = 1
	// DefaultMaskBig and DefaultMaskBigHorizon: an output over 300 tokens
	// (a log or listing of about 30 lines or more) is masked from 1
	// output old; a file read of that size only once the agent moved
	// away from it, from 2 old at the earliest.
	DefaultMaskBig        = 300
	DefaultMaskBigHorizon = 1
	// DefaultMaskLong: a tool output over this many tokens is condensed
	// from the turn it appears (smart.Call.MaskLong), except the first
	// DefaultMaskHorizon of a session and file reads.
	DefaultMaskLong = 1000
)

// Proxy is the model proxy. It is an http.Handler, safe for concurrent
// use.
type Proxy struct {
	opts Options
	log  *slog.Logger
	rp   *httputil.ReverseProxy
	mux  *http.ServeMux
	now  func() time.Time

	// statsMu guards models and sessions.
	statsMu  sync.Mutex
	models   map[string]*ModelUsage
	sessions map[string]*sessionStats
}

// ModelUsage is the observed token accounting of one model.
type ModelUsage struct {
	Requests int `json:"requests"`
	// Observed counts requests whose response reported input tokens.
	Observed        int   `json:"observed"`
	ObservedTokens  int64 `json:"observed_input_tokens"`
	EstimatedTokens int64 `json:"estimated_input_tokens"`
	// Ratio is ObservedTokens / EstimatedTokens over the observed
	// requests (1 when there are none): how far the estimator is off.
	Ratio float64 `json:"observed_over_estimated"`
	// Window is the context window the upstream named in a
	// context-length error (0: none yet); it is the window of the
	// model's later requests when nothing else gives one
	// (smart.Call.ObservedContextWindow).
	Window int `json:"reported_context_window,omitempty"`
}

// sessionStats is what the proxy remembers of a conversation.
type sessionStats struct {
	lastObserved  int
	feedback      smart.Feedback
	artifactReads int
	// noWindowLogged: the session was told once that its model has no
	// known window.
	noWindowLogged bool
	// prefixLen and prefixHash are the length and SHA-256 of what went
	// upstream last time, up to the end of its last item.
	prefixLen  int
	prefixHash [32]byte
}

// maxSessionStats bounds the sessions remembered; when full they start
// over (the state only feeds pressure and telemetry).
const maxSessionStats = 4096

// New returns a proxy for opts.
func New(opts Options) (*Proxy, error) {
	if opts.Upstream == nil || opts.Upstream.Scheme == "" || opts.Upstream.Host == "" {
		return nil, errors.New("proxy: upstream must be an absolute URL such as https://api.openai.com")
	}
	if opts.Upstream.Scheme != "http" && opts.Upstream.Scheme != "https" {
		return nil, fmt.Errorf("proxy: upstream scheme %q: want http or https", opts.Upstream.Scheme)
	}
	if opts.Flow == nil {
		return nil, errors.New("proxy: no request flow")
	}
	if _, err := ParseHints(string(opts.Hints)); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	m, err := smart.ParseMode(string(opts.Mode))
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	opts.Mode = m
	if m == smart.ModeExact && opts.Flow.redacts() {
		return nil, errors.New("proxy: --mode exact forwards bodies without reading them, so it cannot redact secrets as --redact-secrets or secrets.redact_conversation asks: use --mode shadow (requests forwarded unrewritten, redacted) or turn redaction off")
	}
	c := &opts.Call
	if c.MaskStep == 0 {
		c.MaskPaced = true // the default step is a paced one
	}
	for _, s := range []struct {
		v        *int
		def, off int
	}{
		{&c.MaskHorizon, DefaultMaskHorizon, 0},
		{&c.MaskLong, DefaultMaskLong, 0},
		{&c.MaskStep, DefaultMaskStep, 1},
		{&c.MaskBig, DefaultMaskBig, 0},
		{&c.MaskBigHorizon, DefaultMaskBigHorizon, 0},
	} {
		// 0 takes the default, a negative value its "off" (a step of 1
		// is every turn).
		switch {
		case *s.v == 0:
			*s.v = s.def
		case *s.v < 0:
			*s.v = s.off
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Proxy{opts: opts, log: log, now: time.Now, models: map[string]*ModelUsage{}, sessions: map[string]*sessionStats{}}
	up := opts.Upstream
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			// SetURL joins the paths; keep the query as received.
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery
			for k := range pr.Out.Header {
				if strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Ctxd-") {
					pr.Out.Header.Del(k)
				}
			}
		},
		Transport:      opts.Transport,
		FlushInterval:  -1, // flush every write: streams are relayed as they arrive
		ErrorHandler:   p.upstreamError,
		ModifyResponse: p.watch,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	p.mux = http.NewServeMux()
	p.mux.HandleFunc("POST "+RouteChat, p.model)
	p.mux.HandleFunc("POST "+RouteResponses, p.model)
	p.mux.HandleFunc("POST "+RouteMessages, p.model)
	p.mux.HandleFunc("GET /ctxd/artifacts/{session}/{hash}", p.artifact)
	p.mux.HandleFunc("GET /ctxd/stats", p.stats)
	p.mux.HandleFunc("/", p.passthrough)
	return p, nil
}

// ServeHTTP serves one request, after the checks that keep a web page
// from driving the proxy (guard.go).
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if code, why := p.guard(r); code != 0 {
		p.log.Warn("request refused", "status", code, "reason", why)
		// The JSON error every refusal of the proxy answers, so an SDK
		// reads its message and type as it reads the provider's.
		writeError(w, code, "ctxd_refused_request", "ctxd proxy: "+why)
		return
	}
	p.mux.ServeHTTP(w, r)
}

// maxBody is the limit of a body read to rewrite.
func (p *Proxy) maxBody() int64 {
	if p.opts.MaxBodyBytes > 0 {
		return p.opts.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// SetPublicURL sets the base URL references name (once the listener's
// port is known).
func (p *Proxy) SetPublicURL(u string) { p.opts.PublicURL = strings.TrimRight(u, "/") }

// Hints chooses the rehydration hints references carry.
type Hints string

// The hint choices.
const (
	HintsAll     Hints = "all"     // the ctxd rehydrate command and the GET
	HintsCommand Hints = "command" // the command only (agents with a shell)
	HintsGet     Hints = "get"     // the GET only
	HintsNone    Hints = "none"    // the marker's own "ask for lines a-b" only
)

// ParseHints reads a hint choice; "" is HintsAll.
func ParseHints(s string) (Hints, error) {
	switch h := Hints(strings.ToLower(strings.TrimSpace(s))); h {
	case "":
		return HintsAll, nil
	case HintsAll, HintsCommand, HintsGet, HintsNone:
		return h, nil
	}
	return "", fmt.Errorf("unknown hints %q (want all, command, get or none)", s)
}

// retrieval is how the references of a rewrite say to read them back:
// the ctxd rehydrate command (with the flow's state directory) and a GET
// on the proxy's artifact URL (when its public URL can sit in a marker;
// an IPv6 literal cannot, its brackets would end it).
func (p *Proxy) retrieval() request.Retrieval {
	h := p.opts.Hints
	if h == "" {
		h = HintsAll
	}
	var rt request.Retrieval
	if h == HintsAll || h == HintsCommand {
		rt = request.Retrieval{Command: true, StateDir: p.opts.Flow.stateDir}
		if rt.Check() != nil {
			rt.StateDir = ""
		}
	}
	if p.opts.PublicURL != "" && (h == HintsAll || h == HintsGet) {
		u := request.Retrieval{URL: p.opts.PublicURL + "/ctxd/artifacts"}
		if u.Check() == nil {
			rt.URL = u.URL
		}
	}
	return rt
}

// passthrough forwards a request the proxy does not rewrite. When the
// flow redacts every conversation its body is redacted first, as a
// stepped-aside model request's is: a route the proxy does not rewrite
// may carry a conversation too (Anthropic's /v1/messages/count_tokens).
func (p *Proxy) passthrough(w http.ResponseWriter, r *http.Request) {
	if p.opts.Flow.redacts() && r.ContentLength != 0 {
		rec := &record{Route: r.URL.Path, Mode: string(smart.ModeExact), Reason: "passthrough"}
		if enc := r.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
			p.refuseCompressed(w, rec, enc)
			return
		}
		body, ok := p.readOrFail(w, r, rec)
		if !ok {
			return
		}
		out, status, code, msg := p.redactOrFail(body)
		if status != 0 {
			p.fail(w, rec, status, code, msg)
			return
		}
		setBody(r, out)
	}
	p.rp.ServeHTTP(w, r)
}

// upstreamError answers when the upstream cannot be reached (a relayed
// error status is not this: it passes through as the upstream sent it).
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	obs, _ := r.Context().Value(observerKey{}).(*observer)
	if r.Context().Err() != nil {
		// The client went away before the upstream answered: the
		// upstream is not at fault and nobody reads an answer.
		if obs != nil {
			obs.mu.Lock()
			obs.status, obs.clientGone = statusClientClosed, true
			obs.mu.Unlock()
		}
		return
	}
	if obs != nil {
		obs.mu.Lock()
		obs.status, obs.unreachable = http.StatusBadGateway, true
		obs.mu.Unlock()
	}
	p.log.Warn("upstream unreachable", "path", r.URL.Path, "err", err)
	writeError(w, http.StatusBadGateway, "ctxd_upstream_unreachable", "ctxd proxy could not reach the upstream "+p.opts.Upstream.Redacted()+": "+err.Error())
}

// session returns the state of a session, creating it.
func (p *Proxy) session(id string) *sessionStats {
	s := p.sessions[id]
	if s == nil {
		if len(p.sessions) >= maxSessionStats {
			clear(p.sessions)
		}
		s = &sessionStats{}
		p.sessions[id] = s
	}
	return s
}
