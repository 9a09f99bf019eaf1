package engine

import (
	"context"

	"github.com/ctxd/ctxd/pack"
)

// Pack puts the workspace (or a subtree) into one document with exact
// token counts (ctx/pack, `ctxd pack`, `ctxd tokens`); see package pack.
func (e *Engine) Pack(ctx context.Context, opts pack.Options) (*pack.Result, error) {
	return pack.Pack(ctx, e.ws, opts)
}
