package engine

import (
	"context"
	"runtime"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
)

// views returns a code chunk's structural views for the compressor.
// TODO(integrator): wire treesitter.Views once the treesitter package lands;
// until then code that does not fit is cut in the middle.
func (e *Engine) views(ctx context.Context, c *ctxd.Chunk) []compress.View {
	return nil
}

func workers() int { return max(1, runtime.GOMAXPROCS(0)) }
