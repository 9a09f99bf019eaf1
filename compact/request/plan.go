package request

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ctxd/ctxd/internal/vsort"
)

// Plan is a set of changes to a request: items to drop, segments to drop
// or rewrite, items to insert. [Plan.Emit] writes the request back in its
// own format: every byte outside a change is copied from the original.
type Plan struct {
	r       *Request
	drop    []bool
	dropSeg map[SegRef]bool
	text    map[SegRef]string
	inserts []insertion
}

type insertion struct {
	at  int
	raw []byte
}

// edit replaces Span of the body with New.
type edit struct {
	Span Span
	New  []byte
}

// NewPlan returns an empty plan for r: emitting it returns r.Body as is.
func (r *Request) NewPlan() *Plan {
	return &Plan{r: r, drop: make([]bool, len(r.Items)), dropSeg: map[SegRef]bool{}, text: map[SegRef]string{}}
}

// DropItem removes item i.
func (p *Plan) DropItem(i int) { p.drop[i] = true }

// Dropped reports whether item i is removed.
func (p *Plan) Dropped(i int) bool { return p.drop[i] }

// DropSegment removes segment ref from its item. Only segments that are
// array elements (content blocks, tool_calls entries) can be removed
// alone; for others it reports false and the caller drops the item.
func (p *Plan) DropSegment(ref SegRef) bool {
	s := &p.r.Items[ref.Item].Segments[ref.Seg]
	if s.array() < 0 {
		return false
	}
	p.dropSeg[ref] = true
	return true
}

// SetText replaces the value of segment ref with text (as a JSON string).
// It reports false when the segment has no value to replace or was
// removed (DropSegment): a removed segment's tokens are gone already, and
// a caller that counted a rewrite of it would count them twice.
func (p *Plan) SetText(ref SegRef, text string) bool {
	s := &p.r.Items[ref.Item].Segments[ref.Seg]
	if s.Value().Len() == 0 || p.dropSeg[ref] {
		return false
	}
	p.text[ref] = text
	return true
}

// Insert adds the item raw (a JSON object in the request's format) before
// the original item at; at == len(Items) appends. Inserts at the same
// place keep their call order.
func (p *Plan) Insert(at int, raw []byte) {
	p.inserts = append(p.inserts, insertion{at: at, raw: raw})
}

// Emit writes the changed request.
func (p *Plan) Emit() ([]byte, error) {
	r := p.r
	var edits []edit
	if r.InputString {
		if p.drop[0] {
			return nil, fmt.Errorf("emit: the input string cannot be dropped")
		}
		if len(p.inserts) > 0 {
			// Turn "input": "text" into an item array around the original
			// string, so the inserted items have somewhere to go.
			var buf bytes.Buffer
			buf.WriteString(`[{"role":"user","content":`)
			buf.Write(r.Body[r.items.Start:r.items.End])
			buf.WriteString(`}`)
			for _, in := range p.inserts {
				buf.WriteString(`,`)
				buf.Write(in.raw)
			}
			buf.WriteString(`]`)
			edits = append(edits, edit{Span: r.items, New: buf.Bytes()})
		}
		return apply(r.Body, edits)
	}
	edits = append(edits, deleteElems(len(r.Items), func(i int) Span { return r.Items[i].Span() }, p.drop)...)
	for i, it := range r.Items {
		if p.drop[i] {
			continue
		}
		edits = append(edits, p.itemEdits(i, it)...)
	}
	edits = append(edits, p.insertEdits()...)
	return apply(r.Body, edits)
}

// itemEdits are the changes inside kept item i.
func (p *Plan) itemEdits(i int, it *Item) []edit {
	var edits []edit
	var dropMember []bool
	x := it.read()
	arrs, members := x.list, x.members
	for a, arr := range arrs {
		drop := make([]bool, len(arr.elems))
		n := 0
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.array() != a || !p.dropSeg[SegRef{i, j}] {
				continue
			}
			if k := slices.Index(arr.elems, s.Elem()); k >= 0 && !drop[k] {
				drop[k] = true
				n++
			}
		}
		switch {
		case n == 0:
		case n == len(arr.elems) && arr.member >= 0:
			if dropMember == nil {
				dropMember = make([]bool, len(members))
			}
			dropMember[arr.member] = true
		default:
			edits = append(edits, deleteSpans(arr.elems, drop)...)
		}
	}
	if dropMember != nil {
		spans := make([]Span, len(members))
		for k, m := range members {
			spans[k] = m.Span
		}
		edits = append(edits, deleteSpans(spans, dropMember)...)
	}
	for j := range it.Segments {
		ref := SegRef{i, j}
		text, ok := p.text[ref]
		if !ok || p.dropSeg[ref] {
			continue
		}
		if s := &it.Segments[j]; s.array() >= 0 && dropMember != nil && dropMember[arrs[s.array()].member] {
			continue
		}
		edits = append(edits, edit{Span: it.Segments[j].Value(), New: encodeString(text)})
	}
	return edits
}

