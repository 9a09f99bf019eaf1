package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
)

// The Smart Context methods (docs/smart-context.md): rewrite a whole
// model request under the safety envelope, and rehydrate what a reference
// stands for. They decode, call the engine's request flow
// (engine/requests.go) and encode; both run concurrently. The optimizer,
// its caches and the artifact store belong to the workspace's engine, so
// the server's connections to one workspace share them.
func init() {
	register(
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
