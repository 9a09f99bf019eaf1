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

// flowEngine is the connection's engine for the request-flow methods.
func (cl *client) flowEngine() (*engine.Engine, error) {
	eng := cl.engine()
	if eng == nil {
		return nil, fmt.Errorf("no workspace: send initialize first: %w", ctxd.ErrInvalidParams)
	}
	return eng, nil
}

func optimizeRequest(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p engine.OptimizeRequest
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	eng, err := cl.flowEngine()
	if err != nil {
		return nil, err
	}
	cl.engMu.Lock()
	p.DefaultModel = cl.defaults.Model
	cl.engMu.Unlock()
	res, err := eng.Optimize(ctx, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func rehydrate(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p engine.RehydrateRequest
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	eng, err := cl.flowEngine()
	if err != nil {
		return nil, err
	}
	return eng.Rehydrate(ctx, p)
}
