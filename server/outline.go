package server

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/engine"
)

// ctx/outline returns a file's symbols and imports from one tree-sitter
// parse, and its view at a truncation level when one is asked for
// (docs/truncation.md). It reads and changes no connection state and runs
// concurrently.
func init() {
	register(method{name: "ctx/outline", async: true, handle: outline})
}

func outline(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.OutlineRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().Outline(ctx, req)
}
