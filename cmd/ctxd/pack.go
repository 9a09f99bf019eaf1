package main

import (
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/pack"
	"github.com/ctxd/ctxd/safefs"
	"github.com/ctxd/ctxd/workspace/tree"
)

func init() {
	register(&command{
		name: "pack",
		args: "[flags] [PATH]",
		summary: `Pack the repository (or the subtree or file PATH) into one document, with the same
ignore and secret rules as prompt and exact token counts per file, per
directory and in total, and a summary of the largest files and directories.`,
		run: runPack,
	})
	register(&command{
		name:    "tokens",
		args:    "[flags] [PATH]",
		summary: `Print the token tree of the repository (or the subtree or file PATH): every directory and file with its exact token count.`,
		run:     runTokens,
	})
}

type packFlags struct {
	root, output, format, encoding, logLevel string
	compress, asJSON, assets                 bool
	include, exclude                         multiFlag
	top, depth, split                        int
}

func runPack(ctx context.Context, io *IO, args []string) error {
	return packCommand(ctx, io, args, "pack")
}

func runTokens(ctx context.Context, io *IO, args []string) error {
	return packCommand(ctx, io, args, "tokens")
}

func packCommand(ctx context.Context, io *IO, args []string, name string) error {
	c := commands[name]
	fs := newFlagSet(c, io.Err)
	var f packFlags
	fs.StringVar(&f.root, "root", "", "workspace root (default: the git top-level of PATH or the current directory)")
	if name == "pack" {
		fs.StringVar(&f.output, "output", "", "write the pack to this file instead of standard output (- for standard output; a terminal needs it)")
		fs.StringVar(&f.format, "format", "markdown", "pack format: markdown, xml or json")
		fs.BoolVar(&f.compress, "compress", false, "replace parsed code by its signatures view (tree-sitter)")
		fs.IntVar(&f.split, "split-output", 0, "write the pack as numbered parts of at most this many tokens each (FILE.1.md, FILE.2.md, …; needs --output FILE)")
	} else {
		fs.IntVar(&f.depth, "depth", 0, "print the tree this many levels below the root (0: every level); deeper directories show as totals")
	}
	fs.StringVar(&f.encoding, "encoding", pack.DefaultEncoding, "tokenizer encoding: o200k_base or cl100k_base")
	fs.Var(&f.include, "include", "keep only files matching this glob (repeatable; as in .gitignore, *.js matches at any depth, a glob with a slash from the root or PATH; a path without wildcards may name a secret file)")
	fs.Var(&f.exclude, "exclude", "leave out files matching this glob (repeatable; read as --include's)")
	fs.BoolVar(&f.assets, "include-assets", false, "also include lockfiles, minified bundles and data files over 32 KiB (left out by default and listed)")
	fs.IntVar(&f.top, "top", 10, "how many of the largest files and directories to list")
	fs.BoolVar(&f.asJSON, "json", false, "print the counts as JSON (no file contents)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("give at most one PATH")
	}
	if f.depth < 0 {
		return usagef("--depth must not be negative, got %d", f.depth)
	}
	if name == "pack" && f.output == "" && !f.asJSON && isTerminal(io.Out) {
		// A pack is the whole repository: hundreds of kilobytes that
		// scroll past a terminal (gzip and tar refuse the same way).
		return usagef("not writing a pack to a terminal: give --output FILE, redirect (ctxd pack > pack.md), or --output - to print it anyway")
	}
	if f.split < 0 || f.split > 0 && (f.output == "" || f.output == "-") || f.split > 0 && f.asJSON {
		return usagef("--split-output TOKENS needs a positive TOKENS and --output FILE (the parts are FILE.1.md, FILE.2.md, …), without --json")
	}
	if f.output == "-" {
		f.output = ""
	}
	format, err := pack.ParseFormat(f.format)
	if name == "pack" && err != nil {
		return usagef("%v", err)
	}
	rootArg, sub := f.root, ""
	if len(pos) == 1 {
		// PATH is a directory or one file (`ctxd tokens main.go`).
		abs, dir := "", ""
		if fi, err := os.Stat(pos[0]); err == nil && fi.Mode().IsRegular() {
			if dir, err = tree.Dir(filepath.Dir(pos[0])); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			abs = filepath.Join(dir, filepath.Base(pos[0]))
		} else {
			if dir, err = tree.Dir(pos[0]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			abs = dir
		}
		if rootArg == "" {
			if rootArg, err = tree.FindRoot(dir); err != nil {
				return err
			}
		}
		r, err := engine.ResolveRoot(rootArg)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(r, abs)
		if err != nil || rel == ".." || filepath.IsAbs(rel) || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
			return usagef("PATH %s is outside the root %s", pos[0], r)
		}
		sub = filepath.ToSlash(rel)
	}
	root, err := engine.ResolveRoot(rootArg)
	if err != nil {
		return err
	}
	if fellBack(f.root, root) {
		// As prompt says: `ctxd pack /etc` from inside a repository
		// packs /etc as a workspace of its own.
		fmt.Fprintf(io.Err, "ctxd: not in a git repository: using %s as the workspace (pass --root DIR to choose)\n", root)
	}
	eng, done, err := openEngine(io.Err, fs, root, &f.logLevel, nil, engine.Options{})
	if err != nil {
		return err
	}
	defer done()
	// A large tree takes seconds: a terminal shows what is going on.
	p := startProgress(io.Err)
	p.stage("reading and counting " + root)
	res, err := eng.Pack(ctx, pack.Options{
		Path: sub, Include: f.include, Exclude: f.exclude, Compress: f.compress,
		Encoding: f.encoding, Top: f.top, NoContent: name == "tokens" || f.asJSON, IncludeAssets: f.assets,
	})
	p.stop()
	if errors.Is(err, ctxd.ErrInvalidParams) {
		// A bad glob, an --include that matches nothing, an unknown
		// encoding: how the command was called (exit 2, nothing written).
		return usagef("%s", ctxd.MessageOf("pack", err))
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(io.Err, "ctxd: %s\n", w)
	}
	if len(res.Files) == 0 && len(res.NotText) == 1 && res.NotText[0].Path == sub {
		// PATH is one file that cannot be packed: an empty pack of "0
		// files" would not say why; this is an error (exit 1), as cat
		// of a directory is.
		x := res.NotText[0]
		if x.Reason == tree.SkipTooBig {
			// Text, but larger than the cap every command reads up to:
			// the cap is a setting, so say which.
			return fmt.Errorf("%s is over the size cap (%d bytes, the cap %d): raise gather.max_file_bytes in .ctxd.toml to read it", pos[0], x.Bytes, eng.Config().Gather.MaxFileBytes)
		}
		return fmt.Errorf("%s is %s (%d bytes): %s reads text files only", pos[0], x.Reason, x.Bytes, name)
	}
	if f.asJSON {
		return printJSON(io.Out, res)
	}
	if name == "tokens" {
		return res.WriteTreeDepth(io.Out, f.depth)
	}
	if f.split > 0 {
		return writeParts(io, res, format, f.output, f.split)
	}
	out := io.Out
	if f.output != "" {
		if err := writeOutput(f.output, func(w stdio.Writer) error { return res.Write(w, format) }); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "ctxd: packed %s, %d tokens (%s) into %s\n", pack.Files(len(res.Files)), res.Tokens, res.Encoding, f.output)
		if len(res.Excluded) > 0 {
			fmt.Fprintf(io.Err, "ctxd: left out as assets: %s (--include-assets packs them; listed in the summary)\n", pack.Files(len(res.Excluded)))
		}
		if len(res.NotText) > 0 {
			fmt.Fprintf(io.Err, "ctxd: left out as not text (binary, too large or unreadable): %s (listed in the summary)\n", pack.Files(len(res.NotText)))
		}
		if len(res.Secret) > 0 {
			fmt.Fprintf(io.Err, "ctxd: left out as secret files: %s (--include PATH packs one; listed in the summary)\n", pack.Files(len(res.Secret)))
		}
		return nil
	}
	return res.Write(out, format)
}

