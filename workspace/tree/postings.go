package tree

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unsafe"
)

// fullPostings holds the postings of every term of an index, built once in
// the background by a daemon's workspace (Index.buildFull), so a request's
// new terms cost their own postings, not a pass over every document.
//
// It is compact: the content and definitions fields are stored once per
// content group (files whose bytes are equal share their bags, see
// sameContent, and so their postings), the path field per document, each
// term's entries delta- and varint-coded in one byte slice. A term's
// [posting] is expanded from it on demand (and cached by the index), with
// the same entries, in the same order, as a scan of the documents finds.
type fullPostings struct {
	content postingList // entries: group gap, body count, definitions count
	path    postingList // entries: document gap, path count
	// The documents of group g are groupDocs[groupOff[g]:groupOff[g+1]],
	// ascending; groups are numbered in the order of their first document.
	groupOff  []int32
	groupDocs []int32
	docs      int // the index's documents
}

// postingList is the terms of one kind of entry, sorted, and their coded
// entries: term terms[i]'s are data[off[i]:off[i+1]].
type postingList struct {
	terms []uint32
	off   []uint32
	data  []byte
}

// entries returns h's coded entries, nil when no document holds it.
func (l *postingList) entries(h uint32) []byte {
	i, ok := slices.BinarySearch(l.terms, h)
	if !ok {
		return nil
	}
	return l.data[l.off[i]:l.off[i+1]]
}

// bagUnit is what the build merges: one content group's bags (a and b:
// content and definitions) or one document's path bag (a only).
type bagUnit struct{ a, b *terms }

// buildFullPostings builds the postings of every term of docs (an index's,
// in its order).
func buildFullPostings(docs []*indexDoc) *fullPostings {
	fp := &fullPostings{docs: len(docs)}
	// Content groups: documents whose content bags are the same slices.
	type bagKey struct{ c, d *uint32 }
	groupOf := make([]int32, len(docs))
	ids := map[bagKey]int32{}
	var units []bagUnit
	var sizes []int32
	for i, d := range docs {
		if len(d.content.hash) == 0 && len(d.defs.hash) == 0 {
			groupOf[i] = -1
			continue
		}
		k := bagKey{unsafe.SliceData(d.content.hash), unsafe.SliceData(d.defs.hash)}
		g, ok := ids[k]
		if !ok || len(d.content.hash) != len(units[g].a.hash) || len(d.defs.hash) != len(units[g].b.hash) {
			g = int32(len(units))
			ids[k] = g
			units = append(units, bagUnit{&d.content, &d.defs})
			sizes = append(sizes, 0)
		}
		groupOf[i] = g
		sizes[g]++
	}
	fp.groupOff = make([]int32, len(units)+1)
	for g, n := range sizes {
		fp.groupOff[g+1] = fp.groupOff[g] + n
	}
	fp.groupDocs = make([]int32, fp.groupOff[len(units)])
	next := slices.Clone(fp.groupOff[:len(units)])
	for i, g := range groupOf {
		if g >= 0 {
			fp.groupDocs[next[g]] = int32(i)
			next[g]++
		}
	}
	fp.content = mergeBags(units, true)
	paths := make([]bagUnit, len(docs))
	for i, d := range docs {
		paths[i] = bagUnit{a: &d.name}
	}
	fp.path = mergeBags(paths, false)
	return fp
}

