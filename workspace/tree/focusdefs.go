package tree

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/ctxd/ctxd/internal/uvarint"
	"github.com/ctxd/ctxd/query"
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
		query.ScanWords(b, c.addIdent)
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
func (dt *DefTerms) Focus(q *query.Query, limit int) []int {
	return dt.FocusAmong(q, limit, nil)
}

// FocusAmong is [DefTerms.Focus] over the definitions of among only (indexes
// of dt's definitions, ascending; nil: all of them), as if dt held only
// those: a file's own tests are left out of a request that is not about
// testing without reading the file's terms again.
func (dt *DefTerms) FocusAmong(rq *query.Query, limit int, among []int) []int {
	var out []int
	for _, s := range dt.RankAmong(rq, among) {
		if len(out) == limit || limit <= 0 || s.Score < focusCut*s.Best {
			break
		}
		out = append(out, s.Index)
	}
	return out
}

// focusCut is the share of the best definition's score a definition
// [DefTerms.FocusAmong] returns must reach.
const focusCut = 0.5

// DefScore is one definition's match against a request
// ([DefTerms.RankAmong]): its index among the definitions, its score (BM25
// of the request's words over the definitions' bodies, plus its first
// line's), the best definition's score, and the request terms it holds,
// as the request spelled them: the reasons of its rank.
type DefScore struct {
	Index       int
	Score, Best float64
	Terms       []string
}

// RankAmong scores the definitions of among (nil: all of them) against
// the request's words and returns those holding at least two distinct
// request terms (one when the request has one), best first; ties keep
// the file's order. A definition scores the inverse document frequency
// (among these definitions) of each request term it holds, saturated
// and normalised by its length as BM25 does, and once more, normalised
// by its first line's length, for a term of its first line (its name
// and signature).
func (dt *DefTerms) RankAmong(rq *query.Query, among []int) []DefScore {
	return dt.RankBy(NewFocusQuery(rq), among, nil)
}

// FocusQuery is a request's focus words as RankBy reads them: their terms,
// and each word's own, computed once for every file a request ranks the
// definitions of (TermsOf per file and per word was redone for each).
type FocusQuery struct {
	words     []string
	terms     []uint32
	wordTerms [][]uint32
}

// NewFocusQuery returns q's focus words' terms.
func NewFocusQuery(q *query.Query) *FocusQuery {
	fq := &FocusQuery{words: q.FocusWords, terms: TermsOf(q.FocusWords), wordTerms: make([][]uint32, len(q.FocusWords))}
	for j, w := range q.FocusWords {
		fq.wordTerms[j] = TermsOf([]string{w})
	}
	return fq
}

// RankBy is RankAmong for a request's focus words read once (fq), where
// named (nil for none) reports whether definition i's name holds term t
// (of TermsOf): a definition holding one request term alone ranks too
// when its name holds it and no other definition of among does
// (get_netrc_auth for "Fix empty netrc entry usage", whose other words a
// function of no interest held). It is asked only of such definitions.
func (dt *DefTerms) RankBy(fq *FocusQuery, among []int, named func(i int, t uint32) bool) []DefScore {
	return dt.rankBy(fq, among, named, 2)
}

// RankAny is RankBy with a definition holding one request term ranked
// when at most anyMaxDefs definitions hold that term: for a file in which
// no definition holds two (engine's focus ladder of a file the request's
// words reach one at a time).
func (dt *DefTerms) RankAny(fq *FocusQuery, among []int) []DefScore {
	return dt.rankBy(fq, among, nil, 1)
}

// anyMaxDefs: RankAny ranks a definition holding a request term that at
// most this many definitions hold. A common word held one at a time
// (fastapi's docstrings, "request" in most of routing.py's functions)
// made a ladder of thirteen weak steps where there was none, and the
// fitter bought them: with every one-term holder ranked the development
// repositories' 8k all-lines fell by 0.14, fastapi by 3 (BENCHMARKS.md
// "hdefch").
const anyMaxDefs = 3

// RankNamed returns the definitions of among (nil: all of them) whose
// name holds a request term that at most nameMaxDefs of their names hold
// (named reports whether definition i's name holds term t), scored as
// RankBy scores them among these definitions, best first, whatever else
// they hold: a name is what a request's word most often means (requests'
// prepare_url for "cleanup to url logic", content for "default chunk size
// for .content", raise_for_status for "don't raise for redirects"), where
// the word's other holders are too many for RankAny and no other request
// word is in the function for RankBy.
func (dt *DefTerms) RankNamed(fq *FocusQuery, among []int, named func(i int, t uint32) bool) []DefScore {
	q := fq.terms
	if named == nil || len(q) == 0 {
		return nil
	}
	among = dt.valid(among)
	// A name is on its definition's first line: named is asked only of a
	// first line holding the term (it reads the name's terms, which a
	// first line's parameters would not tell apart).
	holds := func(i int, t uint32) bool { return dt.head[i].count(t) > 0 && named(i, t) }
	// The terms at most nameMaxDefs names hold.
	var rare []int // indexes in q
	for k, t := range q {
		n := 0
		for _, i := range among {
			if holds(i, t) {
				if n++; n > nameMaxDefs {
					break
				}
			}
		}
		if n > 0 && n <= nameMaxDefs {
			rare = append(rare, k)
		}
	}
	if len(rare) == 0 {
		return nil
	}
	st := DefStats{fq: fq, df: make([]int, len(q))}
	st.Add(dt, among)
	var ss []DefScore
	var held []int
	for _, i := range among {
		if !slices.ContainsFunc(rare, func(k int) bool { return holds(i, q[k]) }) {
			continue
		}
		var s float64
		s, held = st.score(dt, i, held[:0])
		if len(held) == 0 {
			continue
		}
		ss = append(ss, DefScore{Index: i, Score: s, Terms: termWords(fq.words, fq.wordTerms, q, held)})
	}
	return SortDefScores(ss)
}