// writeParts writes a pack split into parts of at most max tokens to
// numbered files beside output (pack.md: pack.1.md, pack.2.md, …).
func writeParts(io *IO, res *pack.Result, format ctxd.Format, output string, max int) error {
	parts, err := res.Split(max, format)
	if err != nil {
		return err
	}
	ext := filepath.Ext(output)
	base := strings.TrimSuffix(output, ext)
	var names []string
	for _, p := range parts {
		name := fmt.Sprintf("%s.%d%s", base, p.Part, ext)
		if err := writeOutput(name, func(w stdio.Writer) error { return p.Write(w, format) }); err != nil {
			return err
		}
		names = append(names, fmt.Sprintf("%s (%s)", name, pack.Files(len(p.Files))))
	}
	n := fmt.Sprintf("%d parts", len(parts))
	if len(parts) == 1 {
		n = "1 part"
	}
	fmt.Fprintf(io.Err, "ctxd: packed %s, %d tokens (%s) into %s of at most %d tokens: %s\n",
		pack.Files(len(res.Files)), res.Tokens, res.Encoding, n, max, strings.Join(names, ", "))
	return nil
}

// writeOutput writes a file the user named with --output: anywhere they
// can write, but never through a link of that name (a repository or
// another user may plant out.md -> a file to overwrite), and whole or not
// at all (safefs.WriteFile, as ctx/pack's safefs.WriteAtomic).
func writeOutput(name string, write func(stdio.Writer) error) error {
	err := safefs.WriteFile(name, write)
	if errors.Is(err, safefs.ErrNotRegular) {
		return fmt.Errorf("pack: not writing %s: it is a symbolic link or not a regular file (ctxd does not write through links): remove it or name another file; --output - writes to standard output", name)
	}
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	return nil
}
