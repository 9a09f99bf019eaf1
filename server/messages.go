package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/tokens"
)

// The request-flow methods: conversation compaction (docs/compaction.md).
// Both are pure functions of their params and run concurrently.
func init() {
	register(
		method{name: "ctx/compressMessages", async: true, handle: compressMessages},
		method{name: "ctx/pruneForRetry", async: true, handle: pruneForRetry},
	)
}

// compressParams are the params of ctx/compressMessages.
type compressParams struct {
	// Request is the model request to compact (Chat, Anthropic or
	// Responses), as a JSON object.
	Request       json.RawMessage `json:"request"`
	Format        string          `json:"format,omitempty"`
	Model         string          `json:"model,omitempty"`
	ContextWindow int             `json:"context_window,omitempty"`
	OutputReserve int             `json:"output_reserve,omitempty"`
	Budget        int             `json:"budget,omitempty"`
	WindowSize    int             `json:"window_size,omitempty"`
	MaxToolOutput int             `json:"max_tool_output,omitempty"`
	// RedactSecrets replaces secrets inside the messages first (also the
	// config key secrets.redact_conversation).
	RedactSecrets bool `json:"redact_secrets,omitempty"`
}

// retryParams are the params of ctx/pruneForRetry: compressParams and the
// error the failed attempt ended with.
type retryParams struct {
	compressParams
	Error string `json:"error"`
}

// compressResult is the answer of both methods: the rewritten request and
// the report.
type compressResult struct {
	Request    json.RawMessage  `json:"request"`
	Report     *prune.Report    `json:"report"`
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

// options checks the params and turns them into pruner options; the
// connection's default model applies when neither the params nor the
// request name one.
func (cl *client) pruneOptions(p compressParams) (prune.Options, error) {
	if t := bytes.TrimSpace(p.Request); len(t) == 0 || t[0] != '{' {
		return prune.Options{}, fmt.Errorf("request is required and must be a JSON object (a chat, anthropic or responses request): %w", ctxd.ErrInvalidParams)
	}
	f, err := request.ParseFormat(p.Format)
	if err != nil {
		return prune.Options{}, err
	}
	cl.engMu.Lock()
	def := cl.defaults.Model
	cl.engMu.Unlock()
	return prune.Options{
		Model: p.Model, DefaultModel: def, ContextWindow: p.ContextWindow, OutputReserve: p.OutputReserve,
		Budget: p.Budget, WindowSize: p.WindowSize, MaxToolOutput: p.MaxToolOutput, Format: f, Logger: cl.log,
		Cache: cl.srv.messages,
	}, nil
}

// countMessages counts a message list for ctx/countTokens with the same
// estimator (role overheads, tool calls, reasoning, images) and cache that
// compaction uses.
func countMessages(ctx context.Context, cl *client, req engine.CountRequest) (*engine.CountResult, error) {
	msgs := bytes.TrimSpace(req.Messages)
	if len(msgs) == 0 || msgs[0] != '[' {
		return nil, fmt.Errorf("messages must be an array of messages: %w", ctxd.ErrInvalidParams)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(msgs, &items); err != nil {
		return nil, fmt.Errorf("messages must be an array of messages: %w", ctxd.ErrInvalidParams)
	}
	for i, it := range items {
		if t := bytes.TrimSpace(it); len(t) == 0 || t[0] != '{' {
			return nil, fmt.Errorf("messages[%d] must be a message object, got %s: %w", i, clip(string(t)), ctxd.ErrInvalidParams)
		}
	}
	f, err := request.ParseFormat(req.Format)
	if err != nil {
		return nil, err
	}
	member := "messages"
	if f == request.FormatResponses {
		member = "input"
	}
	model, _ := json.Marshal(req.Model)
	body := []byte(`{"model":` + string(model) + `,"` + member + `":` + string(msgs) + `}`)
	p, err := prune.New(prune.Options{Model: req.Model, ContextWindow: req.ContextWindow, Format: f, Cache: cl.srv.messages, Logger: cl.log})
	if err != nil {
		return nil, err
	}
	n, err := p.CountMessages(ctx, body)
	if err != nil {
		return nil, err
	}
	c, m := tokens.ForModel(req.Model, req.ContextWindow)
	return &engine.CountResult{Tokens: n, Encoding: c.Encoding(), Exact: false, Model: m}, nil
}

func compressMessages(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p compressParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	opts, err := cl.pruneOptions(p)
	if err != nil {
		return nil, err
	}
	reds, err := cl.redactConversation(p.RedactSecrets, &p.Request)
	if err != nil {
		return nil, err
	}
	out, rep, err := prune.Compress(ctx, p.Request, opts)
	if err != nil {
		return nil, err
	}
	return compressResult{Request: out, Report: rep, Redactions: reds}, nil
}

func pruneForRetry(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p retryParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	opts, err := cl.pruneOptions(p.compressParams)
	if err != nil {
		return nil, err
	}
	reds, err := cl.redactConversation(p.RedactSecrets, &p.Request)
	if err != nil {
		return nil, err
	}
	out, rep, err := prune.ForRetry(ctx, p.Request, p.Error, opts)
	if err != nil {
		return nil, err
	}
	return compressResult{Request: out, Report: rep, Redactions: reds}, nil
}
