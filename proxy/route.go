package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
)

// routeFormats maps the rewritten routes to their request formats.
var routeFormats = map[string]request.Format{
	RouteChat:      request.FormatChat,
	RouteResponses: request.FormatResponses,
	RouteMessages:  request.FormatAnthropic,
}

// model rewrites a model request's body and forwards it.
func (p *Proxy) model(w http.ResponseWriter, r *http.Request) {
	start := p.now()
	rec := &record{Route: r.URL.Path, Mode: string(p.opts.Mode)}
	switch enc := r.Header.Get("Content-Encoding"); {
	case enc != "" && enc != "identity" && p.opts.Flow.redacts():
		p.refuseCompressed(w, rec, enc)
		return
	case enc != "" && enc != "identity":
		// A compressed body cannot be rewritten; it streams through as
		// it came.
		rec.Mode, rec.Reason = string(smart.ModeExact), "content_encoding_"+enc
		p.forward(w, r, rec, start, nil)
		return
	case p.opts.Mode == smart.ModeExact:
		rec.Reason = "exact_mode"
		p.forward(w, r, rec, start, nil)
		return
	}
	body, ok := p.readOrFail(w, r, rec)
	if !ok {
		return
	}
	rec.BytesIn = len(body)
	// The body's rewrite and forward work under a memory limit that
	// follows the bodies in flight (issue 28: many tiny messages).
	defer p.opts.HeapGoal.Hold(int64(len(body)))()
	out, status, code, msg := p.rewrite(r, body, rec)
	if status != 0 {
		p.fail(w, rec, status, code, msg)
		return
	}
	p.forward(w, r, rec, start, out)
}

// refuseCompressed answers a body with Content-Encoding enc when the
// flow redacts every conversation: a compressed body cannot be read, so
// it cannot be redacted; refused, never forwarded with a secret in it.
func (p *Proxy) refuseCompressed(w http.ResponseWriter, rec *record, enc string) {
	p.fail(w, rec, http.StatusUnsupportedMediaType, "ctxd_unredactable_request", "ctxd proxy redacts secrets (--redact-secrets or secrets.redact_conversation) but cannot read a body with Content-Encoding "+enc+", so it was not forwarded: send it uncompressed")
}

// readOrFail reads r's body (at most --max-body-bytes), or answers the
// failure and reports false.
func (p *Proxy) readOrFail(w http.ResponseWriter, r *http.Request, rec *record) ([]byte, bool) {
	body, err := p.readBody(r)
	if err != nil {
		var tooLarge *bodyTooLarge
		if errors.As(err, &tooLarge) {
			// The log says how large a body was refused: its announced
			// length, or what was read of it (the limit and a byte).
			rec.BytesIn = int(max(tooLarge.size, tooLarge.limit+1))
			p.fail(w, rec, http.StatusRequestEntityTooLarge, "ctxd_request_too_large", "ctxd proxy: "+err.Error())
			return nil, false
		}
		p.fail(w, rec, http.StatusBadRequest, "ctxd_bad_request", "ctxd proxy could not read the request body: "+err.Error())
		return nil, false
	}
	return body, true
}

// redactOrFail is body redacted by the flow (string values rewritten,
// the JSON kept valid), or, for a body that holds a secret and is not
// JSON, the refusal: it cannot be redacted safely and is never forwarded
// raw (400 ctxd_unredactable_request).
func (p *Proxy) redactOrFail(body []byte) ([]byte, int, string, string) {
	out, _, err := p.opts.Flow.redact(body)
	if err != nil {
		return nil, http.StatusBadRequest, "ctxd_unredactable_request", "ctxd proxy redacts secrets (--redact-secrets or secrets.redact_conversation) but cannot read this request as JSON to redact it, so it was not forwarded: " + ctxd.Message(err)
	}
	return out, 0, "", ""
}

// setBody makes out r's body, as sent upstream.
func setBody(r *http.Request, out []byte) {
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	r.Header.Del("Content-Length")
}

// forward sends the request upstream with body out, or with its own body
// streamed as it arrives when out is nil (nothing of it is held), and
// logs the request's record.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, rec *record, start time.Time, out []byte) {
	rec.OverheadMicros = time.Since(start).Microseconds()
	var counted *countingReader
	if out == nil {
		counted = &countingReader{rc: r.Body}
		r.Body = counted
	} else {
		rec.BytesOut = len(out)
		setBody(r, out)
	}
	obs := &observer{}
	// When the client goes away in the middle of the response the
	// reverse proxy stops relaying with a panic (http.ErrAbortHandler,
	// which the server swallows): the record is still written, saying
	// so, as it is for a request that returns.
	relayed := false
	defer func() {
		if relayed {
			return
		}
		obs.mu.Lock()
		obs.clientGone = true
		obs.mu.Unlock()
		p.finishRelay(rec, obs, start, counted)
	}()
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), observerKey{}, obs)))
	relayed = true
	p.finishRelay(rec, obs, start, counted)
}

