package gather

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/graph"
	"github.com/ctxd/ctxd/internal/memo"
	"github.com/ctxd/ctxd/lang"
)

// Links are the signals that do not need the request's words: the import
// and reference graph walked by personalized PageRank, and git co-change.
// Both start from seeds: the best lexical matches, the files the user
// pointed at (open, named, in a stack trace) and the files with
// uncommitted changes. Each adds its best few files as candidates and
// gives every candidate its rank, which prioritize fuses with the others.

// LinkOptions tune the link signals. The defaults were fit on the
// development set (scripts/fitweights, BENCHMARKS.md).
type LinkOptions struct {
	// LexicalSeeds is how many of the best lexical matches seed the walk.
	LexicalSeeds int
	// GraphDepth and CoChangeDepth are how many files each signal adds
	// as candidates beyond those gathered otherwise.
	GraphDepth, CoChangeDepth int
	// Restart is PageRank's restart probability.
	Restart float64
	// Commits is how much history co-change reads (per HEAD, cached).
	Commits int
	// Reverse is the weight of "imported by" against "imports".
	Reverse float32
}

// Links holds the link options in use. It is a variable so that the
// weight search (scripts/fitweights) can try others; nothing else
// changes it.
var Links = LinkOptions{
	LexicalSeeds:  10,
	GraphDepth:    2,
	CoChangeDepth: 2,
	Restart:       0.3,
	Commits:       400,
	Reverse:       0.5,
}

// Reasons of the link signals.
const (
	reasonGraph    = "linked to"
	reasonCoChange = "changed together with"
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
	graph, cochange map[string]int // 1-based ranks
}

