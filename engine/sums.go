package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"unsafe"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
)

// contentSums carries what one request learns of each gathered file's
// content through its stages: the content's SHA-256, which gathering took
// for the chunk's hash (ctxd.Chunk.Hash), and its symbol-index entry. The
// secret scan and the views key their caches by the same hash, and the
// match, focus and declaration lines each asked the symbol index, which
// hashes the content to find its entry: each content was hashed six times
// a request (BENCHMARKS.md "hspeed"). A fact is given only for the content
// it is of (the same string: its data and length), so a chunk whose
// content changed (redacted, or a view of it) has none and is hashed as
// before. nil holds nothing. A request's stages may read it concurrently,
// each goroutine setting the entries of its own chunks only.
type contentSums map[string]*contentSum

type contentSum struct {
	data *byte // the content's string data and length
	n    int
	sum  [sha256.Size]byte
	// syms is the content's symbol-index entry (nil for a file in no
	// language the index reads), once symsSet.
	syms    *index.Symbols
	symsSet bool
}

// sumsOf returns the sums of chunks' files, read from their hashes: call
// it on gathered chunks, whose Hash is their Content's.
func sumsOf(chunks []ctxd.Chunk) contentSums {
	s := make(contentSums, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		if c.ChunkType != ctxd.ChunkFile || len(c.Hash) != 2*sha256.Size {
			continue
		}
		cs := &contentSum{data: unsafe.StringData(c.Content), n: len(c.Content)}
		if _, err := hex.Decode(cs.sum[:], readOnly(c.Hash)); err == nil {
			s[c.Source] = cs
		}
	}
	return s
}

// of returns the facts of c's content as it is now, nil for none.
func (s contentSums) of(c *ctxd.Chunk) *contentSum {
	cs := s[c.Source]
	if cs == nil || cs.n != len(c.Content) || cs.data != unsafe.StringData(c.Content) {
		return nil
	}
	return cs
}

// symbolsOf returns c's symbol-index entry (symbols.Index.File), asking the
// index once per content a request, by the content's carried SHA-256 when
// it has one (the index then hashes a content it has seen no more).
func (e *Engine) symbolsOf(ctx context.Context, c *ctxd.Chunk, sums contentSums) (*index.Symbols, error) {
	cs := sums.of(c)
	if cs != nil && cs.symsSet {
		return cs.syms, nil
	}
	if cs == nil {
		return e.store.Symbols().File(ctx, c.Source, readOnly(c.Content))
	}
	ent, err := e.store.Symbols().FileSum(ctx, c.Source, readOnly(c.Content), cs.sum)
	if err == nil {
		cs.syms, cs.symsSet = ent, true
	}
	return ent, err
}
