// Package compress fits scored context chunks into a token budget. It is
// the context fitter only: conversation compaction lives in compact/.
//
// Fit is the design's greedy compressor: chunks in score order are
// included whole when they fit; a chunk that only partly fits is included
// at the largest structural view that fits (tree-sitter bodies, signatures,
// outline) or, for text without structure, as a head-and-tail cut; else it
// is skipped with a reason. The budget is never exceeded, as counted by the
// real tokenizer on each chunk exactly as the prompt renders it.
package compress

import (
	"context"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/tokens"
)

// DefaultMinPartial is the smallest space, in tokens, worth filling with a
// partial view of a chunk; below it the rest of the chunks are skipped.
const DefaultMinPartial = 48

// View is a reduced rendering of a chunk's content, at a named level.
type View struct {
	Level  string // ctxd.TruncBodies, TruncSignatures, TruncOutline
	Text   string
	Elided []ctxd.LineRange
}

// ViewsFunc returns a chunk's structural views, largest first, or nil when
// the chunk has none (not code, unsupported language, does not parse).
type ViewsFunc func(ctx context.Context, c *ctxd.Chunk) []View

// Options configure Fit.
type Options struct {
	// Budget is the context budget in tokens.
	Budget int
	// Counter counts tokens (the model's encoding).
	Counter tokens.Counter
	// Render returns a chunk as the prompt shows it (headers and fences
	// included); its count is the chunk's cost. Nil counts the content.
	Render func(ctxd.Chunk) string
	// Views supplies structural views for code; nil means head-and-tail
	// only.
	Views ViewsFunc
	// MinPartial is the smallest space worth a partial view
	// (DefaultMinPartial when 0).
	MinPartial int
}

// Fit fits cs, which must be sorted by score (highest first), into the
// budget. Included chunks get Tokens set to their rendered cost, and
// Truncated, Truncation and Elided when reduced. The sum of included
// Tokens is TokensUsed, which never exceeds opts.Budget.
func Fit(ctx context.Context, cs []ctxd.Chunk, opts Options) (ctxd.CompressedContext, error) {
	if opts.Counter == nil {
		return ctxd.CompressedContext{}, fmt.Errorf("fit: no token counter")
	}
	if opts.MinPartial <= 0 {
		opts.MinPartial = DefaultMinPartial
	}
	out := ctxd.CompressedContext{Budget: max(opts.Budget, 0), Chunks: []ctxd.Chunk{}, Skipped: []ctxd.Skipped{}}
	f := fitter{opts: opts}
	for i := range cs {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("fit chunks: %w", err)
		}
		c := cs[i]
		left := out.Budget - out.TokensUsed
		got, reason := f.place(ctx, c, left)
		if reason != "" {
			out.Skipped = append(out.Skipped, ctxd.Skipped{Source: c.Source, Reason: reason, Tokens: c.Tokens, Score: c.Score})
			continue
		}
		out.Chunks = append(out.Chunks, got)
		out.TokensUsed += got.Tokens
	}
	if out.Budget > 0 {
		out.Utilization = float64(out.TokensUsed) / float64(out.Budget)
	}
	return out, nil
}

type fitter struct {
	opts Options
}

func (f *fitter) cost(c ctxd.Chunk) int {
	if f.opts.Render == nil {
		return f.opts.Counter.Count(c.Content)
	}
	return f.opts.Counter.Count(f.opts.Render(c))
}

// place returns c as it fits in left tokens, or a reason to skip it.
func (f *fitter) place(ctx context.Context, c ctxd.Chunk, left int) (ctxd.Chunk, string) {
	whole := f.cost(c)
	if whole <= left {
		c.Tokens = whole
		return c, ""
	}
	if left < f.opts.MinPartial {
		return c, fmt.Sprintf("over budget: needs %d tokens, %d left", whole, left)
	}
	if f.opts.Views != nil {
		for _, v := range f.opts.Views(ctx, &c) {
			r := c
			r.Content = v.Text
			r.Truncated, r.Truncation, r.Elided = true, v.Level, v.Elided
			r.OriginalTokens = whole
			if n := f.cost(r); n <= left {
				r.Tokens = n
				return r, ""
			}
		}
	}
	if r, ok := f.middle(c, whole, left); ok {
		return r, ""
	}
	return c, fmt.Sprintf("over budget: needs %d tokens, %d left, and no partial view fits", whole, left)
}

// middle cuts the chunk's content to a head and a tail that fit, with the
// framing counted: it asks for the space left minus the framing's cost, and
// shrinks the request by the overshoot if token merges at the seams make
// the rendered whole slightly larger than its parts.
func (f *fitter) middle(c ctxd.Chunk, whole, left int) (ctxd.Chunk, bool) {
	empty := c
	empty.Content = ""
	empty.Truncated, empty.Truncation = true, ctxd.TruncMiddle
	frame := f.cost(empty)
	want := left - frame
	for attempt := 0; attempt < 4 && want >= f.opts.MinPartial/2; attempt++ {
		m := tokens.Middle(f.opts.Counter, c.Content, want, tokens.MiddleOptions{TailRatio: tailRatio(c)})
		if m.Text == "" {
			return c, false
		}
		r := c
		r.Content = m.Text
		r.Truncated, r.Truncation = true, ctxd.TruncMiddle
		r.Elided = nil
		if m.Truncated && m.Elided.Start > 0 {
			r.Elided = []ctxd.LineRange{m.Elided}
		}
		r.OriginalTokens = whole
		n := f.cost(r)
		if n <= left {
			r.Tokens = n
			return r, true
		}
		want -= n - left
	}
	return c, false
}

// tailRatio keeps more of the end of diffs and error-bearing files, where
// the newest or failing part usually is.
func tailRatio(c ctxd.Chunk) float64 {
	if c.ChunkType == ctxd.ChunkHistory {
		return 0.2 // newest commits come first
	}
	if c.Facts.Role == ctxd.RoleError {
		return 0.6
	}
	return 0
}