// linkSources seeds the graph and co-change signals, adds their best
// files as candidates and returns the ranks of every file they reached.
func (g *gathering) linkSources(ctx context.Context, hits []Hit, targets []string) linkRanks {
	var lr linkRanks
	named := len(targets) > 0
	graphWant, coWant := g.linkWant(Links.GraphDepth, named), g.linkWant(Links.CoChangeDepth, named)
	seeds := lexicalSeeds(hits)
	for _, t := range targets {
		seeds[t] = 2
	}
	if g.git != nil && g.git.diff != nil {
		for _, c := range g.git.diff.Changes {
			if f := g.snap.byRel[c.Path]; f != nil && f.doc != nil && f.doc.role == lang.RoleCode {
				seeds[c.Path] = max(seeds[c.Path], 1)
			}
		}
	}
	if len(seeds) == 0 {
		return lr
	}
	// A file of no known language (.editorconfig, .gitignore,
	// .gitattributes) is classed as code by default, but what changes
	// with everything is noise to co-change, not a partner.
	code := func(rel string) bool {
		f := g.snap.byRel[rel]
		return f != nil && !f.secret && f.doc != nil && f.doc.role == lang.RoleCode && !f.doc.test && lang.Of(rel) != ""
	}

	// Graph.
	if lg := g.snap.links(ctx, g.w); lg != nil && lg.g.EdgeCount() > 0 {
		ids := map[int32]float64{}
		for rel, w := range seeds {
			if i, ok := g.snap.fileIndex(rel); ok {
				ids[i] = w
			}
		}
		top := lg.top(ids)
		lr.graph = make(map[string]int, len(top))
		added := 0
		k := 0
		for _, r := range top {
			if int(r.Node) >= lg.files {
				continue // a package hub
			}
			k++
			rel := g.snap.files[r.Node].rel
			lr.graph[rel] = k
			if added < graphWant && g.cands[rel] == nil && seeds[rel] == 0 && code(rel) {
				if g.add(rel, reasonGraph+" "+g.linkedSeed(lg, r.Node, ids), ctxd.RoleRelated, false) != nil {
					added++
				}
			}
		}
	}

	// Co-change.
	if g.git != nil && g.git.history.Len() > 0 {
		co := g.git.history.CoChanged(seeds, 0, 200, code)
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

// lexicalSeeds are the link signals' seeds from the best lexical matches
// (of Links.LexicalSeeds), weighted by their score against the best's.
func lexicalSeeds(hits []Hit) map[string]float64 {
	seeds := map[string]float64{}
	if len(hits) == 0 {
		return seeds
	}
	top := hits[0].Score
	// Test files are left out: what they link to is what they test,
	// which addTests already pairs.
	n := 0
	for _, h := range hits {
		if n >= Links.LexicalSeeds {
			break
		}
		if lang.IsTest(h.Path) {
			continue
		}
		n++
		if w := h.Score / top; w >= 0.2 {
			seeds[h.Path] = w
		}
	}
	return seeds
}

// linkedSeed names the seed node i is most strongly linked to, directly
// or through its package.
func (g *gathering) linkedSeed(lg *linkGraph, i int32, seeds map[int32]float64) string {
	best, bw := int32(-1), float32(0)
	dst, w := lg.g.Out(i)
	for k, d := range dst {
		if seeds[d] > 0 && w[k] > bw {
			best, bw = d, w[k]
		}
	}
	for k, d := range dst {
		if best >= 0 || int(d) < lg.files {
			continue
		}
		hd, hw := lg.g.Out(d)
		for m, s := range hd {
			if seeds[s] > 0 && w[k]*hw[m] > bw {
				best, bw = s, w[k]*hw[m]
			}
		}
	}
	if best < 0 {
		return "the request's files"
	}
	return g.snap.files[best].rel
}

// fileIndex returns rel's position in the snapshot's files (its graph
// node).
func (s *snapshot) fileIndex(rel string) (int32, bool) {
	i := sort.Search(len(s.files), func(i int) bool { return s.files[i].rel >= rel })
	if i < len(s.files) && s.files[i].rel == rel {
		return int32(i), true
	}
	return 0, false
}

// linkGraph is a snapshot's file graph.
type linkGraph struct {
	g      *graph.Graph
	files  int  // nodes below are files; the rest are Go package hubs
	loaded bool // read from the persisted graph (linkcache.go)
	// tops are the walk's best nodes by seed set (seedKey): a request
	// seeded as an earlier one on the same snapshot (the same words, open
	// files and uncommitted changes) reuses its walk. They go with the
	// snapshot, so a changed tree walks again.
	tops *memo.Map[string, []graph.Ranked]
}

// linkTops is how many walks a file graph remembers.
const linkTops = 64

// linkTop is how many of the walk's best nodes rank candidates.
const linkTop = 200

func newLinkGraph(g *graph.Graph, files int, loaded bool) *linkGraph {
	return &linkGraph{g: g, files: files, loaded: loaded, tops: memo.New[string, []graph.Ranked](linkTops)}
}

// top returns the best nodes of the personalized PageRank from ids,
// best first; the slice is shared and must not be changed. The walk
// pushes mass from the seeds (graph.TopPersonalized): its work follows
// the neighborhood the seeds reach, and its best 200 are PageRank's
// within the power iteration's own error (TestLinkWalkAgreesOnTrees).
func (lg *linkGraph) top(ids map[int32]float64) []graph.Ranked {
	return lg.tops.Get(seedKey(ids, Links.Restart), func() []graph.Ranked {
		return lg.g.TopPersonalized(ids, graph.WalkOptions{Restart: Links.Restart}, linkTop)
	})
}

// seedKey names a walk: its seeds in node order with their exact weights,
// and the restart probability.
func seedKey(ids map[int32]float64, restart float64) string {
	nodes := slices.Sorted(maps.Keys(ids))
	b := make([]byte, 0, 8+12*len(nodes))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(restart))
	for _, i := range nodes {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(ids[i]))
	}
	return string(b)
}

// links returns the snapshot's file graph, built on first use and kept
// with the snapshot: a request on an unchanged tree reuses it. nil when
// ctx ends first.
func (s *snapshot) links(ctx context.Context, w *Workspace) *linkGraph {
	s.linksMu.Lock()
	defer s.linksMu.Unlock()
	if s.linkG != nil {
		return s.linkG
	}
	if ctx.Err() != nil {
		return nil
	}
	var key string
	if w.linksState() != nil {
		key = s.linksKey(w)
		if lg := s.loadLinks(w, key); lg != nil {
			s.linkG = lg
			return lg
		}
	}
	s.linkG = buildLinks(s)
	if w != nil {
		w.log.Debug("file graph built", keyFiles, len(s.files), "edges", s.linkG.g.EdgeCount(), "bytes", s.linkG.g.Bytes())
		if key != "" {
			s.saveLinks(w, key, s.linkG)
		}
	}
	return s.linkG
}

