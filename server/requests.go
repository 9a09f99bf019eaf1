package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
)

// The request-flow methods: conversation compaction (docs/compaction.md)
// and Smart Context (docs/smart-context.md), which rewrites a whole model
// request under the safety envelope and rehydrates what a reference
// stands for. They decode, call the engine's request flow
// (engine/requests.go) and encode; all run concurrently. The optimizer,
// its caches and the artifact store belong to the workspace's engine, so
// the server's connections to one workspace share them.
func init() {
	register(
		method{name: "ctx/compressMessages", async: true, handle: compressMessages},
		method{name: "ctx/pruneForRetry", async: true, handle: pruneForRetry},
		method{name: "ctx/optimizeRequest", async: true, handle: optimizeRequest},
		method{name: "ctx/rehydrate", async: true, handle: rehydrate},
	)
}

// flowRequest decodes the params of a request-flow method into p and
// returns the connection's engine; p's DefaultModel, when it has one, is
// set by the caller from defaultModel.
func (cl *client) flowRequest(params json.RawMessage, p any) (*engine.Engine, error) {
	if err := decode(params, p); err != nil {
		return nil, err
	}
	eng := cl.engine()
	if eng == nil {
		return nil, fmt.Errorf("no workspace: send initialize first: %w", ctxd.ErrInvalidParams)
	}
	return eng, nil
}

// defaultModel is the model the connection's initialize named.
func (cl *client) defaultModel() string {
	cl.engMu.Lock()
	defer cl.engMu.Unlock()
	return cl.defaults.Model
}

func optimizeRequest(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p engine.OptimizeRequest
	eng, err := cl.flowRequest(params, &p)
	if err != nil {
		return nil, err
	}
	p.DefaultModel = cl.defaultModel()
	res, err := eng.Optimize(ctx, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func rehydrate(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p engine.RehydrateRequest
	eng, err := cl.flowRequest(params, &p)
	if err != nil {
		return nil, err
	}
	return eng.Rehydrate(ctx, p)
}

// compressRequest decodes the params of ctx/compressMessages and
// ctx/pruneForRetry; the connection's default model applies when
// neither the params nor the request name one.
func (cl *client) compressRequest(params json.RawMessage) (*engine.Engine, engine.CompressRequest, error) {
	var p engine.CompressRequest
	eng, err := cl.flowRequest(params, &p)
	if err != nil {
		return nil, p, err
	}
	p.DefaultModel = cl.defaultModel()
	return eng, p, nil
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
	return cl.engine().CountMessages(ctx, req)
}

func compressMessages(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	eng, p, err := cl.compressRequest(params)
	if err != nil {
		return nil, err
	}
	p.Error = ""
	res, err := eng.Compress(ctx, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func pruneForRetry(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	eng, p, err := cl.compressRequest(params)
	if err != nil {
		return nil, err
	}
	res, err := eng.ForRetry(ctx, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}
