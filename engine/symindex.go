package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/par"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/symbols"
)

// maxSymbolFiles bounds the gathered files a request's identifiers are
// matched against (each a parse when its content is new).
const maxSymbolFiles = 40

// matchSymbols sets the MentionedSymbols of the gathered files (the first
// maxSymbolFiles whose text holds a request name in some case style) from the
// symbol index: the request's code identifiers (exact, qualified such as
// Server.Shutdown, or in another case style) that a file defines. A file
// that only uses a name the workspace defines no longer counts as naming
// it (a test calling the method ranked above the module defining it); a
// name defined in none of the parsed files (a library's: strings.SplitN)
// keeps its textual matches as UsedSymbols (the qualifiers of a qualified
// name excepted), and a file whose language is not parsed keeps its text
// matches. Requests without code identifiers parse nothing.
func (e *Engine) matchSymbols(ctx context.Context, q *query.Query, chunks []ctxd.Chunk, sums contentSums) {
	ids := q.Names()
	if len(ids) == 0 {
		return
	}
	// The qualifiers of a qualified name (requests and utils of
	// requests.utils.get_netrc_auth) are modules and packages, not names a
	// file uses: their text matches are dropped.
	quals := q.Qualifiers
	// Only a file whose text holds one of the names, in some case style,
	// can define it: the others are not parsed.
	var folded []string
	for _, id := range ids {
		_, name := query.SplitQualified(id)
		if f := symbols.Fold(name); f != "" && !slices.Contains(folded, f) {
			folded = append(folded, f)
		}
	}
	var files []int
	for i := range chunks {
		c := &chunks[i]
		if c.ChunkType != ctxd.ChunkFile || len(files) >= maxSymbolFiles {
			continue
		}
		text := symbols.Fold(c.Content)
		if slices.ContainsFunc(folded, func(f string) bool { return strings.Contains(text, f) }) {
			files = append(files, i)
		}
	}
	// New contents are parsed on all cores, the largest first (a large
	// file parsed last would leave the other cores idle while it parses);
	// each call writes only its own slot.
	order := make([]int, len(files))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(len(chunks[files[b]].Content), len(chunks[files[a]].Content))
	})
	matches := make([][]symbols.Match, len(files))
	parsed := make([]bool, len(files))
	par.Each(ctx, len(order), func(o int) {
		k := order[o]
		c := &chunks[files[k]]
		if ent, err := e.symbolsOf(ctx, c, sums); err == nil && ent != nil {
			parsed[k] = true
			matches[k] = symbols.Matches(ent, ids)
		}
	})
	defined := map[string]bool{} // request identifiers some file defines
	for _, ms := range matches {
		for _, m := range ms {
			defined[m.Query] = true
			defined[m.Def.Name] = true
		}
	}
	for k, i := range files {
		if !parsed[k] {
			continue
		}
		f := &chunks[i].Facts
		var names []string
		for _, m := range matches[k] {
			if !slices.Contains(names, m.Def.Name) {
				names = append(names, m.Def.Name)
			}
		}
		var used []string
		for _, id := range f.MentionedSymbols {
			if !defined[id] && !slices.Contains(names, id) && !quals[id] {
				used = append(used, id)
			}
		}
		f.MentionedSymbols, f.UsedSymbols = names, used
	}
	pinNamed(chunks, files, matches, ids)
}

// pinNamed treats a file as named by the request when it is the one
// gathered file that defines a name the request writes: qualified
// (httpx.Timeout, requests.utils.get_netrc_auth, Server.Shutdown) or a
// bare code name at top level (Timeout in "explain Timeout"): its
// priority rises to HIGH and it counts as mentioned, as if the request
// named its path. A name several files define pins none. (Bare names
// pinned too: the dev set's all-found unchanged, requests 8k all-lines
// -1 commit, httpx +1 all-full at 8k and +1 all-lines at 32k: BENCHMARKS
// "Relevance" after issue 14.)
func pinNamed(chunks []ctxd.Chunk, files []int, matches [][]symbols.Match, names []string) {
	for _, q := range names {
		qual, name := query.SplitQualified(q)
		pin := -1
		for k, ms := range matches {
			if slices.ContainsFunc(ms, func(m symbols.Match) bool {
				return m.Def.Name == name && (m.Def.Parent == "" || m.Def.Parent == qual)
			}) {
				if pin >= 0 {
					pin = -2
					break
				}
				pin = k
			}
		}
		if pin < 0 {
			continue
		}
		c := &chunks[files[pin]]
		reason := "defines " + q + ", named in the request"
		if !slices.Contains(c.Facts.Reasons, reason) {
			c.Facts.Reasons = append(c.Facts.Reasons, reason)
		}
		c.Facts.Mentioned = true
		c.Priority = max(c.Priority, ctxd.PriorityHigh)
	}
}