// buildLinks builds s's file graph.
func buildLinks(s *snapshot) *linkGraph {
	ie := newImportEdges(s)
	g := graph.Build(ie.nodes(), graph.Options{},
		ie, graph.References(symbolTable{s}, graph.RefOptions{Reverse: Links.Reverse}))
	return newLinkGraph(g, len(s.files), false)
}

// symbolTable is the snapshot's lexical definitions and uses, as the
// graph's reference edges read them: a code file's defined-name terms and
// content terms (the same hashes, so a use meets its definition).
type symbolTable struct{ s *snapshot }

var _ graph.SymbolTable = symbolTable{}

func (t symbolTable) Len() int { return len(t.s.files) }

func (t symbolTable) doc(i int) *indexDoc {
	f := t.s.files[i]
	if f.secret || f.doc == nil || f.doc.role != lang.RoleCode {
		return nil
	}
	return f.doc
}

// Group puts files of one language family together: a Go file does not
// reference a name a Python file defines.
func (t symbolTable) Group(i int) int32 {
	l := t.s.files[i].lang()
	switch {
	case sameFamily(l, "javascript"):
		l = "javascript"
	case sameFamily(l, "java"):
		l = "java"
	}
	return int32(fnv32([]byte(l)))
}

var _ graph.Grouped = symbolTable{}

func (t symbolTable) Defines(i int) []uint32 {
	if d := t.doc(i); d != nil {
		return d.defs.hash
	}
	return nil
}

func (t symbolTable) Uses(i int) []uint32 {
	if d := t.doc(i); d != nil {
		return d.content.hash
	}
	return nil
}

// importEdges resolves every file's imports (see Imports) to the files of
// the snapshot they name, with maps built once instead of the pairwise
// lang.ImportResolver: Go packages by import path, Python modules by dotted
// name, JS/TS files by path without extension, Java classes by name.
// A Go import names a package, not a file: each package is a hub node
// (numbered after the files) that its importers link to and that links to
// its files and, less, back to its importers; its files link to it too,
// which also relates the files of one package. Other imports link the two
// files both ways (the reverse weighted Links.Reverse).
type importEdges struct {
	s       *snapshot
	goPkgs  map[string]int32 // import path → hub index (0-based)
	members [][]int32        // hub → its files
	// resolved imports of the other languages: importer → files
	py, js, java map[int32][]int32
}

var _ graph.Source = (*importEdges)(nil)

