package main

import (
	"context"
	"slices"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
)

// cost is what showing one answer file's changed lines costs.
type cost struct {
	// Tokens is the cheapest view ctxd renders that shows every changed
	// line verbatim (eval's rule: no line in the view's elided ranges),
	// counted as the envelope renders the chunk (prompt.Section: header,
	// truncation note, fences); View is its view ("whole" for the file).
	Tokens int
	View   string
	// Whole is the file's cost whole, rendered the same way.
	Whole int
	// Defs is the content alone of the spans the definitions view shows
	// (the definitions holding the changed lines, the module-level
	// statements around the others), without outline lines, header or
	// fences: the looser bound, content and no view overhead. The whole
	// file's content when no definitions view exists.
	Defs int
	// Lines is the cheapest view showing each changed line alone in place
	// (treesitter's RefLines: the line under its function's outline line),
	// or Tokens when smaller: what the views could cost at the least.
	Lines int
}

// cheapest returns the cost of showing lines (1-based, of src, the file
// at path) with ctxd's own views: the whole file, the structural views
// (bodies, signatures) keeping the functions around the lines, and the
// focus views on exactly the definitions holding the lines (the innermost
// function around each at any depth, a long function's window around it,
// the short declaration or module-level statement around a line outside
// every function; a line none of these keeps is kept alone in place, as
// the views keep a line the request names). A view costs its rendered
// tokens, the whole file when it costs as much (the fitter's rule).
func cheapest(ctx context.Context, counter tokens.Counter, format ctxd.Format, path string, src []byte, lines []int) cost {
	whole := ctxd.Chunk{Source: path, ChunkType: ctxd.ChunkFile, Content: string(src)}
	wholeCost := counter.Count(prompt.Section(whole, format))
	content := counter.Count(string(src))
	c := cost{Tokens: wholeCost, View: "whole", Whole: wholeCost, Defs: content, Lines: wholeCost}
	lang := treesitter.Detect(path, src)
	if lang == "" || len(lines) == 0 {
		return c
	}
	try := func(vs []treesitter.View) {
		for _, v := range vs {
			if !showsAll(v.Elided, lines) {
				continue
			}
			ch := whole
			ch.Content, ch.Truncated, ch.Truncation, ch.Elided = v.Text, true, v.Level, v.Elided
			if n := counter.Count(prompt.Section(ch, format)); n < c.Tokens {
				c.Tokens, c.View = n, string(v.Level)
			}
		}
	}
	opts := treesitter.Options{KeepLines: lines, DeclLines: lines}
	if vs, err := treesitter.Views(ctx, lang, src, treesitter.Options{KeepLines: lines}); err == nil {
		try(vs)
	}
	fs, err := treesitter.FocusViews(ctx, lang, src, opts)
	if err == nil && len(fs) > 0 {
		// The lines the definitions do not keep, kept alone in place.
		var left []int
		for _, l := range lines {
			if ctxd.InRanges(fs[0].Elided, l) {
				left = append(left, l)
			}
		}
		if len(left) > 0 {
			o := opts
			o.RefLines = left
			if more, err := treesitter.FocusViews(ctx, lang, src, o); err == nil && len(more) > 0 {
				fs = more
			}
		}
		try(fs)
		if showsAll(fs[0].Elided, lines) {
			c.Defs = counter.Count(shownText(src, fs[0].Elided))
		}
	}
	c.Lines = c.Tokens
	if ls, err := treesitter.FocusViews(ctx, lang, src, treesitter.Options{RefLines: lines}); err == nil {
		for _, v := range ls {
			if !showsAll(v.Elided, lines) {
				continue
			}
			ch := whole
			ch.Content, ch.Truncated, ch.Truncation, ch.Elided = v.Text, true, v.Level, v.Elided
			c.Lines = min(c.Lines, counter.Count(prompt.Section(ch, format)))
		}
	}
	return c
}

// showsAll reports whether no line of lines is in elided.
func showsAll(elided []ctxd.LineRange, lines []int) bool {
	return !slices.ContainsFunc(lines, func(l int) bool { return ctxd.InRanges(elided, l) })
}

// shownText returns the lines of src outside elided, in order.
func shownText(src []byte, elided []ctxd.LineRange) string {
	var out []byte
	l, start := 1, 0
	for i := 0; i <= len(src); i++ {
		if i == len(src) || src[i] == '\n' {
			end := min(i+1, len(src))
			if start < end && !ctxd.InRanges(elided, l) {
				out = append(out, src[start:end]...)
			}
			l, start = l+1, i+1
		}
	}
	return string(out)
}
