//go:build cgo && !notreesitter

package treesitter

import (
	"encoding/binary"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/uvarint"
)

// An analysis is stored without its source and line index (the caller
// has the source: the entry's key is its hash) and without what its
// language implies (style, fold word). Strings (names, kinds, one-line
// signatures, first sentences of docs, placeholders) go once into a
// table that the rest refers to by index. Encoding, all integers
// uvarints:
//
//	lang, syntax, syntaxLine
//	strings: count, (len, bytes)...
//	symbols: count, (name, kind, start, end, signature, exported, doc, parent, depth)...
//	imports: count, string...
//	bodies:  count, (edit, lines, fnFirst, fnLast, names, keepInBodies, outer)...
//	docs:    count, edit...
//	members: count, (scope, start, end, private, names, function)...
//	hooks:   count, (as symbols)...
//
// where an edit is start, end, text, elided start, elided end, and names
// is a count and strings.

// learn marks the entry of key used, adding a's encoding when the store
// does not have it (an analysis this process made without the store).
func (s *Store) learn(key [32]byte, a *analysis) {
	if _, ok := s.analysisData(key); !ok {
		s.putAnalysis(key, encodeAnalysis(a))
	}
}

// encodeAnalysis returns a's encoding.
func encodeAnalysis(a *analysis) []byte {
	var tab []string
	idx := map[string]int{}
	ref := func(s string) int {
		i, ok := idx[s]
		if !ok {
			i = len(tab)
			idx[s] = i
			tab = append(tab, s)
		}
		return i
	}
	// The body refers to the table, so it is written first and the
	// table put in front of it.
	var body []byte
	u := func(v int) { body = binary.AppendUvarint(body, uint64(v)) }
	b := func(v bool) {
		if v {
			u(1)
		} else {
			u(0)
		}
	}
	s := func(v string) { u(ref(v)) }
	names := func(ns []string) {
		u(len(ns))
		for _, n := range ns {
			s(n)
		}
	}
	ed := func(e edit) {
		u(e.start)
		u(e.end)
		s(e.text)
		u(e.elided.Start)
		u(e.elided.End)
	}
	syms := func(ys []Symbol) {
		u(len(ys))
		for _, y := range ys {
			s(y.Name)
			s(y.Kind)
			u(y.Start)
			u(y.End)
			s(y.Signature)
			b(y.Exported)
			s(y.Doc)
			s(y.Parent)
			u(y.Depth)
			b(y.Inner)
		}
	}
	syms(a.symbols)
	names(a.imports)
	u(len(a.bodies))
	for _, x := range a.bodies {
		ed(x.edit)
		u(x.lines)
		u(x.fnFirst)
		u(x.fnLast)
		names(x.names)
		b(x.keepInBodies)
		u(x.outer)
	}
	u(len(a.docs))
	for _, d := range a.docs {
		ed(d)
	}
	u(len(a.members))
	for _, m := range a.members {
		u(m.scope)
		u(m.start)
		u(m.end)
		b(m.private)
		names(m.names)
		b(m.function)
	}
	syms(a.hooks)

	out := binary.AppendUvarint(nil, uint64(len(a.lang)))
	out = append(out, a.lang...)
	if a.syntax {
		out = append(out, 1)
	} else {
		out = append(out, 0)
	}
	out = binary.AppendUvarint(out, uint64(a.syntaxLine))
	out = binary.AppendUvarint(out, uint64(len(tab)))
	for _, t := range tab {
		out = binary.AppendUvarint(out, uint64(len(t)))
		out = append(out, t...)
	}
	return append(out, body...)
}

// decodeAnalysis decodes an analysis of src in language lang, checking
// that every offset and line it holds is inside src. src is kept, not
// copied.
func decodeAnalysis(data []byte, lang string, src []byte) (*analysis, error) {
	spec, ok := specs[lang]
	if !ok {
		return nil, fmt.Errorf("decode analysis: language %q: %w", lang, ErrStoreEncoding)
	}
	r := uvarint.NewReader(data)
	if got := string(r.Bytes(r.Count(1))); r.Err() == nil && got != lang {
		return nil, fmt.Errorf("decode analysis: language %q, want %q: %w", got, lang, ErrStoreEncoding)
	}
	a := &analysis{lang: lang, src: src, lines: newLineIndex(src), style: spec.style, foldWord: spec.foldWord}
	a.syntax = r.Bool()
	a.syntaxLine = r.Offset()
	tab := make([]string, r.Count(1))
	for i := range tab {
		tab[i] = string(r.Bytes(r.Count(1)))
	}
	nlines := len(a.lines)
	off := func() int {
		v := r.Offset()
		if v > len(src) {
			r.Fail("offset past the source")
			return 0
		}
		return v
	}
	line := func() int {
		v := r.Offset()
		if v > nlines {
			r.Fail("line past the source")
			return 0
		}
		return v
	}
	str := func() string {
		i := r.Uvarint()
		if i >= uint64(len(tab)) {
			r.Fail("string index out of range")
			return ""
		}
		return tab[i]
	}
	names := func() []string {
		n := r.Count(1)
		if n == 0 {
			return nil
		}
		out := make([]string, n)
		for i := range out {
			out[i] = str()
		}
		return out
	}
	ed := func() edit {
		e := edit{start: off(), end: off(), text: str()}
		e.elided = ctxd.LineRange{Start: line(), End: line()}
		if e.end < e.start {
			r.Fail("edit ends before it starts")
		}
		return e
	}
	syms := func() []Symbol {
		n := r.Count(9)
		if n == 0 {
			return nil
		}
		ys := make([]Symbol, n)
		for i := range ys {
			y := &ys[i]
			y.Name, y.Kind = str(), str()
			y.Start, y.End = line(), line()
			y.Signature = str()
			y.Exported = r.Bool()
			y.Doc, y.Parent = str(), str()
			y.Depth = r.Offset()
			y.Inner = r.Bool()
			if y.Start < 1 || y.End < y.Start {
				r.Fail("symbol lines out of order")
			}
		}
		return ys
	}
	a.symbols = syms()
	a.imports = names()
	if n := r.Count(10); n > 0 {
		a.bodies = make([]bodyEdit, n)
		for i := range a.bodies {
			x := &a.bodies[i]
			x.edit = ed()
			x.lines = r.Offset()
			x.fnFirst, x.fnLast = line(), line()
			x.names = names()
			x.keepInBodies = r.Bool()
			x.outer = r.Offset()
		}
	}
	if n := r.Count(5); n > 0 {
		a.docs = make([]edit, n)
		for i := range a.docs {
			a.docs[i] = ed()
		}
	}
	if n := r.Count(6); n > 0 {
		a.members = make([]member, n)
		for i := range a.members {
			m := &a.members[i]
			m.scope = r.Offset()
			m.start, m.end = off(), off()
			m.private = r.Bool()
			m.names = names()
			m.function = r.Bool()
			if m.end < m.start {
				r.Fail("member ends before it starts")
			}
		}
	}
	a.hooks = syms()
	if r.Err() == nil && r.Len() != 0 {
		r.Fail(fmt.Sprintf("%d trailing bytes", r.Len()))
	}
	if r.Err() != nil {
		return nil, fmt.Errorf("decode analysis: %w: %v", ErrStoreEncoding, r.Err())
	}
	return a, nil
}
