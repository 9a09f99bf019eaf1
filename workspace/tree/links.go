package tree

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

// fileIndex returns rel's position in the snapshot's files (its graph
// node).
func (s *Snapshot) FileIndex(rel string) (int32, bool) {
	i := sort.Search(len(s.Files), func(i int) bool { return s.Files[i].Rel >= rel })
	if i < len(s.Files) && s.Files[i].Rel == rel {
		return int32(i), true
	}
	return 0, false
}

// linkGraph is a snapshot's file graph.
type LinkGraph struct {
	Graph     *graph.Graph
	FileNodes int  // nodes below are files; the rest are Go package hubs
	loaded    bool // read from the persisted graph (linkcache.go)
	// tops are the walk's best nodes by seed set (seedKey): a request
	// seeded as an earlier one on the same snapshot (the same words, open
	// files and uncommitted changes) reuses its walk. They go with the
	// snapshot, so a changed tree walks again.
	tops *memo.Map[string, []graph.Ranked]
	// restart is the walk's restart probability (LinkOptions.Restart).
	restart float64
}

// linkTops is how many walks a file graph remembers.
const linkTops = 64

// linkTop is how many of the walk's best nodes rank candidates.
const linkTop = 200

func newLinkGraph(g *graph.Graph, files int, loaded bool, restart float64) *LinkGraph {
	return &LinkGraph{Graph: g, FileNodes: files, loaded: loaded, restart: restart, tops: memo.New[string, []graph.Ranked](linkTops)}
}

