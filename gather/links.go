package gather

import (
	"context"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/workspace/tree"
)

// linkFullBudget is the context budget from which the link signals add
// their full depth; a smaller one gets proportionally fewer files, and
// none when the user named the files the request is about (their own
// views come first).
const linkFullBudget = 4000

// linkWant is how many files a link signal of depth adds.
func (g *gathering) linkWant(depth int, named bool) int {
	b := g.req.ContextBudget
	switch {
	case b <= 0 || b >= linkFullBudget:
		return depth
	case named:
		return 0
	}
	return depth * b / linkFullBudget
}

// linkRanks is what the link signals say about the candidates.
type linkRanks struct {
	graph, cochange, message map[string]int // 1-based ranks
}

// messageDepth is how many files the messages' signal adds as
// candidates beyond those gathered otherwise (at linkFullBudget and
// above), as co-change does (tree.LinkOptions.CoChangeDepth).
const messageDepth = 2

// reasonMessage is the reason of a file the messages' signal added.
const reasonMessage = "changed by recent commits worded like the request"

// linkSources seeds the graph and co-change signals, adds their best
// files as candidates and returns the ranks of every file they reached.
func (g *gathering) linkSources(ctx context.Context, hits []tree.Hit, targets []string) linkRanks {
	var lr linkRanks
	named := len(targets) > 0
	lo := g.w.LinkOptions()
	graphWant, coWant := g.linkWant(lo.GraphDepth, named), g.linkWant(lo.CoChangeDepth, named)
	seeds := tree.LexicalSeeds(hits, lo.LexicalSeeds)
	for _, t := range targets {
		seeds[t] = 2
	}
	if g.git != nil && g.git.Diff != nil {
		for _, c := range g.git.Diff.Changes {
			if f := g.snap.ByRel[c.Path]; f != nil && f.CodeRole() {
				seeds[c.Path] = max(seeds[c.Path], 1)
			}
		}
	}
	// A file of no known language (.editorconfig, .gitignore,
	// .gitattributes) is classed as code by default, but what changes
	// with everything is noise to co-change, not a partner.
	code := func(rel string) bool {
		f := g.snap.ByRel[rel]
		return f != nil && !f.Secret && f.CodeRole() && !f.TestDoc() && lang.Of(rel) != ""
	}

	// Messages: the files of the recent commits whose subjects share the
	// request's words; seeds of nothing (the request is their seed).
	if g.git != nil && g.git.Messages.Len() > 0 {
		ms := g.git.Messages.Rank(tree.TermsOf(g.req.Query.Words), 200, code)
		lr.message = make(map[string]int, len(ms))
		want, added := g.linkWant(messageDepth, named), 0
		for k, s := range ms {
			lr.message[s.Path] = k + 1
			if added < want && g.cands[s.Path] == nil {
				if g.add(s.Path, reasonMessage, ctxd.RoleRelated, false) != nil {
					added++
				}
			}
		}
	}
	if len(seeds) == 0 {
		return lr
	}

	// Graph.
	if lg := g.snap.Links(ctx, g.w); lg != nil && lg.Graph.EdgeCount() > 0 {
		ids := map[int32]float64{}
		for rel, w := range seeds {
			if i, ok := g.snap.FileIndex(rel); ok {
				ids[i] = w
			}
		}
		top := lg.Top(ids)
		lr.graph = make(map[string]int, len(top))
		added := 0
		k := 0
		for _, r := range top {
			if int(r.Node) >= lg.FileNodes {
				continue // a package hub
			}
			k++
			rel := g.snap.Files[r.Node].Rel
			lr.graph[rel] = k
			if added < graphWant && g.cands[rel] == nil && seeds[rel] == 0 && code(rel) {
				if g.add(rel, reasonGraph+" "+g.linkedSeed(lg, r.Node, ids), ctxd.RoleRelated, false) != nil {
					added++
				}
			}
		}
	}

	// Co-change.
	if g.git != nil && g.git.History.Len() > 0 {
		co := g.git.History.CoChanged(seeds, 0, 200, code)
		lr.cochange = make(map[string]int, len(co))
		added := 0
		for k, s := range co {
			lr.cochange[s.Path] = k + 1
			if added < coWant && g.cands[s.Path] == nil && seeds[s.Path] == 0 {
				if g.add(s.Path, reasonCoChange+" the request's files in recent commits", ctxd.RoleRelated, false) != nil {
					added++
				}
			}
		}
	}
	return lr
}

// linkedSeed names the seed node i is most strongly linked to, directly
// or through its package.
func (g *gathering) linkedSeed(lg *tree.LinkGraph, i int32, seeds map[int32]float64) string {
	best, bw := int32(-1), float32(0)
	dst, w := lg.Graph.Out(i)
	for k, d := range dst {
		if seeds[d] > 0 && w[k] > bw {
			best, bw = d, w[k]
		}
	}
	for k, d := range dst {
		if best >= 0 || int(d) < lg.FileNodes {
			continue
		}
		hd, hw := lg.Graph.Out(d)
		for m, s := range hd {
			if seeds[s] > 0 && w[k]*hw[m] > bw {
				best, bw = s, w[k]*hw[m]
			}
		}
	}
	if best < 0 {
		return "the request's files"
	}
	return g.snap.Files[best].Rel
}

// linkFacts copies the link ranks onto the candidates.
func (g *gathering) linkFacts(lr linkRanks) {
	for rel, c := range g.cands {
		c.facts.GraphRank = lr.graph[rel]
		c.facts.CoChangeRank = lr.cochange[rel]
		c.facts.MessageRank = lr.message[rel]
	}
}

// Reasons of the link signals.
const (
	reasonGraph    = "linked to"
	reasonCoChange = "changed together with"
)
