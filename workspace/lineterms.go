package workspace

import "slices"

// LineTerms are the terms (tree.AppendTerms) of some lines of a content,
// each line's distinct terms in the order they first appear: what a
// request intersects with its own terms instead of reading the lines'
// words again (engine's module-level lines, declLines). Lines with no term
// are not listed. A LineTerms is read-only once built.
type LineTerms struct {
	lines []int32  // ascending
	ends  []int32  // terms[ends[k-1]:ends[k]] are lines[k]'s
	terms []uint32 // every line's, one after another
}

// Add appends line l (after every line added before) with its terms,
// leaving out those it already holds; a line without terms is not kept.
func (lt *LineTerms) Add(l int, terms []uint32) {
	start := len(lt.terms)
	for _, t := range terms {
		if !slices.Contains(lt.terms[start:], t) {
			lt.terms = append(lt.terms, t)
		}
	}
	if len(lt.terms) == start {
		return
	}
	lt.lines = append(lt.lines, int32(l))
	lt.ends = append(lt.ends, int32(len(lt.terms)))
}

// Len is the number of lines held.
func (lt *LineTerms) Len() int { return len(lt.lines) }

// Line returns the k-th line held (in order) and its terms, which the
// caller must not change.
func (lt *LineTerms) Line(k int) (int, []uint32) {
	start := int32(0)
	if k > 0 {
		start = lt.ends[k-1]
	}
	return int(lt.lines[k]), lt.terms[start:lt.ends[k]:lt.ends[k]]
}

// LineTermsKey names a content's LineTerms: its symbol-index key
// (symbols.Key: the language and the text) and the language it was read
// as (lang.Of of its path, which picks the import reader).
type LineTermsKey struct {
	Content  [32]byte
	Language string
}

// maxLineTerms bounds the contents whose line terms are kept in memory: a
// request reads at most a dozen files' (engine's declFiles), and an entry
// is a few KB (a few terms a module-level line).
const maxLineTerms = 2048

// LineTerms returns key's line terms from memory, else built (and kept) by
// build, which must depend on key's content and language only.
func (s *Store) LineTerms(key LineTermsKey, build func() *LineTerms) *LineTerms {
	return s.lineTerms.Get(key, func() *LineTerms {
		s.lineTermsBuilds.Add(1)
		return build()
	})
}

// LineTermsBuilds counts the line terms built (not found in memory), for
// tests.
func (s *Store) LineTermsBuilds() int64 { return s.lineTermsBuilds.Load() }
