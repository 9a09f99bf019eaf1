package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/engine"
)

func init() {
	register(&command{
		name: "outline",
		args: "[--json] [--language LANG] FILE",
		summary: `Print a file's symbols, one line each with its line number and signature, members
indented under their type, then its imports. --json prints the ctx/outline result.`,
		run: runOutline,
	})
	register(&command{
		name: "truncate",
		args: "--level LEVEL [--keep-line N]... [--keep-func NAME]... [--json] FILE",
		summary: `Print a file's view at a truncation level: full, bodies (long function bodies
collapsed to a placeholder that still parses), signatures (every body collapsed, docs cut
to their first sentence, private members folded), outline, or focus and focus-only (the
functions at --keep-line or named by --keep-func whole, in the outline or alone). The
elided line ranges go to stderr.`,
		run: runTruncate,
	})
}

func runOutline(ctx context.Context, io *IO, args []string) error {
	c := commands["outline"]
	fs := newFlagSet(c, io.Err)
	asJSON := fs.Bool("json", false, "print the ctx/outline result as JSON")
	lang := fs.String("language", "", "language (default: detected from the extension or shebang)")
	path, err := parseOne(fs, args, "FILE")
	if err != nil {
		return err
	}
	res, err := outlineFile(ctx, engine.OutlineRequest{Path: path, Language: *lang})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(io.Out, res)
	}
	for _, s := range res.Symbols {
		fmt.Fprintf(io.Out, "%s%d: %s\n", strings.Repeat("  ", s.Depth), s.Start, s.Signature)
	}
	if len(res.Imports) > 0 {
		fmt.Fprintf(io.Out, "imports: %s\n", strings.Join(res.Imports, ", "))
	}
	return nil
}

func runTruncate(ctx context.Context, io *IO, args []string) error {
	c := commands["truncate"]
	fs := newFlagSet(c, io.Err)
	level := fs.String("level", "", "full, bodies, signatures, outline, focus or focus-only (required; the focus levels need --keep-line or --keep-func)")
	asJSON := fs.Bool("json", false, "print the ctx/outline result (symbols and the view) as JSON")
	lang := fs.String("language", "", "language (default: detected from the extension or shebang)")
	var keepLines, keepFuncs multiFlag
	fs.Var(&keepLines, "keep-line", "keep the function around this 1-based line whole (repeatable)")
	fs.Var(&keepFuncs, "keep-func", "keep this function or Type.method whole (repeatable)")
	path, err := parseOne(fs, args, "FILE")
	if err != nil {
		return err
	}
	if *level == "" {
		return usagef("--level is required: full, bodies, signatures, outline, focus or focus-only")
	}
	req := engine.OutlineRequest{Path: path, Language: *lang, Level: *level, KeepFuncs: keepFuncs}
	for _, l := range keepLines {
		var n int
		if _, err := fmt.Sscanf(l, "%d", &n); err != nil || n < 1 {
			return usagef("--keep-line %q: want a line number from 1", l)
		}
		req.KeepLines = append(req.KeepLines, n)
	}
	// The engine's rule, checked before the file is read so that a bad
	// level is a usage error in the flags' words.
	switch _, err := req.CheckLevel(); {
	case errors.Is(err, engine.ErrNothingToKeep):
		return usagef("--level %s needs the functions to keep: --keep-line N or --keep-func NAME", *level)
	case err != nil:
		return usagef("--level: %v", err)
	}
	res, err := outlineFile(ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(io.Out, res)
	}
	fmt.Fprint(io.Out, res.View.Text)
	if len(res.View.Elided) > 0 {
		var rs []string
		for _, r := range res.View.Elided {
			rs = append(rs, fmt.Sprintf("%d-%d", r.Start, r.End))
		}
		fmt.Fprintf(io.Err, "elided lines: %s\n", strings.Join(rs, " "))
	}
	return nil
}

// outlineFile reads FILE from disk (any path: no workspace is needed) and
// runs the engine's outline on it, the function behind ctx/outline.
func outlineFile(ctx context.Context, req engine.OutlineRequest) (*engine.OutlineResult, error) {
	src, err := engine.ReadSource(req.Path)
	if err != nil {
		return nil, err
	}
	return engine.OutlineSource(ctx, req, src)
}