// nameMaxDefs: RankNamed ranks a definition whose name holds a request
// term at most this many definitions' names hold ("get" names a dozen of
// a client's methods and means none of them).
const nameMaxDefs = 3

// valid returns a copy of among without the indexes dt has no definition
// at (nil: all of dt's definitions).
func (dt *DefTerms) valid(among []int) []int {
	if among == nil {
		among = make([]int, len(dt.body))
		for i := range among {
			among[i] = i
		}
		return among
	}
	return slices.DeleteFunc(slices.Clone(among), func(i int) bool { return i < 0 || i >= len(dt.body) })
}

// SortDefScores sorts ss best first (ties keep their order) and sets each
// one's Best to the first's score.
func SortDefScores(ss []DefScore) []DefScore {
	slices.SortStableFunc(ss, func(a, b DefScore) int { return cmp.Compare(b.Score, a.Score) })
	for k := range ss {
		ss[k].Best = ss[0].Score
	}
	return ss
}

// rankBy is RankBy with a definition ranked when it holds need distinct
// request terms (at most the request's).
func (dt *DefTerms) rankBy(fq *FocusQuery, among []int, named func(i int, t uint32) bool, need int) []DefScore {
	q := fq.terms
	among = dt.valid(among)
	if len(q) == 0 || len(among) == 0 {
		return nil
	}
	st := DefStats{fq: fq, df: make([]int, len(q))}
	st.Add(dt, among)
	need = min(need, len(q))
	var ss []DefScore
	var held []int // scratch: the indexes in q of the terms a definition holds
	for _, i := range among {
		var s float64
		s, held = st.score(dt, i, held[:0])
		if need == 1 && !slices.ContainsFunc(held, func(k int) bool { return st.df[k] <= anyMaxDefs }) {
			continue
		}
		if len(held) >= need || len(held) == 1 && st.df[held[0]] == 1 && named != nil && named(i, q[held[0]]) {
			ss = append(ss, DefScore{Index: i, Score: s, Terms: termWords(fq.words, fq.wordTerms, q, held)})
		}
	}
	return SortDefScores(ss)
}

// DefStats is what a definition's score against a request's focus words
// depends on beyond its own text: the number of definitions ranked
// together, how many of them hold each request term, and their mean
// lengths. [DefTerms.RankBy] ranks a file's definitions among themselves;
// a DefStats added the definitions of several files (Add) scores any of
// them (Score) as if they were one file's, so the scores of different
// files compare (a function of a lower-ranked file holding the request's
// rare words outscores the first file's third, which holds its common
// ones: BENCHMARKS.md "hglob").
type DefStats struct {
	fq              *FocusQuery
	n               int
	df              []int
	sumLen, sumHead float64 // the definitions' and first lines' lengths, in terms
}

// NewDefStats returns the statistics of no definitions for fq.
func NewDefStats(fq *FocusQuery) *DefStats {
	return &DefStats{fq: fq, df: make([]int, len(fq.terms))}
}

// Add counts the definitions of among (indexes of dt's; nil: all of them).
func (st *DefStats) Add(dt *DefTerms, among []int) {
	for _, i := range dt.valid(among) {
		for k, t := range st.fq.terms {
			if dt.body[i].count(t) > 0 {
				st.df[k]++
			}
		}
		st.sumLen += float64(dt.body[i].n)
		st.sumHead += float64(dt.head[i].n)
		st.n++
	}
}

// Score returns definition i of dt's score among the definitions added
// and whether it holds two distinct request terms (one when the request
// has one), as RankBy ranks a definition (0, false for an index dt has
// not).
func (st *DefStats) Score(dt *DefTerms, i int) (float64, bool) {
	if i < 0 || i >= len(dt.body) {
		return 0, false
	}
	var held [2]int
	s, h := st.score(dt, i, held[:0])
	return s, len(h) >= min(2, len(st.fq.terms))
}

