package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/secrets"
	"github.com/ctxd/ctxd/sessions"
	"github.com/ctxd/ctxd/tokens"
)

// This file is the request-flow seam: everything ctxd does to an agent's
// model request (OpenAI Chat, Anthropic Messages or OpenAI Responses)
// goes through [Requests], and the CLI (ctxd compress, optimize,
// rehydrate), the JSON-RPC server (ctx/compressMessages,
// ctx/pruneForRetry, ctx/optimizeRequest, ctx/rehydrate,
// ctx/countTokens with messages) and any other front end (an MCP server,
// a proxy) only decode their input into the request types below, call
// one method and encode the result.
//
//	Compress       fit a request into the model's budget (the conversation
//	               compactor, compact/prune); what it removes is stored
//	               in the artifact store behind references
//	ForRetry       the same, pruned for an agent's retry after an error
//	Optimize       rewrite a request under the Smart Context safety
//	               envelope (compact/smart)
//	Rehydrate      the text a reference emitted by Compress or Optimize
//	               stands for, verified against its hash
//	CountMessages  a message list's tokens with the compactors' estimator
//
// A Requests value owns the state that makes the next call fast and
// safe: the content-hash caches (token counts, analyses, views, by
// content), the Smart Context optimizer (per-session state) and the
// artifact store of one state directory. It is safe for concurrent use;
// every method may run in parallel with any other. Errors wrap the
// ctxd sentinels (ctxd.ErrInvalidParams, ctxd.ErrNotFound, ...) and the
// compactors' own (request.ErrNotRequest, compact errors), so a front
// end maps them to exit codes or JSON-RPC codes in one table.

// RequestsOptions configure a [Requests].
type RequestsOptions struct {
	// StateDir is the state directory whose artifacts/ folder holds
	// the texts references stand for. It must be absolute, or ""
	// for a Requests without a store: then nothing that needs a
	// reference is removed (Compress still fits the budget by
	// evicting, naming what it evicted without a reference) and
	// Rehydrate fails.
	StateDir string
	// Rollout is the Smart Context rollout (shadow, canary); nil reads
	// $CTXD_SMART_CONTEXT_SHADOW and $CTXD_SMART_CONTEXT_CANARY_PERCENT
	// (an invalid value is the error of every Optimize call).
	Rollout *smart.Rollout
	// DefaultModel is the model of requests that name none.
	DefaultModel string
	// ContextWindow is the window of requests that give none (the
	// configuration's context_window); 0: the registry's, else none.
	ContextWindow int
	// RedactConversation redacts secrets inside every request before it
	// is rewritten (the configuration's secrets.redact_conversation);
	// a request's RedactSecrets asks for it alone.
	RedactConversation bool
	// Logger receives counts and decisions, never request text.
	Logger *slog.Logger
}

// Requests is the request flow of one state directory. See the comment
// at the top of engine/requests.go. It is safe for concurrent use.
type Requests struct {
	opts       RequestsOptions
	log        *slog.Logger
	store      *artifacts.Store // nil without a state directory
	cache      *request.Cache
	opt        *smart.Optimizer
	rolloutErr error
}

// NewRequests returns the request flow for opts. It creates nothing on
// disk until something is stored.
func NewRequests(opts RequestsOptions) (*Requests, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Requests{opts: opts, log: log, cache: request.NewCache()}
	if opts.StateDir != "" {
		if err := sessions.CheckLinks("", opts.StateDir); err != nil {
			return nil, err
		}
		// Sync: a compactor's Flush fsyncs the session's pack once before
		// the reply, so its references survive a machine crash too.
		st, err := artifacts.Open(artifacts.Dir(opts.StateDir), artifacts.Options{Logger: log, Sync: true})
		if err != nil {
			return nil, err
		}
		r.store = st
	}
	var rollout smart.Rollout
	if opts.Rollout != nil {
		rollout = *opts.Rollout
	} else {
		rollout, r.rolloutErr = smart.RolloutFromEnv(os.Getenv)
	}
	sopts := smart.Options{Rollout: rollout, DefaultModel: opts.DefaultModel, Logger: log, Cache: r.cache}
	if r.store != nil {
		sopts.Store = r.store
	}
	r.opt = smart.New(sopts)
	return r, nil
}

// Store returns the artifact store, nil when the Requests has no state
// directory.
func (r *Requests) Store() *artifacts.Store { return r.store }

// StateDir returns the state directory the Requests stores under ("" for
// none).
func (r *Requests) StateDir() string { return r.opts.StateDir }