// finishRelay logs the record of a forwarded request.
func (p *Proxy) finishRelay(rec *record, obs *observer, start time.Time, counted *countingReader) {
	if counted != nil {
		rec.BytesIn, rec.BytesOut = int(counted.n), int(counted.n)
	}
	p.finish(rec, obs, start)
}

// countingReader counts the bytes of a body streamed through.
type countingReader struct {
	rc io.ReadCloser
	n  int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.rc.Read(b)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.rc.Close() }

// bodyTooLarge is the error of a body over Options.MaxBodyBytes.
type bodyTooLarge struct{ size, limit int64 }

func (e *bodyTooLarge) Error() string {
	size := "request body (sent without a length) is"
	if e.size >= 0 {
		size = fmt.Sprintf("request body is %d bytes,", e.size)
	}
	return fmt.Sprintf("%s over the proxy's limit of %d bytes (ctxd proxy --max-body-bytes; or --mode exact, which streams bodies through without reading them)", size, e.limit)
}

// readBody reads a body to rewrite, at most the proxy's limit. A body
// that announces its length is read into one buffer of that length (no
// growing copies: the body is the largest thing a request holds).
func (p *Proxy) readBody(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	limit := p.maxBody()
	if n := r.ContentLength; n > limit {
		return nil, &bodyTooLarge{n, limit}
	} else if n >= 0 {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, &bodyTooLarge{-1, limit}
	}
	return body, nil
}

// clientGone is rewrite's answer when the client left while the request
// was read or rewritten: nothing goes upstream.
func clientGone() (out []byte, status int, code, msg string) {
	return nil, statusClientClosed, "ctxd_client_gone", "ctxd proxy: the client went away"
}

// rewrite applies Smart Context to body. A non-zero status is a failure
// to answer with (fail closed); otherwise it returns the body to send.
func (p *Proxy) rewrite(r *http.Request, body []byte, rec *record) (out []byte, status int, code, msg string) {
	format := routeFormats[r.URL.Path]
	req, err := request.ParseContext(r.Context(), body, format)
	if err != nil {
		if r.Context().Err() != nil {
			// The client left during the parse: nothing goes upstream.
			return clientGone()
		}
		if bytes.Contains(body, []byte(request.MarkerOpen)) {
			// It may carry ctxd references, which only a parsed
			// request can resolve: fail closed.
			return nil, http.StatusBadRequest, "ctxd_unsafe_request", fmt.Sprintf("ctxd proxy cannot read this %s request, which holds ctxd references, so it was not forwarded: %s (send it with --mode exact to pass it through)", format, ctxd.Message(err))
		}
		return p.stepAside(rec, body, "unparsed", err)
	}
	call := p.opts.Call
	call.Mode, call.Format, call.Parsed = p.opts.Mode, format, req
	call.Session = r.Header.Get(HeaderSession)
	rec.SessionSource = "header"
	if call.Session == "" {
		call.Session, rec.SessionSource = smart.DeriveSession(req), "derived"
	} else if err := ctxd.ValidSessionID(call.Session); err != nil {
		return nil, http.StatusBadRequest, "ctxd_bad_session", "ctxd proxy: " + HeaderSession + ": " + ctxd.Message(err)
	}
	rec.Session, rec.Model = call.Session, req.Model
	p.statsMu.Lock()
	st := p.session(call.Session)
	call.ObservedInputTokens, call.Feedback = st.lastObserved, st.feedback
	call.EstimateRatio = p.estimateRatio(req.Model)
	if mu := p.models[req.Model]; mu != nil && call.ObservedContextWindow == 0 {
		call.ObservedContextWindow = mu.Window
	}
	call.Retrieval = p.retrieval()
	st.feedback = smart.Feedback{}
	rec.ArtifactReads, st.artifactReads = st.artifactReads, 0
	p.statsMu.Unlock()

	// The references the optimizer writes say themselves how to read
	// them back (ctxd rehydrate, a GET here): the body it validated is
	// the body forwarded.
	out, rep, err := p.opts.Flow.optimize(r.Context(), body, call)
	if err != nil {
		if errors.Is(err, request.ErrUnresolvedReference) {
			return nil, http.StatusBadRequest, "ctxd_unsafe_request", "ctxd proxy cannot resolve a reference of this request, so it was not forwarded: " + ctxd.Message(err)
		}
		if r.Context().Err() != nil {
			return clientGone()
		}
		return p.stepAside(rec, body, "rewrite_failed", err)
	}
	rec.Report = rep
	if rep != nil && rep.ModelContextWindowSource == smart.WindowNone {
		p.statsMu.Lock()
		first := !st.noWindowLogged
		st.noWindowLogged = true
		p.statsMu.Unlock()
		if first {
			p.log.Warn("no context window known for this model, so no step driven by window pressure runs in this session; give it with --context-window or context_window in the configuration",
				"session_id", call.Session, "model", req.Model)
		}
	}
	rec.CacheStable = p.cacheStable(call.Session, req, body, out)
	return out, 0, "", ""
}

