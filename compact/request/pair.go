package request

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/internal/vsort"
)

// SegRef names one segment: Items[Item].Segments[Seg].
type SegRef struct {
	Item int `json:"item"`
	Seg  int `json:"seg"`
}

// Pairing is the tool-call graph of a request: calls and results joined by
// exact id, grouped into units that must be kept or evicted together.
// Units are windows of one array of item indexes (a request of many
// small messages has as many units as items: a slice each cost more
// than the rest of the pairing).
type Pairing struct {
	// Orphans are call segments without a result and result segments
	// without a call. Any output must leave them out.
	Orphans []SegRef
	// OrphanOnly marks items with nothing left once their orphans are out
	// (a tool message answering an unknown id); such items are dropped.
	OrphanOnly []bool

	unitOf  []int32 // item -> unit
	start   []int32 // unit u's items are members[start[u]:start[u+1]]
	members []int32 // item indexes, unit after unit
}

// NumUnits is the number of units: the connected groups of items, each
// sorted by index, ordered by their first item. An item with no pairing
// is a unit of its own.
func (p *Pairing) NumUnits() int { return len(p.start) - 1 }

// Unit returns unit u's items in order (32 bits each: a request of many
// small messages has as many units as items). The slice is shared: read
// only.
func (p *Pairing) Unit(u int) []int32 {
	return p.members[p.start[u]:p.start[u+1]:p.start[u+1]]
}

// UnitOf returns the unit of item i.
func (p *Pairing) UnitOf(i int) int { return int(p.unitOf[i]) }

// Pair builds the tool-call graph. Ids pair only when equal; an id with no
// partner is an orphan, never matched to a guess. Chat and Responses pair
// ids anywhere in the history (results out of order or before their call
// still pair); Anthropic pairs a tool_result only with a tool_use of the
// nearest preceding assistant message, as the API requires. Duplicate ids
// join every item that carries them into one unit. A Responses reasoning
// item joins the item that follows it, which the API requires with it.
// Legacy Chat function messages (no ids) join an immediately preceding
// assistant function_call of the same name.
func (r *Request) Pair() *Pairing {
	n := len(r.Items)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int) int {
		for int(parent[x]) != x {
			parent[x] = parent[parent[x]]
			x = int(parent[x])
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if ra < rb {
			parent[rb] = int32(ra)
		} else {
			parent[ra] = int32(rb)
		}
	}

	type callSite struct{ item, seg int }
	callsByID := make(map[string][]callSite)
	for i, it := range r.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind == SegToolCall && s.CallID() != "" {
				callsByID[s.CallID()] = append(callsByID[s.CallID()], callSite{i, j})
			}
		}
	}
	answered := make(map[SegRef]bool)
	p := &Pairing{unitOf: make([]int32, n), OrphanOnly: make([]bool, n)}
	for i, it := range r.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != SegToolResult {
				continue
			}
			if s.CallID() == "" {
				if r.Format == FormatChat && it.Role() == "function" {
					// Legacy function message: pair by adjacency and name.
					if i > 0 && legacyCall(r.Items[i-1], s.Name()) {
						union(i-1, i)
					}
					continue
				}
				p.Orphans = append(p.Orphans, SegRef{i, j})
				continue
			}
			matched := false
			prev := -1
			if r.Format == FormatAnthropic {
				prev = prevAssistant(r, i)
			}
			for _, c := range callsByID[s.CallID()] {
				if r.Format == FormatAnthropic && c.item != prev {
					continue
				}
				union(c.item, i)
				answered[SegRef{c.item, c.seg}] = true
				matched = true
			}
			if !matched {
				p.Orphans = append(p.Orphans, SegRef{i, j})
			}
		}
	}
	for i, it := range r.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != SegToolCall || answered[SegRef{i, j}] {
				continue
			}
			if s.CallID() == "" && (r.Format != FormatChat || s.array() >= 0) {
				p.Orphans = append(p.Orphans, SegRef{i, j})
				continue
			}
			if s.CallID() != "" {
				p.Orphans = append(p.Orphans, SegRef{i, j})
			}
		}
		if it.Kind == KindReasoning && i+1 < n {
			union(i, i+1)
		}
	}
	vsort.Func(p.Orphans, func(a, b SegRef) int {
		if a.Item != b.Item {
			return a.Item - b.Item
		}
		return a.Seg - b.Seg
	})
	orphanSegs := make(map[SegRef]bool, len(p.Orphans))
	for _, o := range p.Orphans {
		orphanSegs[o] = true
	}
	for i, it := range r.Items {
		p.OrphanOnly[i] = hasOrphan(i, it, orphanSegs) && !keepsContent(i, it, orphanSegs)
	}

	// Units in order of their first item, each a window of one array of
	// all the indexes. A root is its unit's smallest item, so units are
	// numbered as their roots appear.
	units := int32(0)
	for i := range n {
		root := find(i)
		if root == i {
			p.unitOf[i] = units
			units++
		} else {
			p.unitOf[i] = p.unitOf[root]
		}
	}
	p.start = make([]int32, units+1)
	for i := range n {
		p.start[p.unitOf[i]+1]++
	}
	for u := range units {
		p.start[u+1] += p.start[u]
	}
	p.members = make([]int32, n)
	next := parent // the union-find is done: its array counts each unit's items placed
	copy(next, p.start[:units])
	for i := range n {
		u := p.unitOf[i]
		p.members[next[u]] = int32(i)
		next[u]++
	}
	return p
}

func legacyCall(it *Item, name string) bool {
	if it.Role() != "assistant" {
		return false
	}
	for i := range it.Segments {
		s := &it.Segments[i]
		if s.Kind == SegToolCall && s.CallID() == "" && s.array() < 0 && s.Name() == name {
			return true
		}
	}
	return false
}

// prevAssistant returns the index of the nearest assistant message before
// item i, or -1.
func prevAssistant(r *Request, i int) int {
	for j := i - 1; j >= 0; j-- {
		if r.Items[j].Role() == "assistant" {
			return j
		}
	}
	return -1
}

func hasOrphan(i int, it *Item, orphan map[SegRef]bool) bool {
	for j := range it.Segments {
		if orphan[SegRef{i, j}] {
			return true
		}
	}
	return false
}

// keepsContent reports whether item i still says something once its
// orphan segments are gone: text, an image, a paired call or result, or an
// unknown part. Thinking alone does not count.
func keepsContent(i int, it *Item, orphan map[SegRef]bool) bool {
	for j := range it.Segments {
		s := &it.Segments[j]
		if orphan[SegRef{i, j}] {
			continue
		}
		switch s.Kind {
		case SegThinking, SegRedactedThinking, SegReasoning:
			continue
		case SegText:
			if s.Text == "" {
				continue
			}
		}
		return true
	}
	return false
}

// ErrUnpaired reports a request with a tool call lacking its result or a
// tool result lacking its call.
var ErrUnpaired = errors.New("unpaired tool call or result")

// Check verifies the request's tool-call integrity: every call has a result
// and every result its call (see [Request.Pair] for the pairing rules).
func (r *Request) Check() error {
	p := r.Pair()
	if len(p.Orphans) == 0 {
		return nil
	}
	ids := make([]string, 0, len(p.Orphans))
	for _, o := range p.Orphans {
		s := &r.Items[o.Item].Segments[o.Seg]
		ids = append(ids, fmt.Sprintf("item %d %s %q", o.Item, s.Kind, s.CallID()))
	}
	return fmt.Errorf("check %s request: %s: %w", r.Format, strings.Join(ids, ", "), ErrUnpaired)
}
