package tree

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"time"

	"github.com/ctxd/ctxd/graph"
	"github.com/ctxd/ctxd/index"
)

// The file graph persists beside the index (<state>/index/links.bin), so
// a fresh process on an unchanged tree loads it instead of resolving
// every import and reference again. It is keyed by a digest of
// everything the graph is built from: each file's path, language, flags
// and content hash (imports, definitions and uses derive from the content
// and the term extractor's version), the link weights and linksVersion. A file that does not
// verify or was written for another tree is rebuilt, never trusted.

// linksVersion changes with how the graph is built (importEdges,
// graph.References, graph.Build) or what its imports are read as
// (lang.ImportsAt; termsVersion, in the key too, changes with them).
const linksVersion = 3 // 3: a Python `from m import (` over lines links every name that is a module

const (
	linksMagic = "CTXDLNK1"
	linksFile  = "links.bin"
	// maxLinksBytes bounds the file read: 64 edges per node at 100k+ files.
	maxLinksBytes = 256 << 20
)

// linksState is where the graph persists; nil without a state.
func (w *Tree) linksState() State {
	if w == nil {
		return nil
	}
	return w.opts.State
}

// linksKey digests what s's file graph is built from.
func (s *Snapshot) linksKey(w *Tree) string {
	h := sha256.New()
	fmt.Fprintf(h, "links=%d terms=%d index=%d reverse=%v root=%s\x00", linksVersion, termsVersion, index.Version, math.Float32bits(w.LinkOptions().Reverse), w.root)
	var b []byte
	for _, f := range s.Files {
		b = b[:0]
		b = append(b, f.Rel...)
		b = append(b, 0)
		b = append(b, f.Lang()...)
		b = append(b, 0)
		var flags byte
		if f.Secret {
			flags |= 1
		}
		if d := f.doc; d != nil {
			flags |= 2
			if d.test {
				flags |= 4
			}
			b = binary.AppendUvarint(b, uint64(d.role))
		}
		b = append(b, flags)
		b = append(b, f.hash[:]...)
		b = binary.AppendUvarint(b, uint64(len(f.Imports)))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// loadLinks reads the persisted graph for key; nil when there is none or
// it does not verify (a corrupt one is logged).
func (s *Snapshot) loadLinks(w *Tree, key string) *LinkGraph {
	st := w.linksState()
	if st == nil {
		return nil
	}
	t0 := time.Now()
	body, err := st.ReadSealed(linksFile, linksMagic, key, maxLinksBytes)
	if err == nil {
		var g *graph.Graph
		if g, err = graph.Decode(body); err == nil {
			if g.Len() < len(s.Files) {
				err = fmt.Errorf("%w: %d nodes for %d files", graph.ErrEncoding, g.Len(), len(s.Files))
			} else {
				w.log.Debug("file graph loaded", keyFiles, len(s.Files), "edges", g.EdgeCount(), keyTook, time.Since(t0))
				return newLinkGraph(g, len(s.Files), true, w.LinkOptions().Restart)
			}
		}
	}
	if !index.IsRebuild(err) {
		w.log.Warn("persisted file graph not used: rebuilding it", "err", err)
	}
	return nil
}

// saveLinks writes lg for key in the background (Close waits for it).
func (s *Snapshot) saveLinks(w *Tree, key string, lg *LinkGraph) {
	st := w.linksState()
	if st == nil {
		return
	}
	f := &w.follow
	f.saveWG.Go(func() {
		body, err := lg.Graph.AppendBinary(nil)
		if err == nil {
			err = st.WriteSealed(linksFile, linksMagic, key, body)
		}
		if err != nil {
			w.log.Warn("persisting the file graph failed", "err", err)
		}
	})
}
