package gather

import (
	"bytes"
	"math"
	"slices"
)

// DefSpan is one definition of a file: its 1-based first and last lines.
type DefSpan struct{ Start, End int }

// DefTerms is the terms of a file's definitions (functions and methods,
// each with its lines), read once per content: [DefTerms.Focus] ranks them
// against any request.
type DefTerms struct {
	body, head []terms // per definition; body nil for a definition without one
}

// NewDefTerms reads the terms of defs in content.
func NewDefTerms(content []byte, defs []DefSpan) *DefTerms {
	starts := lineStarts(content)
	lines := func(from, to int) []byte { // 1-based, inclusive
		from, to = min(max(from, 1), len(starts)), min(to, len(starts))
		if from > to {
			return nil
		}
		end := len(content)
		if to < len(starts) {
			end = starts[to]
		}
		return content[starts[from-1]:end]
	}
	c := newTermCounter()
	bagOf := func(b []byte) terms {
		c.reset()
		scanIdents(b, c.addIdent)
		return c.bag()
	}
	dt := &DefTerms{body: make([]terms, len(defs)), head: make([]terms, len(defs))}
	for i, d := range defs {
		if d.End <= d.Start {
			continue
		}
		dt.body[i], dt.head[i] = bagOf(lines(d.Start, d.End)), bagOf(lines(d.Start, d.Start))
	}
	return dt
}

// Focus returns the indexes of the definitions whose text matches the
// request's words best, at most limit of them, best first: for a large
// file the request does not name anything in, these are the bodies worth
// showing. A definition
// scores the inverse document frequency (among the file's definitions) of
// each request term it holds, twice for a term of its first line (its
// name and signature); it must hold at least two distinct terms when the
// request has two, and score at least half the best. Terms are ranking's:
// identifiers split at case and underscore boundaries, lowercased,
// stemmed, stopwords dropped.
func (dt *DefTerms) Focus(request string, limit int) []int {
	q := queryTerms(request)
	n := len(dt.body)
	if len(q) == 0 || n == 0 || limit <= 0 {
		return nil
	}
	df := make([]int, len(q))
	for i := range n {
		for k, t := range q {
			if dt.body[i].count(t) > 0 {
				df[k]++
			}
		}
	}
	need := min(2, len(q))
	type scored struct {
		i     int
		score float64
	}
	var ss []scored
	for i := range n {
		s, matched := 0.0, 0
		for k, t := range q {
			if dt.body[i].count(t) == 0 {
				continue
			}
			matched++
			w := math.Log(1 + float64(n)/float64(df[k]))
			s += w
			if dt.head[i].count(t) > 0 {
				s += w
			}
		}
		if matched >= need {
			ss = append(ss, scored{i, s})
		}
	}
	slices.SortStableFunc(ss, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	var out []int
	for _, s := range ss {
		if len(out) == limit || s.score < ss[0].score/2 {
			break
		}
		out = append(out, s.i)
	}
	return out
}

// lineStarts returns the byte offset of each line of b.
func lineStarts(b []byte) []int {
	out := []int{0}
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\n')
		if k < 0 || i+k+1 >= len(b) {
			return out
		}
		i += k + 1
		out = append(out, i)
	}
}
