package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

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
// A pack sees the workspace ctx/buildPrompt gathers: the editor's unsaved
// buffers (the engine's, and opts.Overlay's, which win; their paths
// absolute or root-relative, inside the workspace or ctxd.ErrOutsideRoot)
// replace the files on disk, and a buffer of a file the walk does not
// list joins the pack by the rule gathering follows (pack.Options.Overlay).
//
// A subtree (opts.Path, absolute or root-relative) must lie inside the
// workspace (ctxd.ErrOutsideRoot) and exist, on disk or as a buffer
// (ctxd.ErrNotFound).
func (e *Engine) Pack(ctx context.Context, opts pack.Options) (*pack.Result, error) {
	overlay := e.buffers.Snapshot()
	if err := tree.ResolveOverlay(e.root, overlay, opts.Overlay); err != nil {
		return nil, fmt.Errorf("pack: buffer: %w", err)
	}
	opts.Overlay = overlay
	if opts.Path != "" && opts.Path != "." {
		abs, rel, err := tree.Resolve(e.root, opts.Path)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil && !underBuffer(overlay, rel) {
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

// underBuffer reports that rel is, or is a directory above, one of the
// overlay's buffers: a path that exists only in the editor.
func underBuffer(overlay map[string]string, rel string) bool {
	for p := range overlay {
		if p == rel || strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	return false
}
