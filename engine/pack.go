package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/pack"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Pack puts the workspace (or a subtree) into one document with exact
// token counts (ctx/pack, `ctxd pack`, `ctxd tokens`); see package pack.
// Token counts are remembered between packs of the engine and persisted
// in the state directory (index/pack-counts.bin), so a warm pack, or a
// fresh process on an unchanged tree, counts only the files that changed.
//
// A subtree (opts.Path, absolute or root-relative) must lie inside the
// workspace (ctxd.ErrOutsideRoot) and exist (ctxd.ErrNotFound).
func (e *Engine) Pack(ctx context.Context, opts pack.Options) (*pack.Result, error) {
	if opts.Path != "" && opts.Path != "." {
		abs, rel, err := tree.Resolve(e.root, opts.Path)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("pack %s: %w", opts.Path, ctxd.ErrNotFound)
			}
			return nil, fmt.Errorf("pack %s: %w", opts.Path, err)
		}
		opts.Path = rel
	}
	if opts.Compress {
		opts.Views = e.store.Views()
	}
	r, err := pack.PackCached(ctx, e.ws, opts, e.store.PackCounts())
	if err != nil {
		return nil, err
	}
	// As the file index: the counts persist for a tree of any size (a
	// pack needs no file index, so it makes the directory itself).
	if len(r.Files) > 0 {
		if err := e.store.Create(); err != nil {
			e.log.Warn("persisting token counts failed", "err", err)
		}
	}
	e.store.SavePackCounts()
	e.store.Save()
	return r, nil
}