// CompressRequest is the input of [Requests.Compress] and
// [Requests.ForRetry] (and the params of ctx/compressMessages and
// ctx/pruneForRetry).
type CompressRequest struct {
	// Request is the model request (Chat, Anthropic or Responses) as a
	// JSON object.
	Request json.RawMessage `json:"request"`
	// Format forces the request format; "" detects it.
	Format string `json:"format,omitempty"`
	// Model overrides the request's "model" (encoding, window, preset).
	Model string `json:"model,omitempty"`
	// DefaultModel applies when neither Model nor the request names a
	// model (a connection's default).
	DefaultModel  string `json:"-"`
	ContextWindow int    `json:"context_window,omitempty"`
	OutputReserve int    `json:"output_reserve,omitempty"`
	Budget        int    `json:"budget,omitempty"`
	WindowSize    int    `json:"window_size,omitempty"`
	MaxToolOutput int    `json:"max_tool_output,omitempty"`
	// SessionID scopes the artifacts of what is condensed or evicted
	// (ctxd rehydrate --session); "" derives a scope from the
	// conversation (the report names it).
	SessionID string `json:"session_id,omitempty"`
	// Error is the error the failed attempt ended with (ForRetry only).
	Error string `json:"error,omitempty"`
	// RedactSecrets replaces secrets inside the request first (also
	// RequestsOptions.RedactConversation).
	RedactSecrets bool `json:"redact_secrets,omitempty"`
}

