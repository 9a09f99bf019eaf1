package engine

import (
	"context"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
)

const (
	// focusMinTokens: a file smaller than this shows whole or at a
	// structural view that keeps every body anyway.
	focusMinTokens = 1500
	// focusFiles bounds the files one request looks into (each a parse
	// when its content is new to the symbol index).
	focusFiles = 12
	// focusDefs bounds the functions kept per file.
	focusDefs = 3
	// focusMaxLines: a longer definition (a whole class or impl block)
	// would keep most of the file.
	focusMaxLines = 300
)

// focusLines sets FocusLines for the large gathered files that nothing
// else focuses (no cursor, selection, error lines or named symbols): the
// functions whose text matches the request's words best
// (gather.DefTerms.Focus), read from the symbol index. Chunks must be counted.
func (e *Engine) focusLines(ctx context.Context, request string, chunks []ctxd.Chunk) {
	looked := 0
	for i := range chunks {
		c := &chunks[i]
		f := &c.Facts
		if c.ChunkType != ctxd.ChunkFile || f.Minified || c.Tokens < focusMinTokens ||
			f.Cursor > 0 || f.Selection != nil || len(f.ErrorLines) > 0 || len(f.MentionedSymbols) > 0 {
			continue
		}
		if looked == focusFiles || ctx.Err() != nil {
			return
		}
		looked++
		ent, err := e.symbolIndex().File(ctx, c.Source, []byte(c.Content))
		if err != nil || ent == nil {
			continue
		}
		var spans []gather.DefSpan
		var starts []int
		for _, d := range ent.Defs {
			if (d.Kind == "function" || d.Kind == "method") && d.End > d.Line && d.End-d.Line <= focusMaxLines {
				spans = append(spans, gather.DefSpan{Start: d.Line, End: d.End})
				starts = append(starts, d.Line)
			}
		}
		for _, k := range e.defTermsOf(ent.Hash, c.Content, spans).Focus(request, focusDefs) {
			f.FocusLines = append(f.FocusLines, starts[k])
		}
	}
}

// maxDefTerms bounds the contents whose definitions' terms are kept.
const maxDefTerms = 512

// defTermsOf returns the terms of spans in content, whose symbol-index key
// is key, read once per content (a warm request on unchanged files reads
// none).
func (e *Engine) defTermsOf(key [32]byte, content string, spans []gather.DefSpan) *gather.DefTerms {
	return e.defTerms.Get(key, func() *gather.DefTerms { return gather.NewDefTerms([]byte(content), spans) })
}
