package request

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// SegRef names one segment: Items[Item].Segments[Seg].
type SegRef struct {
	Item int `json:"item"`
	Seg  int `json:"seg"`
}

// Pairing is the tool-call graph of a request: calls and results joined by
// exact id, grouped into units that must be kept or evicted together.
type Pairing struct {
	// Units are the connected groups of items, each sorted by index; units
	// are ordered by their first item. An item with no pairing is a unit
	// of its own.
	Units [][]int
	// UnitOf maps an item index to its unit.
	UnitOf []int
	// Orphans are call segments without a result and result segments
	// without a call. Any output must leave them out.
	Orphans []SegRef
	// OrphanOnly marks items with nothing left once their orphans are out
	// (a tool message answering an unknown id); such items are dropped.
	OrphanOnly []bool
}

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
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if ra < rb {
			parent[rb] = ra
		} else {
			parent[ra] = rb
		}
	}

	type callSite struct{ item, seg int }
	callsByID := make(map[string][]callSite)
	for i, it := range r.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind == SegToolCall && s.CallID != "" {
				callsByID[s.CallID] = append(callsByID[s.CallID], callSite{i, j})
			}
		}
	}
	answered := make(map[SegRef]bool)
	p := &Pairing{UnitOf: make([]int, n), OrphanOnly: make([]bool, n)}
	for i, it := range r.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != SegToolResult {
				continue
			}
			if s.CallID == "" {
				if r.Format == FormatChat && it.Role == "function" {
					// Legacy function message: pair by adjacency and name.
					if i > 0 && legacyCall(r.Items[i-1], s.Name) {
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
			for _, c := range callsByID[s.CallID] {
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
			if s.CallID == "" && (r.Format != FormatChat || s.array >= 0) {
				p.Orphans = append(p.Orphans, SegRef{i, j})
				continue
			}
			if s.CallID != "" {
				p.Orphans = append(p.Orphans, SegRef{i, j})
			}
		}
		if it.Kind == KindReasoning && i+1 < n {
			union(i, i+1)
		}
	}
	slices.SortFunc(p.Orphans, func(a, b SegRef) int {
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
	// all the indexes (a request of many messages has as many units: one
	// slice each cost more than the pairing itself). A root is its
	// unit's smallest item, so units are numbered as their roots appear.
	size := make([]int, n)
	units := 0
	for i := range n {
		root := find(i)
		if root == i {
			p.UnitOf[i] = units
			units++
		} else {
			p.UnitOf[i] = p.UnitOf[root]
		}
		size[p.UnitOf[i]]++
	}
	p.Units = make([][]int, units)
	all := make([]int, n)
	at := 0
	for u := range units {
		p.Units[u] = all[at : at : at+size[u]]
		at += size[u]
	}
	for i := range n {
		u := p.UnitOf[i]
		p.Units[u] = append(p.Units[u], i)
	}
	return p
}

func legacyCall(it *Item, name string) bool {
	if it.Role != "assistant" {
		return false
	}
	for i := range it.Segments {
		s := &it.Segments[i]
		if s.Kind == SegToolCall && s.CallID == "" && s.array < 0 && s.Name == name {
			return true
		}
	}
	return false
}

// prevAssistant returns the index of the nearest assistant message before
// item i, or -1.
func prevAssistant(r *Request, i int) int {
	for j := i - 1; j >= 0; j-- {
		if r.Items[j].Role == "assistant" {
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
		ids = append(ids, fmt.Sprintf("item %d %s %q", o.Item, s.Kind, s.CallID))
	}
	return fmt.Errorf("check %s request: %s: %w", r.Format, strings.Join(ids, ", "), ErrUnpaired)
}