// mergeBags merges the bags of units, unit numbers ascending for each
// term, into a postingList: a k-way merge over the units' sorted hashes
// through a heap of (hash, unit) keys. With two, a unit's entry has both
// counts (a term in b only has a's count 0).
func mergeBags(units []bagUnit, two bool) postingList {
	type cursor struct{ i, j int }
	cur := make([]cursor, len(units))
	// head returns unit u's current hash, ok false when it has no more.
	head := func(u int) (uint32, bool) {
		c, un := cur[u], units[u]
		var h uint32
		ok := false
		if c.i < len(un.a.hash) {
			h, ok = un.a.hash[c.i], true
		}
		if un.b != nil && c.j < len(un.b.hash) && (!ok || un.b.hash[c.j] < h) {
			h, ok = un.b.hash[c.j], true
		}
		return h, ok
	}
	heap := make([]uint64, 0, len(units))
	for u := range units {
		if h, ok := head(u); ok {
			heap = append(heap, uint64(h)<<32|uint64(u))
		}
	}
	less := func(i, j int) bool { return heap[i] < heap[j] }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(heap) {
				return
			}
			m := l
			if r := l + 1; r < len(heap) && less(r, l) {
				m = r
			}
			if !less(m, i) {
				return
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	var l postingList
	total := 0
	for _, un := range units {
		total += len(un.a.hash)
	}
	l.data = make([]byte, 0, total*3)
	last := int64(-1) // the current term's previous unit
	for len(heap) > 0 {
		top := heap[0]
		h, u := uint32(top>>32), int(uint32(top))
		if len(l.terms) == 0 || l.terms[len(l.terms)-1] != h {
			l.terms = append(l.terms, h)
			l.off = append(l.off, uint32(len(l.data)))
			last = -1
		}
		un, c := units[u], &cur[u]
		var ta, tb uint16
		if c.i < len(un.a.hash) && un.a.hash[c.i] == h {
			ta = un.a.tf[c.i]
			c.i++
		}
		if un.b != nil && c.j < len(un.b.hash) && un.b.hash[c.j] == h {
			tb = un.b.tf[c.j]
			c.j++
		}
		l.data = binary.AppendUvarint(l.data, uint64(int64(u)-last))
		l.data = binary.AppendUvarint(l.data, uint64(ta))
		if two {
			l.data = binary.AppendUvarint(l.data, uint64(tb))
		}
		last = int64(u)
		if nh, ok := head(u); ok {
			heap[0] = uint64(nh)<<32 | uint64(u)
		} else {
			heap[0] = heap[len(heap)-1]
			heap = heap[:len(heap)-1]
		}
		down(0)
	}
	l.off = append(l.off, uint32(len(l.data)))
	// Kept for the index's life: copies of their exact size, not the
	// slack of appending.
	return postingList{terms: slices.Clone(l.terms), off: slices.Clone(l.off), data: slices.Clone(l.data)}
}

// posting expands term h's postings: the entries of its content groups'
// documents and of the documents whose path holds it, by document.
func (fp *fullPostings) posting(h uint32) *posting {
	var es []postingDoc
	if b := fp.content.entries(h); b != nil {
		g := int64(-1)
		for len(b) > 0 {
			var gap, body, defs uint64
			b, gap = readUvarint(b)
			b, body = readUvarint(b)
			b, defs = readUvarint(b)
			g += int64(gap)
			for _, d := range fp.groupDocs[fp.groupOff[g]:fp.groupOff[g+1]] {
				es = append(es, postingDoc{doc: d, body: uint16(body), defs: uint16(defs)})
			}
		}
	}
	pb := fp.path.entries(h)
	if len(es)*32 > fp.docs {
		return fp.dense(es, pb)
	}
	if !slices.IsSortedFunc(es, byDoc) {
		slices.SortFunc(es, byDoc)
	}
	p := &posting{}
	if pb == nil {
		p.docs = es
		for _, e := range es {
			p.count(e)
		}
		return p
	}
	// Merge in the path's counts.
	p.docs = make([]postingDoc, 0, len(es)+len(pb)/2)
	d := int64(-1)
	k := 0
	for len(pb) > 0 {
		var gap, tf uint64
		pb, gap = readUvarint(pb)
		pb, tf = readUvarint(pb)
		d += int64(gap)
		for k < len(es) && int64(es[k].doc) < d {
			p.add(es[k])
			k++
		}
		e := postingDoc{doc: int32(d), path: uint16(tf)}
		if k < len(es) && int64(es[k].doc) == d {
			e.body, e.defs = es[k].body, es[k].defs
			k++
		}
		p.add(e)
	}
	for ; k < len(es); k++ {
		p.add(es[k])
	}
	return p
}

// dense is posting for a term many documents hold: the entries es and
// the path's pb are laid out by document in a table over every document,
// then read in order, instead of sorting es.
func (fp *fullPostings) dense(es []postingDoc, pb []byte) *posting {
	const held = 1 << 48
	t := make([]uint64, fp.docs) // held | path<<32 | body<<16 | defs
	n := len(es)
	for _, e := range es {
		t[e.doc] = held | uint64(e.body)<<16 | uint64(e.defs)
	}
	d := int64(-1)
	for len(pb) > 0 {
		var gap, tf uint64
		pb, gap = readUvarint(pb)
		pb, tf = readUvarint(pb)
		d += int64(gap)
		if t[d] == 0 {
			n++
		}
		t[d] |= held | tf<<32
	}
	p := &posting{docs: make([]postingDoc, 0, n)}
	for i, v := range t {
		if v != 0 {
			p.add(postingDoc{doc: int32(i), path: uint16(v >> 32), body: uint16(v >> 16), defs: uint16(v)})
		}
	}
	return p
}

func byDoc(x, y postingDoc) int { return cmp.Compare(x.doc, y.doc) }

// readUvarint decodes one varint of b. The postings are coded in memory by
// the build and never persisted, so well formed: no uvarint.Reader and its
// checks on the path of every term a request ranks.
func readUvarint(b []byte) ([]byte, uint64) {
	v, n := binary.Uvarint(b)
	return b[n:], v
}
