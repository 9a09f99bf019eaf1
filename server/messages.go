package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
)

// The request-flow methods: conversation compaction (docs/compaction.md).
// They decode, call the engine's request flow (engine/requests.go) and
// encode; all run concurrently.
func init() {
	register(
		method{name: "ctx/compressMessages", async: true, handle: compressMessages},
		method{name: "ctx/pruneForRetry", async: true, handle: pruneForRetry},
	)
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
