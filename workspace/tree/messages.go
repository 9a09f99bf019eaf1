package tree

import (
	"math"
	"strings"

	"github.com/ctxd/ctxd/graph"
)

// Messages is the recent commits' subjects with the files each changed
// (the co-change history's commits, newest first), for ranking files by
// the past changes whose subjects share the request's words: a request
// is most often worded like the project's own commit subjects, and the
// files behind those subjects are where such work happens ("Fix parsing
// extra Form parameter list": fastapi's earlier fixes of Form and
// parameter handling all changed dependencies/utils.py, which the words
// alone ranked 31st among 1,500 files; "fix(css): ..." names the scope
// whose past commits changed plugins/css.ts). Build one with
// [NewMessages] once per HEAD.
type Messages struct {
	terms [][]uint32 // per commit: its subject's distinct terms, sorted
	files [][]int32  // per commit: its files (ids into paths)
	paths []string
	df    map[uint32]int // commits whose subject holds the term
}

// maxMessageFiles is the largest commit Messages keeps: a subject over
// more files (a release, a formatting or a dependency sweep) says little
// about any one of them.
const maxMessageFiles = graph.DefaultMaxCommitFiles

// NewMessages keeps the commits (subjects[i] changed commits[i], newest
// first) that changed 1 to maxMessageFiles files and whose subject holds
// a term.
func NewMessages(subjects []string, commits [][]string) *Messages {
	m := &Messages{df: map[uint32]int{}}
	var ids graph.PathIDs
	for i, files := range commits {
		if i >= len(subjects) || len(files) == 0 || len(files) > maxMessageFiles {
			continue
		}
		ts := TermsOf(subjectWords(subjects[i]))
		if len(ts) == 0 {
			continue
		}
		fs := ids.Of(files)
		for _, t := range ts {
			m.df[t]++
		}
		m.terms = append(m.terms, ts)
		m.files = append(m.files, fs)
	}
	m.paths = ids.Paths
	return m
}

// subjectWords splits a subject into its identifier runs (letters,
// digits, '_'); TermsOf splits them further as it splits a request's.
func subjectWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// Len returns the number of commits kept.
func (m *Messages) Len() int {
	if m == nil {
		return 0
	}
	return len(m.terms)
}

// Rank scores files by the commits whose subject shares a term with
// query (sorted distinct terms, TermsOf): each such commit gives each of
// its files the sum of the shared terms' inverse document frequencies
// over the subjects, divided by the square root of its number of files.
// Files are returned best first (ties by path), at most limit (all when
// ≤ 0); keep, when not nil, filters them (files since deleted, tests).
func (m *Messages) Rank(query []uint32, limit int, keep func(path string) bool) []graph.Scored {
	if m.Len() == 0 || len(query) == 0 {
		return nil
	}
	n := float64(len(m.terms))
	idf := make([]float64, len(query))
	for k, t := range query {
		idf[k] = bm25IDF(n, m.df[t])
	}
	score := map[int32]float64{}
	for i, ts := range m.terms {
		s := 0.0
		for a, b := 0, 0; a < len(query) && b < len(ts); {
			switch {
			case query[a] < ts[b]:
				a++
			case query[a] > ts[b]:
				b++
			default:
				s += idf[a]
				a++
				b++
			}
		}
		if s == 0 {
			continue
		}
		s /= math.Sqrt(float64(len(m.files[i])))
		for _, f := range m.files[i] {
			score[f] += s
		}
	}
	return graph.TopPaths(score, m.paths, limit, keep)
}
