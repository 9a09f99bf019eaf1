package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd"

	"github.com/ctxd/ctxd/pack"
	"github.com/ctxd/ctxd/safefs"
)

// ctx/pack returns the whole workspace (or a subtree) as one document with
// exact token counts: params are pack.Options plus "format" (markdown,
// xml or json); the result is the pack's counts and, unless format is
// json, its rendered text under "text", or, when "output" names a file,
// the text is written there instead. A peer is not the user at a command
// line: "output" is a file name written under the workspace's state
// directory, <state>/packs/NAME (or that same path, absolute), atomically
// and never through a link (safefs.WriteAtomic); any other path is
// -32602. `ctxd pack --output` writes where the user says. It packs the
// workspace ctx/buildPrompt gathers: the editor's unsaved buffers (from
// textDocument/didOpen and didChange, and "open_files" texts, which win)
// replace the files on disk, and a buffer of a file not on disk is packed
// as a new file (engine.Pack). It runs concurrently.
func init() {
	register(method{name: "ctx/pack", async: true, handle: packWorkspace})
}

// PackParams are the params of ctx/pack: the pack's options, its format
// and the file to write it to.
type PackParams struct {
	pack.Options
	Format string `json:"format,omitempty"`
	Output string `json:"output,omitempty"`
	// OpenFiles are the editor's open files, as ctx/buildPrompt's: a
	// text is an unsaved buffer, packed instead of the file on disk (and
	// of the daemon's buffer). A line or selection changes nothing in a
	// pack, and naming a file here does not pack a secret file (Path or
	// an Include does).
	OpenFiles []ctxd.OpenFile `json:"open_files,omitempty"`
}

type packResult struct {
	*pack.Result
	Text   string `json:"text,omitempty"`
	Output string `json:"output,omitempty"`
}

func packWorkspace(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p PackParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	format, err := pack.ParseFormat(p.Format)
	if err != nil {
		return nil, err
	}
	eng := cl.engine()
	packs := filepath.Join(eng.StateDir(), PacksDir)
	name, err := packOutputName(packs, p.Output)
	if err != nil {
		return nil, err
	}
	for _, of := range p.OpenFiles {
		if of.Text != nil {
			if p.Overlay == nil {
				p.Overlay = map[string]string{}
			}
			p.Overlay[of.Path] = *of.Text
		}
	}
	r, err := eng.Pack(ctx, p.Options)
	if err != nil {
		return nil, err
	}
	if format == pack.FormatJSON && p.Output == "" {
		return packResult{Result: r}, nil
	}
	var b strings.Builder
	out := ""
	if name != "" {
		err := safefs.WriteAtomic(packs, name, func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<20)
			if err := r.Write(bw, format); err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return nil, fmt.Errorf("pack output: %w", err)
		}
		out = filepath.Join(packs, name)
	} else if err := r.Write(&b, format); err != nil {
		return nil, err
	}
	// The text holds the contents; the counts come without them.
	counts := *r
	counts.Files = make([]pack.File, len(r.Files))
	for i, f := range r.Files {
		f.Content = ""
		counts.Files[i] = f
	}
	return packResult{Result: &counts, Text: b.String(), Output: out}, nil
}

// PacksDir is the folder of a state directory where ctx/pack writes
// the files its "output" names.
const PacksDir = "packs"

// packOutputName returns the file name ctx/pack's output names inside
// packs ("" for none): a bare name, or an absolute path whose directory
// is packs. Anything else (another directory, "..", a relative path
// with a directory) is invalid params naming the rule.
func packOutputName(packs, output string) (string, error) {
	if output == "" {
		return "", nil
	}
	name := output
	if filepath.IsAbs(output) {
		if filepath.Dir(filepath.Clean(output)) != filepath.Clean(packs) {
			name = ""
		} else {
			name = filepath.Base(output)
		}
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) || len(name) > 255 {
		return "", fmt.Errorf("output %q: the daemon writes packs only into %s: give a file name (pack.md), written there: %w", output, packs, ctxd.ErrInvalidParams)
	}
	return name, nil
}
