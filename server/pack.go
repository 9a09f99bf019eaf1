package server

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ctxd/ctxd/pack"
)

// ctx/pack returns the whole workspace (or a subtree) as one document with
// exact token counts: params are pack.Options plus "format" (markdown,
// xml or json); the result is the pack's counts and, unless format is
// json, its rendered text under "text". It runs concurrently.
func init() {
	register(method{name: "ctx/pack", async: true, handle: packWorkspace})
}

type packParams struct {
	pack.Options
	Format string `json:"format,omitempty"`
}

type packResult struct {
	*pack.Result
	Text string `json:"text,omitempty"`
}

func packWorkspace(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var p packParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	format, err := pack.ParseFormat(p.Format)
	if err != nil {
		return nil, err
	}
	r, err := cl.engine().Pack(ctx, p.Options)
	if err != nil {
		return nil, err
	}
	if format == pack.FormatJSON {
		return packResult{Result: r}, nil
	}
	var b strings.Builder
	if err := r.Write(&b, format); err != nil {
		return nil, err
	}
	// The text holds the contents; the counts come without them.
	counts := *r
	counts.Files = make([]pack.File, len(r.Files))
	for i, f := range r.Files {
		f.Content = ""
		counts.Files[i] = f
	}
	return packResult{Result: &counts, Text: b.String()}, nil
}