func newImportEdges(s *snapshot) *importEdges {
	ie := &importEdges{s: s, goPkgs: map[string]int32{}}
	res := lang.ImportResolver{GoModule: s.goModule}
	goPathOf := map[string]string{} // dir → import path
	pyMods := map[string][]int32{}
	jsStems := map[string][]int32{}
	javaByName := map[string][]int32{}
	for i, f := range s.files {
		if f.secret || f.doc == nil || f.doc.role != lang.RoleCode {
			continue
		}
		id := int32(i)
		switch {
		case f.lang() == "go":
			if lang.IsTest(f.rel) {
				continue
			}
			dir := path.Dir(f.rel)
			ip, ok := goPathOf[dir]
			if !ok {
				ip = res.GoImportPath(dir)
				goPathOf[dir] = ip
			}
			if ip == "" {
				continue
			}
			h, ok := ie.goPkgs[ip]
			if !ok {
				h = int32(len(ie.members))
				ie.goPkgs[ip] = h
				ie.members = append(ie.members, nil)
			}
			ie.members[h] = append(ie.members[h], id)
		case f.lang() == "python":
			for _, m := range lang.PyModuleNames(f.rel) {
				pyMods[m] = append(pyMods[m], id)
			}
		case sameFamily(f.lang(), "javascript"):
			stem := strings.TrimSuffix(f.rel, path.Ext(f.rel))
			jsStems[stem] = append(jsStems[stem], id)
		case sameFamily(f.lang(), "java"):
			base := path.Base(f.rel)
			name := strings.TrimSuffix(base, path.Ext(base))
			javaByName[name] = append(javaByName[name], id)
		}
	}
	ie.py, ie.js, ie.java = map[int32][]int32{}, map[int32][]int32{}, map[int32][]int32{}
	for i, f := range s.files {
		if len(f.imports) == 0 || f.secret || f.doc == nil {
			continue
		}
		id := int32(i)
		switch {
		case f.lang() == "python":
			for _, spec := range f.imports {
				if strings.HasPrefix(spec, ".") {
					spec = lang.PyAbsolute(f.rel, spec)
				}
				// The longest dotted suffix that names a module of the tree.
				for m := spec; m != ""; {
					if to := pyMods[m]; len(to) > 0 {
						if len(to) <= 3 {
							ie.py[id] = append(ie.py[id], to...)
						}
						break
					}
					_, rest, ok := strings.Cut(m, ".")
					if !ok {
						break
					}
					m = rest
				}
			}
		case sameFamily(f.lang(), "javascript"):
			for _, spec := range f.imports {
				if !strings.HasPrefix(spec, ".") {
					continue
				}
				base := path.Join(path.Dir(f.rel), spec)
				for _, e := range lang.JSExts {
					if strings.HasSuffix(base, e) {
						base = strings.TrimSuffix(base, e)
						break
					}
				}
				if to := jsStems[base]; len(to) > 0 {
					ie.js[id] = append(ie.js[id], to[0])
				} else if to := jsStems[base+"/index"]; len(to) > 0 {
					ie.js[id] = append(ie.js[id], to[0])
				}
			}
		case sameFamily(f.lang(), "java"):
			for _, spec := range f.imports {
				if strings.HasSuffix(spec, ".*") {
					continue // a whole package: too wide to say which file
				}
				cls := strings.ReplaceAll(spec, ".", "/")
				for _, t := range javaByName[path.Base(cls)] {
					rel := s.files[t].rel
					if strings.HasSuffix(strings.TrimSuffix(rel, path.Ext(rel)), cls) {
						ie.java[id] = append(ie.java[id], t)
					}
				}
			}
		}
	}
	return ie
}

// nodes is the number of graph nodes: the files, then the Go package hubs.
func (ie *importEdges) nodes() int { return len(ie.s.files) + len(ie.members) }

func (ie *importEdges) Edges(add func(from, to int32, w float32)) {
	s := ie.s
	nf := int32(len(s.files))
	rev := Links.Reverse
	// Go: importer → hub, hub → files, files → hub, hub → importers.
	importers := make([][]int32, len(ie.members))
	for i, f := range s.files {
		if f.lang() != "go" || len(f.imports) == 0 || f.secret || f.doc == nil {
			continue
		}
		for _, spec := range f.imports {
			if h, ok := ie.goPkgs[spec]; ok && path.Dir(f.rel) != path.Dir(s.files[ie.members[h][0]].rel) {
				add(int32(i), nf+h, 1)
				importers[h] = append(importers[h], int32(i))
			}
		}
	}
	for h, files := range ie.members {
		hub := nf + int32(h)
		for _, f := range files {
			add(hub, f, 1/float32(len(files)))
			add(f, hub, rev)
		}
		for _, imp := range importers[h] {
			add(hub, imp, rev/float32(len(importers[h])))
		}
	}
	// Other languages: file to file, both ways.
	for _, m := range []map[int32][]int32{ie.py, ie.js, ie.java} {
		for from, to := range m {
			if len(to) == 0 || len(to) > 200 {
				continue
			}
			w := 1 / float32(len(to))
			for _, t := range to {
				add(from, t, w)
				add(t, from, w*rev)
			}
		}
	}
}

// linkFacts copies the link ranks onto the candidates.
func (g *gathering) linkFacts(lr linkRanks) {
	for rel, c := range g.cands {
		c.facts.GraphRank = lr.graph[rel]
		c.facts.CoChangeRank = lr.cochange[rel]
	}
}

// String describes a link graph for logs.
func (lg *linkGraph) String() string {
	return fmt.Sprintf("%d files, %d edges, %d bytes", lg.g.Len(), lg.g.EdgeCount(), lg.g.Bytes())
}
