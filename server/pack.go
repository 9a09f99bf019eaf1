package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd"

	"github.com/ctxd/ctxd/pack"
)

// ctx/pack returns the whole workspace (or a subtree) as one document with
// exact token counts: params are pack.Options plus "format" (markdown,
// xml or json); the result is the pack's counts and, unless format is
// json, its rendered text under "text", or, when "output" names a file
// (an absolute path), the text is written there instead (as `ctxd pack
// --output`). It runs concurrently.
func init() {
	register(method{name: "ctx/pack", async: true, handle: packWorkspace})
}

// PackParams are the params of ctx/pack: the pack's options, its format
// and the file to write it to.
type PackParams struct {
	pack.Options
	Format string `json:"format,omitempty"`
	Output string `json:"output,omitempty"`
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
	if p.Output != "" && !filepath.IsAbs(p.Output) {
		return nil, fmt.Errorf("output %q: want an absolute path: %w", p.Output, ctxd.ErrInvalidParams)
	}
	r, err := cl.engine().Pack(ctx, p.Options)
	if err != nil {
		return nil, err
	}
	if format == pack.FormatJSON && p.Output == "" {
		return packResult{Result: r}, nil
	}
	var b strings.Builder
	if p.Output != "" {
		fh, err := os.Create(p.Output)
		if err != nil {
			return nil, fmt.Errorf("pack output: %w", err)
		}
		bw := bufio.NewWriterSize(fh, 1<<20)
		err = r.Write(bw, format)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("pack output: %w", err)
		}
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
	return packResult{Result: &counts, Text: b.String(), Output: p.Output}, nil
}
