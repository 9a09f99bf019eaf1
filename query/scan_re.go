package query

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// lineRE is a regular expression that matches within one line and whose
// every match holds one of a few literal strings: it reads a long request
// (a CI log of 256 KB) only on the lines that hold one, with the same
// matches as the expression over the whole text. An expression that could
// match a newline or an anchor (^, $), or with no literal every match
// needs, reads the whole text as before.
type lineRE struct {
	re *regexp.Regexp
	// lits: every match holds one of them; nil when not known (or the
	// expression is not line-local), and the whole text is read.
	lits []string
}

func newLineRE(expr string) lineRE {
	l := lineRE{re: regexp.MustCompile(expr)}
	p, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || !lineLocal(p) {
		return l
	}
	l.lits = requiredLits(p.Simplify())
	return l
}

// findAllIndex is l.re.FindAllStringIndex(text, n) for n > 0: the
// expression never matches a newline, so each match lies in one line, and
// on a line with none of lits there is none; \b at a line's ends reads a
// newline as it reads the text's ends, as a non-word.
func (l lineRE) findAllIndex(text string, n int) [][]int {
	if l.lits == nil {
		return l.re.FindAllStringIndex(text, n)
	}
	return l.onLines(text, n, l.re.FindAllStringIndex)
}

// findAllSubmatchIndex is l.re.FindAllStringSubmatchIndex(text, n) (n -1:
// all), as findAllIndex reads it.
func (l lineRE) findAllSubmatchIndex(text string, n int) [][]int {
	if l.lits == nil {
		return l.re.FindAllStringSubmatchIndex(text, n)
	}
	if n < 0 {
		n = len(text) + 1
	}
	return l.onLines(text, n, l.re.FindAllStringSubmatchIndex)
}

// onLines runs find on each line that holds one of l.lits, in order,
// until n matches, and returns its indexes in text.
func (l lineRE) onLines(text string, n int, find func(string, int) [][]int) [][]int {
	var out [][]int
	next := make([]int, len(l.lits)) // each literal's next place at or after pos, -1 none
	for i, s := range l.lits {
		next[i] = strings.Index(text, s)
	}
	for pos := 0; len(out) < n && pos <= len(text); {
		at := -1
		for i, s := range l.lits {
			if next[i] >= 0 && next[i] < pos {
				if k := strings.Index(text[pos:], s); k >= 0 {
					next[i] = pos + k
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at = next[i]
			}
		}
		if at < 0 {
			break
		}
		start := strings.LastIndexByte(text[:at], '\n') + 1
		end := len(text)
		if k := strings.IndexByte(text[at:], '\n'); k >= 0 {
			end = at + k
		}
		for _, m := range find(text[start:end], n-len(out)) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += start
				}
			}
			out = append(out, m)
		}
		pos = end + 1
	}
	return out
}

// matchString is l.re.MatchString(text).
func (l lineRE) matchString(text string) bool {
	return len(l.findAllIndex(text, 1)) > 0
}

// lineLocal reports an expression that matches no newline and has no
// anchor (^ and $ would read a line's ends as the text's).
func lineLocal(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return false
	case syntax.OpLiteral:
		if strings.ContainsRune(string(re.Rune), '\n') {
			return false
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return false
			}
		}
	}
	for _, sub := range re.Sub {
		if !lineLocal(sub) {
			return false
		}
	}
	return true
}

// requiredLits returns strings one of which every match of re holds
// (nil: none known). Case-folded literals are not known.
func requiredLits(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLits(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every match holds a match of each part: the part whose
		// shortest literal is longest.
		var best []string
		for _, sub := range re.Sub {
			if ls := requiredLits(sub); ls != nil && (best == nil || shortest(ls) > shortest(best)) {
				best = ls
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			ls := requiredLits(sub)
			if ls == nil {
				return nil
			}
			all = append(all, ls...)
		}
		return all
	}
	return nil
}

func shortest(ls []string) int {
	n := len(ls[0])
	for _, s := range ls[1:] {
		n = min(n, len(s))
	}
	return n
}