// CompressResult is the rewritten request, the report and the secrets
// redacted first (rule and line, never the secret).
type CompressResult struct {
	Request    json.RawMessage  `json:"request"`
	Report     *prune.Report    `json:"report"`
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

// OptimizeRequest is the input of [Requests.Optimize] (and the params of
// ctx/optimizeRequest).
type OptimizeRequest struct {
	// Request is the model request (Chat, Anthropic or Responses) as a
	// JSON object.
	Request json.RawMessage `json:"request"`
	// Mode is exact, shadow or optimize ("" is optimize).
	Mode   string `json:"mode,omitempty"`
	Format string `json:"format,omitempty"`
	// Call holds the rest (session, model, window, budget, feedback);
	// its Mode and Format are set from the strings above.
	smart.Call
	// RetrievalAsGiven uses Call.Retrieval even when it is empty (a
	// proxy told to write no hints); otherwise an empty one becomes the
	// rehydrate command, as compress's references carry.
	RetrievalAsGiven bool `json:"-"`
	// RedactSecrets replaces secrets inside the request first (also
	// RequestsOptions.RedactConversation).
	RedactSecrets bool `json:"redact_secrets,omitempty"`
}

// OptimizeResult is the request to send (the original when nothing was
// rewritten), the report and the secrets redacted first.
type OptimizeResult struct {
	Request    json.RawMessage  `json:"request"`
	Report     *smart.Report    `json:"report"`
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

// RedactRequest replaces secrets inside a request's strings when the
// request asks or the options do (RedactConversation): the one place every
// front end's conversations are redacted, Compress's and Optimize's and
// the proxy's for a body it forwards without rewriting it (stepping
// aside). Every string of the JSON document is redacted and the result
// stays valid JSON; a body that is not JSON cannot be redacted and is an
// error (ctxd.ErrInvalidParams) unless nothing in it looks like a secret.
func (r *Requests) RedactRequest(asked bool, body json.RawMessage) (json.RawMessage, []ctxd.Redaction, error) {
	sc, err := r.scanner(asked)
	if sc == nil || err != nil {
		return body, nil, err
	}
	out, reds, err := sc.RedactJSON("messages", body)
	if err != nil {
		return nil, nil, fmt.Errorf("%v: %w", err, ctxd.ErrInvalidParams)
	}
	return out, reds, nil
}

// Redacts reports whether every conversation is redacted
// (RequestsOptions.RedactConversation).
func (r *Requests) Redacts() bool { return r.opts.RedactConversation }

// RedactText is redact for a text on its way into a conversation (ctxd
// run's command output, before it is printed or stored), under the same
// switch: asked, or the options' RedactConversation. source names the
// text in the redactions.
func (r *Requests) RedactText(asked bool, source, text string) (string, []ctxd.Redaction, error) {
	sc, err := r.scanner(asked)
	if sc == nil || err != nil {
		return text, nil, err
	}
	out, reds := sc.Redact(source, text)
	return out, reds, nil
}

// scanner is the secret scanner when a conversation is to be redacted
// (the request asks or the options do), else nil.
func (r *Requests) scanner(asked bool) (*secrets.Scanner, error) {
	if !asked && !r.opts.RedactConversation {
		return nil, nil
	}
	return secrets.Default()
}

// RehydrateRequest names a reference: the session (artifact scope), the
// hash (full, or a prefix of at least 12 hex digits) and a 1-based,
// inclusive line range (both 0: every line; EndLine 0: to the end).
type RehydrateRequest struct {
	SessionID string `json:"session_id"`
	Hash      string `json:"hash"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
}

// requestObject checks that a request body is a JSON object.
func requestObject(b []byte) error {
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("request is required and must be a JSON object (a chat, anthropic or responses request): %w", ctxd.ErrInvalidParams)
	}
	return nil
}

func (r *Requests) pruneOptions(req CompressRequest) (prune.Options, error) {
	if err := requestObject(req.Request); err != nil {
		return prune.Options{}, err
	}
	f, err := request.ParseFormat(req.Format)
	if err != nil {
		return prune.Options{}, err
	}
	if req.SessionID != "" {
		if err := ctxd.ValidSessionID(req.SessionID); err != nil {
			return prune.Options{}, fmt.Errorf("session_id: %w", err)
		}
	}
	def := req.DefaultModel
	if def == "" {
		def = r.opts.DefaultModel
	}
	o := prune.Options{
		Model: req.Model, DefaultModel: def, ContextWindow: cmp.Or(req.ContextWindow, r.opts.ContextWindow), OutputReserve: req.OutputReserve,
		Budget: req.Budget, WindowSize: req.WindowSize, MaxToolOutput: req.MaxToolOutput, Format: f,
		Logger: r.log, Cache: r.cache, Session: req.SessionID,
	}
	if r.store != nil {
		o.Store = r.store
		o.Retrieval = r.retrieval()
	}
	return o, nil
}

// retrieval is the hint references carry: the rehydrate command with the
// session, and the state directory when its path can sit in a marker
// (else the reader's default is assumed).
func (r *Requests) retrieval() request.Retrieval {
	rt := request.Retrieval{Command: true, StateDir: r.opts.StateDir}
	if rt.Check() != nil {
		rt.StateDir = ""
	}
	return rt
}

// Compress fits a request into its model's budget (see [prune.Pruner.Compress]).
func (r *Requests) Compress(ctx context.Context, req CompressRequest) (*CompressResult, error) {
	return r.compress(ctx, req, false)
}

// compress is Compress, or ForRetry when retry is set.
func (r *Requests) compress(ctx context.Context, req CompressRequest, retry bool) (*CompressResult, error) {
	o, err := r.pruneOptions(req)
	if err != nil {
		return nil, err
	}
	body, reds, err := r.RedactRequest(req.RedactSecrets, req.Request)
	if err != nil {
		return nil, err
	}
	var out []byte
	var rep *prune.Report
	if retry {
		out, rep, err = prune.ForRetry(ctx, body, req.Error, o)
	} else {
		out, rep, err = prune.Compress(ctx, body, o)
	}
	if err != nil {
		return nil, err
	}
	return &CompressResult{Request: out, Report: rep, Redactions: reds}, nil
}

// ForRetry prunes a request for an agent's retry after req.Error (see
// [prune.Pruner.ForRetry]).
func (r *Requests) ForRetry(ctx context.Context, req CompressRequest) (*CompressResult, error) {
	return r.compress(ctx, req, true)
}

// Optimize rewrites a request under the Smart Context safety envelope
// (see [smart.Optimizer.Optimize]).
func (r *Requests) Optimize(ctx context.Context, req OptimizeRequest) (*OptimizeResult, error) {
	if err := requestObject(req.Request); err != nil {
		return nil, err
	}
	if r.rolloutErr != nil {
		return nil, r.rolloutErr
	}
	c := req.Call
	var err error
	if c.Format, err = request.ParseFormat(req.Format); err != nil {
		return nil, err
	}
	if c.Mode, err = smart.ParseMode(req.Mode); err != nil {
		return nil, err
	}
	if c.Retrieval == (request.Retrieval{}) && !req.RetrievalAsGiven && r.store != nil {
		// As compress's: every reference says how to read it back.
		c.Retrieval = r.retrieval()
	}
	c.ContextWindow = cmp.Or(c.ContextWindow, r.opts.ContextWindow)
	body, reds, err := r.RedactRequest(req.RedactSecrets, req.Request)
	if err != nil {
		return nil, err
	}
	res, err := r.opt.Optimize(ctx, body, c)
	if err != nil {
		return nil, err
	}
	return &OptimizeResult{Request: res.Body, Report: res.Report, Redactions: reds}, nil
}

// ErrNoStore is returned by [Requests.Rehydrate] when the Requests has
// no state directory.
var ErrNoStore = fmt.Errorf("no artifact store (no state directory): %w", ctxd.ErrNotFound)

// Rehydrate returns the lines of the artifact a reference names,
// verified against its hash (artifacts.ErrCorrupt when it does not
// verify, ctxd.ErrNotFound when it is not stored).
func (r *Requests) Rehydrate(ctx context.Context, req RehydrateRequest) (*artifacts.Lines, error) {
	if req.SessionID == "" || req.Hash == "" {
		return nil, fmt.Errorf("session_id and hash are required: %w", ctxd.ErrInvalidParams)
	}
	if r.store == nil {
		return nil, ErrNoStore
	}
	return smart.Rehydrate(ctx, r.store, req.SessionID, req.Hash, req.StartLine, req.EndLine)
}

// CountMessages counts a message list (any format's) with the estimator
// compaction uses: role overheads, tool calls, reasoning, images.
func (r *Requests) CountMessages(ctx context.Context, req CountRequest) (*CountResult, error) {
	msgs := bytes.TrimSpace(req.Messages)
	if len(msgs) == 0 || msgs[0] != '[' {
		return nil, fmt.Errorf("messages must be an array of messages: %w", ctxd.ErrInvalidParams)
	}
	f, err := request.ParseFormat(req.Format)
	if err != nil {
		return nil, err
	}
	model := req.Model
	if model == "" {
		model = r.opts.DefaultModel
	}
	body := request.WrapHistory(msgs, f, model)
	p, err := prune.New(prune.Options{Model: model, ContextWindow: req.ContextWindow, Format: f, Cache: r.cache, Logger: r.log})
	if err != nil {
		return nil, err
	}
	n, err := p.CountMessages(ctx, body)
	if err != nil {
		return nil, err
	}
	c, m := tokens.ForModel(model, req.ContextWindow)
	return &CountResult{Tokens: n, Encoding: c.Encoding(), Exact: false, Model: m}, nil
}

// requests returns the engine's request flow, made on first use for the
// engine's state directory.
func (e *Engine) requests() (*Requests, error) {
	e.reqOnce.Do(func() {
		e.req, e.reqErr = NewRequests(RequestsOptions{StateDir: e.StateDir(), DefaultModel: e.cfg.Model, ContextWindow: e.cfg.ContextWindow,
			RedactConversation: e.cfg.Secrets.RedactConversation, Logger: e.log})
	})
	return e.req, e.reqErr
}

// Requests returns the engine's request flow (state directory: the
// engine's, see [Engine.StateDir]).
func (e *Engine) Requests() (*Requests, error) { return e.requests() }

// onRequests runs one of the request flow's methods on the engine's flow.
func onRequests[Req, Res any](e *Engine, ctx context.Context, req Req, method func(*Requests, context.Context, Req) (Res, error)) (Res, error) {
	r, err := e.requests()
	if err != nil {
		var zero Res
		return zero, err
	}
	return method(r, ctx, req)
}

// Compress is [Requests.Compress] on the engine's request flow.
func (e *Engine) Compress(ctx context.Context, req CompressRequest) (*CompressResult, error) {
	return onRequests(e, ctx, req, (*Requests).Compress)
}

// ForRetry is [Requests.ForRetry] on the engine's request flow.
func (e *Engine) ForRetry(ctx context.Context, req CompressRequest) (*CompressResult, error) {
	return onRequests(e, ctx, req, (*Requests).ForRetry)
}

// Optimize is [Requests.Optimize] on the engine's request flow.
func (e *Engine) Optimize(ctx context.Context, req OptimizeRequest) (*OptimizeResult, error) {
	return onRequests(e, ctx, req, (*Requests).Optimize)
}

// Rehydrate is [Requests.Rehydrate] on the engine's request flow.
func (e *Engine) Rehydrate(ctx context.Context, req RehydrateRequest) (*artifacts.Lines, error) {
	return onRequests(e, ctx, req, (*Requests).Rehydrate)
}

// CountMessages is [Requests.CountMessages] on the engine's request flow.
func (e *Engine) CountMessages(ctx context.Context, req CountRequest) (*CountResult, error) {
	return onRequests(e, ctx, req, (*Requests).CountMessages)
}