// score is RankBy's score of definition i against the definitions
// added: the inverse document frequency of each request term it holds,
// saturated and normalised by its length as BM25 does, and once more,
// normalised by its first line's length, for a term of its first line.
// It appends the indexes in the query of the terms it holds to held.
func (st *DefStats) score(dt *DefTerms, i int, held []int) (float64, []int) {
	if st.n == 0 {
		return 0, held
	}
	n := float64(st.n)
	avg, avgHead := max(st.sumLen/n, 1), max(st.sumHead/n, 1)
	norm := focusK1 * (1 - focusB + focusB*float64(dt.body[i].n)/avg)
	headNorm := focusK1 * (1 - focusB + focusB*float64(dt.head[i].n)/avgHead)
	s := 0.0
	for k, t := range st.fq.terms {
		tf := dt.body[i].count(t)
		if tf == 0 || st.df[k] == 0 {
			continue
		}
		held = append(held, k)
		w := math.Log(1 + n/float64(st.df[k]))
		s += w * float64(tf) * (focusK1 + 1) / (float64(tf) + norm)
		if h := dt.head[i].count(t); h > 0 {
			// Once, normalised by the first line's length: of
			// TestCut and TestCutPrefix, "Cut" names the first.
			s += w * (focusK1 + 1) / (1 + headNorm)
		}
	}
	return s, held
}

// termWords returns the words of the request (words, whose terms are q,
// each word's wordTerms) that spell the terms q[k] for k in held, each
// once, in the request's order.
func termWords(words []string, wordTerms [][]uint32, q []uint32, held []int) []string {
	var out []string
	for j, w := range words {
		for _, h := range wordTerms[j] {
			if k, ok := slices.BinarySearch(q, h); ok && slices.Contains(held, k) && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// BM25's saturation and length normalisation for a definition's body
// terms: a term once in a definition of average length weighs its IDF, as
// before; one repeated in a short definition up to 1+focusK1 times that.
// Counted by presence alone, a long function that touches many request
// words once in its comments (makeHeadersCopier: "follow", "POST")
// outranked the short one whose body is about them (redirectBehavior:
// redirect ×11, GetBody, body ×7). The first line's terms count once,
// normalised by its length the same way: a name that holds the request's
// words and little else is the one meant.
const (
	focusK1 = 1.2
	focusB  = 0.75
)

// Len returns the number of definitions dt holds.
func (dt *DefTerms) Len() int { return len(dt.body) }

// defTermsVersion is the first byte of [DefTerms.AppendBinary]'s encoding;
// it changes with the encoding or with how terms are read (a persisted
// encoding of another version does not decode).
const defTermsVersion = 2

// AppendBinary appends dt's encoding to b: the definitions' body and
// first-line terms (hashes ascending, as deltas, with their counts), for
// a cache that outlives the process.
func (dt *DefTerms) AppendBinary(b []byte) []byte {
	b = append(b, defTermsVersion)
	b = binary.AppendUvarint(b, uint64(len(dt.body)))
	put := func(t terms) {
		b = binary.AppendUvarint(b, uint64(len(t.hash)))
		b = binary.AppendUvarint(b, uint64(t.n))
		prev := uint32(0)
		for i, h := range t.hash {
			b = binary.AppendUvarint(b, uint64(h-prev))
			b = binary.AppendUvarint(b, uint64(t.tf[i]))
			prev = h
		}
	}
	for i := range dt.body {
		put(dt.body[i])
		put(dt.head[i])
	}
	return b
}

var errDefTerms = errors.New("definition terms: bad encoding")

// DecodeDefTerms decodes [DefTerms.AppendBinary]'s encoding. The bytes
// are untrusted (a file in the state directory): any malformation is an
// error, never a panic.
func DecodeDefTerms(b []byte) (*DefTerms, error) {
	if len(b) == 0 || b[0] != defTermsVersion {
		return nil, errDefTerms
	}
	r := uvarint.NewMinimalReader(b[1:])
	// Every definition takes at least four bytes (two empty bags).
	n := r.Count(4)
	get := func() terms {
		// Each term takes at least two bytes.
		k, total := r.Count(2), r.Uvarint()
		if total > math.MaxInt32 {
			r.Fail("term count out of range")
		}
		if k == 0 || r.Err() != nil {
			return terms{n: int(total)}
		}
		t := terms{hash: make([]uint32, k), tf: make([]uint16, k), n: int(total)}
		var h uint64
		for i := range t.hash {
			d, f := r.Uvarint(), r.Uvarint()
			if h += d; (i > 0 && d == 0) || f > math.MaxUint16 || h > math.MaxUint32 {
				r.Fail("terms out of order or out of range")
			}
			t.hash[i], t.tf[i] = uint32(h), uint16(f)
		}
		return t
	}
	dt := &DefTerms{body: make([]terms, n), head: make([]terms, n)}
	for i := range dt.body {
		dt.body[i] = get()
		dt.head[i] = get()
	}
	if r.Err() != nil || r.Len() != 0 {
		return nil, errDefTerms
	}
	return dt, nil
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