// top returns the best nodes of the personalized PageRank from ids,
// best first; the slice is shared and must not be changed. The walk
// pushes mass from the seeds (graph.TopPersonalized): its work follows
// the neighborhood the seeds reach, and its best 200 are PageRank's
// within the power iteration's own error (TestLinkWalkAgreesOnTrees).
func (lg *LinkGraph) Top(ids map[int32]float64) []graph.Ranked {
	return lg.tops.Get(seedKey(ids, lg.restart), func() []graph.Ranked {
		return lg.Graph.TopPersonalized(ids, graph.WalkOptions{Restart: lg.restart}, linkTop)
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
func (s *Snapshot) Links(ctx context.Context, w *Tree) *LinkGraph {
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
	s.linkG = buildLinks(s, w.LinkOptions())
	if w != nil {
		w.log.Debug("file graph built", keyFiles, len(s.Files), "edges", s.linkG.Graph.EdgeCount(), "bytes", s.linkG.Graph.Bytes())
		if key != "" {
			s.saveLinks(w, key, s.linkG)
		}
	}
	return s.linkG
}

// buildLinks builds s's file graph.
func buildLinks(s *Snapshot, o LinkOptions) *LinkGraph {
	ie := newImportEdges(s, o.Reverse)
	g := graph.Build(ie.nodes(), graph.Options{},
		ie, graph.References(symbolTable{s}, graph.RefOptions{Reverse: o.Reverse}))
	return newLinkGraph(g, len(s.Files), false, o.Restart)
}

// symbolTable is the snapshot's lexical definitions and uses, as the
// graph's reference edges read them: a code file's defined-name terms and
// content terms (the same hashes, so a use meets its definition).
type symbolTable struct{ s *Snapshot }

var _ graph.SymbolTable = symbolTable{}

func (t symbolTable) Len() int { return len(t.s.Files) }

func (t symbolTable) doc(i int) *indexDoc {
	f := t.s.Files[i]
	if f.Secret || f.doc == nil || f.doc.role != lang.RoleCode {
		return nil
	}
	return f.doc
}

// Group puts files of one language family together: a Go file does not
// reference a name a Python file defines.
func (t symbolTable) Group(i int) int32 {
	l := t.s.Files[i].Lang()
	switch {
	case lang.SameFamily(l, "javascript"):
		l = "javascript"
	case lang.SameFamily(l, "java"):
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
// files both ways (the reverse weighted LinkOptions.Reverse).
type importEdges struct {
	s       *Snapshot
	reverse float32          // LinkOptions.Reverse
	goPkgs  map[string]int32 // import path → hub index (0-based)
	members [][]int32        // hub → its files
	// resolved imports of the other languages: importer → files
	py, js, java map[int32][]int32
}

var _ graph.Source = (*importEdges)(nil)

func newImportEdges(s *Snapshot, reverse float32) *importEdges {
	ie := &importEdges{s: s, reverse: reverse, goPkgs: map[string]int32{}}
	res := lang.ImportResolver{GoModule: s.GoModule}
	goPathOf := map[string]string{} // dir → import path
	py := s.PyModules()
	jsStems := map[string][]int32{}
	javaByName := map[string][]int32{}
	for i, f := range s.Files {
		if f.Secret || f.doc == nil || f.doc.role != lang.RoleCode {
			continue
		}
		id := int32(i)
		switch {
		case f.Lang() == "go":
			if lang.IsTest(f.Rel) {
				continue
			}
			dir := path.Dir(f.Rel)
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
		case lang.SameFamily(f.Lang(), "javascript"):
			stem := strings.TrimSuffix(f.Rel, path.Ext(f.Rel))
			jsStems[stem] = append(jsStems[stem], id)
		case lang.SameFamily(f.Lang(), "java"):
			base := path.Base(f.Rel)
			name := strings.TrimSuffix(base, path.Ext(base))
			javaByName[name] = append(javaByName[name], id)
		}
	}
	ie.py, ie.js, ie.java = map[int32][]int32{}, map[int32][]int32{}, map[int32][]int32{}
	for i, f := range s.Files {
		if len(f.Imports) == 0 || f.Secret || f.doc == nil {
			continue
		}
		id := int32(i)
		switch {
		case f.Lang() == "python":
			for _, spec := range f.Imports {
				for _, t := range py.Resolve(f.Rel, spec) {
					if d := s.Files[t].doc; t != id && d != nil && d.role == lang.RoleCode {
						ie.py[id] = append(ie.py[id], t)
					}
				}
			}
		case lang.SameFamily(f.Lang(), "javascript"):
			for _, spec := range f.Imports {
				if !strings.HasPrefix(spec, ".") {
					continue
				}
				base := path.Join(path.Dir(f.Rel), spec)
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
		case lang.SameFamily(f.Lang(), "java"):
			for _, spec := range f.Imports {
				if strings.HasSuffix(spec, ".*") {
					continue // a whole package: too wide to say which file
				}
				cls := strings.ReplaceAll(spec, ".", "/")
				for _, t := range javaByName[path.Base(cls)] {
					rel := s.Files[t].Rel
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
func (ie *importEdges) nodes() int { return len(ie.s.Files) + len(ie.members) }

func (ie *importEdges) Edges(add func(from, to int32, w float32)) {
	s := ie.s
	nf := int32(len(s.Files))
	rev := ie.reverse
	// Go: importer → hub, hub → files, files → hub, hub → importers.
	importers := make([][]int32, len(ie.members))
	for i, f := range s.Files {
		if f.Lang() != "go" || len(f.Imports) == 0 || f.Secret || f.doc == nil {
			continue
		}
		for _, spec := range f.Imports {
			if h, ok := ie.goPkgs[spec]; ok && path.Dir(f.Rel) != path.Dir(s.Files[ie.members[h][0]].Rel) {
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

// String describes a link graph for logs.
func (lg *LinkGraph) String() string {
	return fmt.Sprintf("%d files, %d edges, %d bytes", lg.Graph.Len(), lg.Graph.EdgeCount(), lg.Graph.Bytes())
}

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

// DefaultLinks returns the link options in use, fit on the development
// set by scripts/fitweights (BENCHMARKS.md); a search tries others
// through Options.Links, never by changing these.
func DefaultLinks() LinkOptions {
	return LinkOptions{
		LexicalSeeds:  10,
		GraphDepth:    2,
		CoChangeDepth: 2,
		Restart:       0.3,
		Commits:       400,
		Reverse:       0.5,
	}
}

// orDefault is o, or DefaultLinks when o is the zero value.
func (o LinkOptions) orDefault() LinkOptions {
	if o == (LinkOptions{}) {
		return DefaultLinks()
	}
	return o
}

// LinkOptions returns the link options the tree was opened with
// (Options.Links, or DefaultLinks); a nil tree's are the defaults.
func (w *Tree) LinkOptions() LinkOptions {
	if w == nil {
		return DefaultLinks()
	}
	return w.opts.Links.orDefault()
}

// LexicalSeeds are the link signals' seeds from the best n lexical
// matches (LinkOptions.LexicalSeeds), weighted by their score against
// the best's.
func LexicalSeeds(hits []Hit, n int) map[string]float64 {
	seeds := map[string]float64{}
	if len(hits) == 0 {
		return seeds
	}
	top := hits[0].Score
	// Test files are left out: what they link to is what they test,
	// which addTests already pairs.
	k := 0
	for _, h := range hits {
		if k >= n {
			break
		}
		if lang.IsTest(h.Path) {
			continue
		}
		k++
		if w := h.Score / top; w >= 0.2 {
			seeds[h.Path] = w
		}
	}
	return seeds
}
