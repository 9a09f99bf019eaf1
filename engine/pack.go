package engine

import (
	"context"

	"github.com/ctxd/ctxd/pack"
)

// Pack puts the workspace (or a subtree) into one document with exact
// token counts (ctx/pack, `ctxd pack`, `ctxd tokens`); see package pack.
// Token counts are remembered between packs of the engine, so a warm
// pack counts only the files that changed.
func (e *Engine) Pack(ctx context.Context, opts pack.Options) (*pack.Result, error) {
	e.packOnce.Do(func() { e.packCache = pack.NewCache() })
	return pack.PackCached(ctx, e.ws, opts, e.packCache)
}