// cacheStable reports whether what went upstream for a session last
// time is a byte-for-byte prefix of what goes now, up to the end of the
// previous request's last item (so a provider's prompt cache can hold):
// "yes", "no", or "new" for a session's first request. It remembers a
// hash and a length per session, nothing of the text.
func (p *Proxy) cacheStable(session string, req *request.Request, in, out []byte) string {
	if len(req.Items) == 0 {
		return ""
	}
	// Nothing after the last item is rewritten: its end in out is as far
	// from the end of the body as it is in in.
	end := len(out) - (len(in) - req.Items[len(req.Items)-1].Span().End)
	if end < 0 || end > len(out) {
		return ""
	}
	p.statsMu.Lock()
	st := p.session(session)
	prevLen, prevHash := st.prefixLen, st.prefixHash
	p.statsMu.Unlock()
	verdict := "new"
	if prevLen > 0 {
		verdict = "no"
		if prevLen <= end && sha256.Sum256(out[:prevLen]) == prevHash {
			verdict = "yes"
		}
	}
	h := sha256.Sum256(out[:end])
	p.statsMu.Lock()
	st = p.session(session)
	st.prefixLen, st.prefixHash = end, h
	p.statsMu.Unlock()
	return verdict
}

// statusClientClosed is the status logged for a request whose client
// left while it was rewritten (nginx's 499; nobody reads the answer).
const statusClientClosed = 499

// stepAside forwards the original body when the proxy cannot improve a
// request safely (a body it cannot read, a request over the window it
// cannot fit, a state directory it cannot write): the provider judges
// the request as if no proxy stood between, and the agent sees the
// provider's own answer (a context-length error it knows how to handle).
// Only a request whose ctxd references cannot be resolved fails closed.
//
// When the flow redacts every conversation, the original is redacted
// first (the optimizer's redaction: string values rewritten, the JSON
// kept valid), so no door forwards a secret; a body that holds one and
// is not JSON cannot be redacted safely and is refused (400
// ctxd_unredactable_request), never forwarded raw.
func (p *Proxy) stepAside(rec *record, body []byte, why string, err error) ([]byte, int, string, string) {
	if p.opts.Flow.redacts() {
		out, status, code, msg := p.redactOrFail(body)
		if status != 0 {
			return nil, status, code, msg
		}
		body = out
	}
	rec.Mode, rec.Reason = string(smart.ModeExact), "stepped_aside_"+why
	p.log.Warn("request forwarded unmodified: ctxd could not improve it safely", "reason", why, "err", ctxd.Message(err))
	return body, 0, "", ""
}

// fail answers a request the proxy will not forward, and logs its record.
func (p *Proxy) fail(w http.ResponseWriter, rec *record, status int, code, msg string) {
	rec.Status, rec.Failed = status, code
	writeError(w, status, code, msg)
	p.logRecord(rec)
}

// writeError writes an error in the shape both OpenAI and Anthropic
// clients read: {"type":"error","error":{"type","code","message"}}.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": code, "code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Ctxd-Error", code)
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// artifact serves GET /ctxd/artifacts/{session}/{hash}?lines=a-b: the
// stored bytes of a reference (or a line range), verified against the
// hash, as text/plain.
func (p *Proxy) artifact(w http.ResponseWriter, r *http.Request) {
	session, hash := r.PathValue("session"), r.PathValue("hash")
	var start, end int
	if q := r.URL.Query().Get("lines"); q != "" {
		var err error
		if start, end, err = artifacts.ParseLines(q); err != nil {
			writeError(w, http.StatusBadRequest, "ctxd_bad_lines", "ctxd proxy: "+ctxd.Message(err))
			return
		}
	}
	l, err := p.opts.Flow.rehydrate(r.Context(), session, hash, start, end)
	switch {
	case errors.Is(err, artifacts.ErrCorrupt):
		writeError(w, http.StatusConflict, "ctxd_artifact_corrupt", "ctxd proxy: "+ctxd.Message(err))
		return
	case errors.Is(err, ctxd.ErrNotFound):
		writeError(w, http.StatusNotFound, "ctxd_artifact_not_found", "ctxd proxy: "+ctxd.Message(err)+" (check the session and the hash the reference names)")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "ctxd_bad_reference", "ctxd proxy: "+ctxd.Message(err))
		return
	}
	p.statsMu.Lock()
	p.session(session).artifactReads++
	p.statsMu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Ctxd-Sha256", l.Hash)
	w.Header().Set("X-Ctxd-Lines", fmt.Sprintf("%d-%d/%d", l.StartLine, l.EndLine, l.TotalLines))
	io.WriteString(w, l.Text)
}

// stats serves GET /ctxd/stats: the observed token accounting per model.
func (p *Proxy) stats(w http.ResponseWriter, _ *http.Request) {
	p.statsMu.Lock()
	b, err := json.MarshalIndent(map[string]any{"models": p.models}, "", "  ")
	p.statsMu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "ctxd_stats", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}
