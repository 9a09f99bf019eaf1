package engine

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/ctxd/ctxd/pack"
)

// Pack puts the workspace (or a subtree) into one document with exact
// token counts (ctx/pack, `ctxd pack`, `ctxd tokens`); see package pack.
// Token counts are remembered between packs of the engine and persisted
// in the state directory (index/pack-counts.bin), so a warm pack, or a
// fresh process on an unchanged tree, counts only the files that changed.
func (e *Engine) Pack(ctx context.Context, opts pack.Options) (*pack.Result, error) {
	path := filepath.Join(e.stateDir, "index", "pack-counts.bin")
	e.packOnce.Do(func() {
		e.packCache = pack.NewCache()
		if err := e.packCache.Load(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.log.Warn("persisted token counts not used", "err", err)
		}
	})
	r, err := pack.PackCached(ctx, e.ws, opts, e.packCache)
	if err != nil {
		return nil, err
	}
	if err := e.packCache.Save(path); err != nil {
		e.log.Warn("persisting token counts failed", "err", err)
	}
	return r, nil
}
