package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/engine"
)

// The Smart Context methods (docs/smart-context.md): rewrite a whole
// model request under the safety envelope, and rehydrate what a reference
// stands for. Both may run concurrently.
func init() {
	register(
		method{name: "ctx/optimizeRequest", async: true, handle: optimizeRequest},
		method{name: "ctx/rehydrate", async: true, handle: rehydrate},
	)
}

// optimizerEntry is one state directory's optimizer (its caches and
// per-session state) and artifact store, shared by the server's
// connections to that workspace (Server.optimizers).
type optimizerEntry struct {
	opt   *smart.Optimizer
	store *artifacts.Store
}

// optimizer returns the connection's optimizer and store, created on
// first use for the workspace's state directory and shared by the
// server's connections to that workspace. The rollout comes from
// the environment ($CTXD_SMART_CONTEXT_SHADOW,
// $CTXD_SMART_CONTEXT_CANARY_PERCENT) when the optimizer is created.
func (cl *client) optimizer() (*optimizerEntry, error) {
	eng := cl.engine()
	if eng == nil {
		return nil, fmt.Errorf("no workspace: send initialize first: %w", ctxd.ErrInvalidParams)
	}
	dir := artifacts.Dir(engine.StateDir(eng.Root()))
	srv := cl.srv
	srv.flowMu.Lock()
	defer srv.flowMu.Unlock()
	if e := srv.optimizers[dir]; e != nil {
		return e, nil
	}
	rollout, err := smart.RolloutFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	store, err := artifacts.Open(dir, artifacts.Options{Logger: cl.srv.log})
	if err != nil {
		return nil, err
	}
	e := &optimizerEntry{store: store, opt: smart.New(smart.Options{Store: store, Rollout: rollout, Logger: cl.srv.log})}
	srv.optimizers[dir] = e
	return e, nil
}

// optimizeParams are the params of ctx/optimizeRequest.
type optimizeParams struct {
	// Request is the model request (Chat, Anthropic or Responses) as a
	// JSON object.
	Request               json.RawMessage `json:"request"`
	SessionID             string          `json:"session_id,omitempty"`
	Mode                  string          `json:"mode,omitempty"`
	Format                string          `json:"format,omitempty"`
	Model                 string          `json:"model,omitempty"`
	ContextWindow         int             `json:"context_window,omitempty"`
	OutputReserve         int             `json:"output_reserve,omitempty"`
	Budget                int             `json:"budget,omitempty"`
	WindowSize            int             `json:"window_size,omitempty"`
	MaxToolOutput         int             `json:"max_tool_output,omitempty"`
	ObservedContextWindow int             `json:"observed_context_window,omitempty"`
	ObservedInputTokens   int             `json:"observed_input_tokens,omitempty"`
	ExactItems            []int           `json:"exact_items,omitempty"`
	Feedback              smart.Feedback  `json:"feedback,omitzero"`
	// RedactSecrets: see compressParams.
	RedactSecrets bool `json:"redact_secrets,omitempty"`
}

// optimizeResult is the rewritten request (the original when nothing was
// rewritten) and the report.
type optimizeResult struct {
	Request    json.RawMessage  `json:"request"`
	Report     *smart.Report    `json:"report"`
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

func optimizeRequest(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p optimizeParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(p.Request); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("request is required and must be a JSON object (a chat, anthropic or responses request): %w", ctxd.ErrInvalidParams)
	}
	f, err := request.ParseFormat(p.Format)
	if err != nil {
		return nil, err
	}
	mode, err := smart.ParseMode(p.Mode)
	if err != nil {
		return nil, err
	}
	reds, err := cl.redactConversation(p.RedactSecrets, &p.Request)
	if err != nil {
		return nil, err
	}
	e, err := cl.optimizer()
	if err != nil {
		return nil, err
	}
	cl.engMu.Lock()
	def := cl.defaults.Model
	cl.engMu.Unlock()
	res, err := e.opt.Optimize(ctx, p.Request, smart.Call{
		DefaultModel: def, Session: p.SessionID, Mode: mode, Format: f, Model: p.Model, ContextWindow: p.ContextWindow,
		OutputReserve: p.OutputReserve, Budget: p.Budget, WindowSize: p.WindowSize, MaxToolOutput: p.MaxToolOutput, ObservedContextWindow: p.ObservedContextWindow,
		ObservedInputTokens: p.ObservedInputTokens, ExactItems: p.ExactItems, Feedback: p.Feedback,
	})
	if err != nil {
		return nil, err
	}
	return optimizeResult{Request: res.Body, Report: res.Report, Redactions: reds}, nil
}

// rehydrateParams are the params of ctx/rehydrate: the session, the
// reference's hash (full or a prefix of at least 12 hex digits) and a
// 1-based, inclusive line range (both 0: every line).
type rehydrateParams struct {
	SessionID string `json:"session_id"`
	Hash      string `json:"hash"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
}

func rehydrate(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p rehydrateParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" || p.Hash == "" {
		return nil, fmt.Errorf("session_id and hash are required: %w", ctxd.ErrInvalidParams)
	}
	e, err := cl.optimizer()
	if err != nil {
		return nil, err
	}
	l, err := smart.Rehydrate(ctx, e.store, p.SessionID, p.Hash, p.StartLine, p.EndLine)
	if errors.Is(err, artifacts.ErrCorrupt) {
		// Stored data that does not verify has its own code (see
		// errors.go); the file is left as it is.
		return nil, &jsonrpc2.Error{Code: CodeCorrupt, Message: "ctx/rehydrate: " + err.Error()}
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}
