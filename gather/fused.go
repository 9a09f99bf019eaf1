package gather

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/prioritize"
)

// reasonFused is the reason of a file the fused ranking added.
const reasonFused = "ranked by several signals"

// fusedFiles is how many files addFused adds, from a context budget of
// compress.RoomyBudget tokens (or an unknown one): each source alone
// adds the best of its own ranking (lexical matches, graph, co-change),
// and a file that two of them rank well but neither near its top came by
// none of them. Below RoomyBudget the fitter's presence pass looks at its
// best 12 chunks only (compress: presenceChunks), where a file added this
// way takes the place of one that its own signal ranked; measured on the
// development set (eval recall, 100 commits, BENCHMARKS.md "h25large"):
// at 8k all-lines -0.7 with 3 files, -0.1 with 1, at 32k +0.5 with 3.
const fusedFiles = 3

// roomy reports a context budget of compress.RoomyBudget tokens or more,
// or an unknown one: from it the fitter's presence pass looks past its
// best chunks, below it a file gathering adds takes the place of one its
// own signal ranked, so the rules that widen or narrow gathering for
// room (addFused, maxTestMatches) apply from it.
func (g *gathering) roomy() bool {
	b := g.req.ContextBudget
	return b <= 0 || b >= compress.RoomyBudget
}

// fusedWant is how many files addFused adds for the request's budget.
func (g *gathering) fusedWant() int {
	if !g.roomy() {
		return 0
	}
	return fusedFiles
}

// fusedFile is a file the link signals reached, with the score terms the
// signals would give it (prioritize's lexical, graph and co-change
// terms).
type fusedFile struct {
	rel              string
	lex, graph, co   int
	msg              int
	value            float64
	relevance, share float64
}

// addFused adds the n files that the lexical, graph and co-change signals
// rank best together, among those at least two of them rank, that no
// source gathered: prioritize scores a candidate by the sum of the
// signals' reciprocal-rank terms, so a file at lexical rank 29, graph
// rank 5 and co-change rank 12 outscores most lexical matches past the
// 10th, but each source only takes the best of its own ranking ("fix:
// resolve root to real path": vite's config.ts, absent at every budget
// before, in a repository of 2,000 files).
func (g *gathering) addFused(lr linkRanks, n int, aboutTests bool) {
	if n <= 0 || len(lr.graph)+len(lr.cochange)+len(lr.message) == 0 {
		return
	}
	best := 0.0
	if len(g.lexical.Hits) > 0 {
		best = g.lexical.Hits[0].Score
	}
	var fs []fusedFile
	seen := map[string]bool{}
	consider := func(rel string) {
		if seen[rel] || g.cands[rel] != nil {
			return
		}
		seen[rel] = true
		f := g.snap.ByRel[rel]
		if f == nil || f.Secret || !f.CodeRole() || lang.Of(rel) == "" {
			return
		}
		if f.TestDoc() && !(aboutTests && lang.IsTest(rel)) {
			return
		}
		ff := fusedFile{rel: rel, graph: lr.graph[rel], co: lr.cochange[rel], msg: lr.message[rel]}
		if h, rank := g.lexical.Hit(rel); h != nil {
			ff.lex = rank
			ff.relevance = h.Relevance
			if best > 0 {
				ff.share = h.Score / best
			}
		}
		signals := 0
		for _, r := range []int{ff.lex, ff.graph, ff.co, ff.msg} {
			if r > 0 {
				signals++
			}
		}
		if signals < 2 {
			return
		}
		ff.value = prioritize.SignalValue(&ctxd.Facts{Relevance: ff.relevance, LexicalShare: ff.share, LexicalRank: ff.lex, GraphRank: ff.graph, CoChangeRank: ff.co, MessageRank: ff.msg}, g.req.Fusion)
		fs = append(fs, ff)
	}
	for rel := range lr.graph {
		consider(rel)
	}
	for rel := range lr.cochange {
		consider(rel)
	}
	for rel := range lr.message {
		consider(rel)
	}
	slices.SortFunc(fs, func(a, b fusedFile) int {
		if c := cmp.Compare(b.value, a.value); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
	for _, ff := range fs[:min(n, len(fs))] {
		g.add(ff.rel, fusedReason(ff), ctxd.RoleRelated, false)
	}
}

// fusedReason says which signals ranked the file where.
func fusedReason(f fusedFile) string {
	var parts []string
	if f.lex > 0 {
		parts = append(parts, fmt.Sprintf("lexical %d", f.lex))
	}
	if f.graph > 0 {
		parts = append(parts, fmt.Sprintf("graph %d", f.graph))
	}
	if f.co > 0 {
		parts = append(parts, fmt.Sprintf("co-change %d", f.co))
	}
	if f.msg > 0 {
		parts = append(parts, fmt.Sprintf("messages %d", f.msg))
	}
	return reasonFused + " (" + strings.Join(parts, ", ") + ")"
}