// sortedInserts is the inserts by position, those at one place in call
// order.
func (p *Plan) sortedInserts() []insertion {
	ins := slices.Clone(p.inserts)
	vsort.StableFunc(ins, func(a, b insertion) int { return a.at - b.at })
	return ins
}

// insertEdits places inserted items next to the nearest kept original.
func (p *Plan) insertEdits() []edit {
	r := p.r
	if len(p.inserts) == 0 {
		return nil
	}
	sep := []byte(",")
	if len(r.Items) >= 2 {
		sep = r.Body[r.Items[0].Span().End:r.Items[1].Span().Start]
	}
	ins := p.sortedInserts()
	const (
		before = iota // the group goes before a kept item: raw, sep
		after         // after the last kept item: sep, raw
		bare          // into an array left empty: raw
	)
	type group struct {
		pos, mode int
		raw       [][]byte
	}
	var groups []*group
	add := func(pos, mode int, raw []byte) {
		for _, g := range groups {
			if g.pos == pos && g.mode == mode {
				g.raw = append(g.raw, raw)
				return
			}
		}
		groups = append(groups, &group{pos: pos, mode: mode, raw: [][]byte{raw}})
	}
	for _, in := range ins {
		k := max(in.at, 0)
		for k < len(r.Items) && p.drop[k] {
			k++
		}
		if k < len(r.Items) {
			add(r.Items[k].Span().Start, before, in.raw)
			continue
		}
		l := min(in.at, len(r.Items)) - 1
		for l >= 0 && p.drop[l] {
			l--
		}
		switch {
		case l >= 0:
			add(r.Items[l].Span().End, after, in.raw)
		case len(r.Items) > 0:
			add(r.Items[len(r.Items)-1].Span().End, bare, in.raw)
		default:
			add(r.items.Start+1, bare, in.raw)
		}
	}
	var edits []edit
	for _, g := range groups {
		body := bytes.Join(g.raw, sep)
		switch g.mode {
		case before:
			body = append(body, sep...)
		case after:
			body = append(slices.Clone(sep), body...)
		}
		edits = append(edits, edit{Span: Span{g.pos, g.pos}, New: body})
	}
	return edits
}

// deleteSpans is deleteElems of a list whose spans are elems.
func deleteSpans(elems []Span, drop []bool) []edit {
	return deleteElems(len(elems), func(i int) Span { return elems[i] }, drop)
}

// deleteElems returns edits that remove the elements (or object members)
// marked in drop from a list of n whose spans are elem(0)...elem(n-1),
// with their separators, without touching the bytes of kept elements.
func deleteElems(n int, elem func(int) Span, drop []bool) []edit {
	first := -1
	for i := range n {
		if !drop[i] {
			first = i
			break
		}
	}
	var edits []edit
	if first < 0 {
		if n > 0 {
			edits = append(edits, edit{Span: Span{elem(0).Start, elem(n - 1).End}})
		}
		return edits
	}
	if first > 0 {
		edits = append(edits, edit{Span: Span{elem(0).Start, elem(first).Start}})
	}
	for i := first + 1; i < n; i++ {
		if !drop[i] {
			continue
		}
		if i-1 > first && drop[i-1] {
			// A run of dropped elements is one edit (the same bytes
			// removed): evicting thousands of messages is not thousands
			// of edits to sort and apply.
			edits[len(edits)-1].Span.End = elem(i).End
			continue
		}
		edits = append(edits, edit{Span: Span{elem(i - 1).End, elem(i).End}})
	}
	return edits
}

// apply writes body with edits applied. Edits must not overlap; an
// overlap is a bug in the plan and returns an error.
func apply(body []byte, edits []edit) ([]byte, error) {
	if len(edits) == 0 {
		return body, nil
	}
	vsort.StableFunc(edits, func(a, b edit) int {
		if a.Span.Start != b.Span.Start {
			return a.Span.Start - b.Span.Start
		}
		return a.Span.End - b.Span.End
	})
	size := len(body)
	for _, e := range edits {
		size += len(e.New) - e.Span.Len()
	}
	out := make([]byte, 0, max(size, 0))
	prev := 0
	for _, e := range edits {
		if e.Span.Start < prev || e.Span.End > len(body) || e.Span.End < e.Span.Start {
			return nil, fmt.Errorf("emit: overlapping edit at %d (previous ends at %d)", e.Span.Start, prev)
		}
		out = append(out, body[prev:e.Span.Start]...)
		out = append(out, e.New...)
		prev = e.Span.End
	}
	return append(out, body[prev:]...), nil
}

// Verify proves that out is what p emits and counts it: its bytes
// outside the items array are the request's, byte for byte; the array
// holds, in the plan's order, every kept item without a change byte for
// byte, every kept item with one and every inserted item as one JSON
// value that parses alone as an item of the request's format; out is one
// valid JSON value; and its tool calls and results pair
// ([Request.Check]). It returns out's tokens as est counts them
// ([Estimator.Request]). That is what parsing out whole and checking it
// proves and counts, without a second model of the request beside the
// first (issue 28: 0.35x the body at 30,000 small messages): the
// unchanged items are the request's own, read where they are (est sets
// their counts again, to what it set when it counted the request), and
// only the changed and inserted ones are parsed, each alone.
func (p *Plan) Verify(out []byte, est *Estimator) (int, error) {
	r := p.r
	if r.InputString {
		// One item, no array to walk: parsed whole, as small as it is.
		got, err := Parse(out, r.Format)
		if err != nil {
			return 0, fmt.Errorf("verify emitted request: %w", err)
		}
		if err := got.Check(); err != nil {
			return 0, fmt.Errorf("verify emitted request: %w", err)
		}
		return est.Request(got), nil
	}
	if !validate(out) {
		// ctxd's own output: not the sender's mistake, so not a
		// SyntaxError (whose text asks the sender for a request).
		return 0, fmt.Errorf("verify emitted request: the output is not valid JSON at %s: %w", invalidJSON("request", out).Problem, ErrNotRequest)
	}
	pre, suf := r.Body[:r.items.Start], r.Body[r.items.End:]
	if len(out) < len(pre)+len(suf)+2 || !bytes.Equal(out[:len(pre)], pre) || !bytes.Equal(out[len(out)-len(suf):], suf) {
		return 0, fmt.Errorf("verify emitted request: the bytes around its %q array differ from the request's: %w", r.ItemsKey, ErrNotRequest)
	}
	arr := Span{len(pre), len(out) - len(suf)}
	if out[arr.Start] != '[' || out[arr.End-1] != ']' {
		return 0, fmt.Errorf("verify emitted request: %q is not an array: %w", r.ItemsKey, ErrNotRequest)
	}
	changed := make(map[int]bool, len(p.text)+len(p.dropSeg))
	for ref := range p.text {
		changed[ref.Item] = true
	}
	for ref := range p.dropSeg {
		changed[ref.Item] = true
	}
	ins := p.sortedInserts()
	got := &Request{Format: r.Format, Items: make([]*Item, 0, len(r.Items)+len(ins))}
	cur := skipSpace(out, arr.Start+1)
	// next reads the array's next element, item i of the request or an
	// inserted one (i < 0, raw): want, when not nil, is the bytes it must
	// be; otherwise it is parsed alone.
	next := func(i int, want, raw []byte) error {
		what := func() string {
			if i < 0 {
				return "an inserted item"
			}
			return fmt.Sprintf("item %d", i)
		}
		if len(got.Items) > 0 {
			if cur >= arr.End-1 || out[cur] != ',' {
				return fmt.Errorf("verify emitted request: want ',' before %s at %d: %w", what(), cur, ErrNotRequest)
			}
			cur = skipSpace(out, cur+1)
		}
		if want != nil {
			if cur+len(want) > arr.End-1 || !bytes.Equal(out[cur:cur+len(want)], want) {
				return fmt.Errorf("verify emitted request: %s differs from the request's: %w", what(), ErrNotRequest)
			}
			cur += len(want)
			cur = skipSpace(out, cur)
			return nil
		}
		s, e, err := skipValue(out[:arr.End-1], cur)
		if err != nil {
			return fmt.Errorf("verify emitted request: %s: %w", what(), err)
		}
		if i >= 0 && r.Items[i].Kind != KindOther && out[s] != '{' {
			return fmt.Errorf("verify emitted request: %s is no longer an object: %w", what(), ErrNotRequest)
		}
		if t := trimSpan(raw); i < 0 && !bytes.Equal(out[s:e], raw[t.Start:t.End]) {
			return fmt.Errorf("verify emitted request: %s differs from the plan's: %w", what(), ErrNotRequest)
		}
		it, err := ParseItem(r.Format, out[s:e])
		if err != nil {
			return fmt.Errorf("verify emitted request: %s: %w", what(), err)
		}
		got.Items = append(got.Items, it)
		cur = skipSpace(out, e)
		return nil
	}
	for i, it := range r.Items {
		for len(ins) > 0 && max(ins[0].at, 0) <= i {
			if err := next(-1, nil, ins[0].raw); err != nil {
				return 0, err
			}
			ins = ins[1:]
		}
		switch {
		case p.drop[i]:
		case changed[i]:
			if err := next(i, nil, nil); err != nil {
				return 0, err
			}
		default:
			if err := next(i, it.Raw(), nil); err != nil {
				return 0, err
			}
			got.Items = append(got.Items, it)
		}
	}
	for _, in := range ins {
		if err := next(-1, nil, in.raw); err != nil {
			return 0, err
		}
	}
	if cur != arr.End-1 {
		return 0, fmt.Errorf("verify emitted request: %q holds more than the plan's items: %w", r.ItemsKey, ErrNotRequest)
	}
	if err := got.Check(); err != nil {
		return 0, fmt.Errorf("verify emitted request: %w", err)
	}
	got.Fixed = r.Fixed // out's bytes outside the array are r's
	return est.Request(got), nil
}
