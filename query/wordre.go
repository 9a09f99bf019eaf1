package query

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// wordRE is a regular expression `\b(...)` whose every match starts with
// one of a few whole words (its first words: "how" and "what" of
// `\b(how|what) does\b`), read in a long request only where one of them
// stands. A [wordIndex] of the lower-cased request has every place each
// first word of the package's wordREs stands, made in one pass over the
// text; the expression then runs anchored at those places alone. Its
// matches, their count and their ends are the unanchored expression's
// over the whole text (wordre_test.go and the differential test check
// it): a match starts at a word boundary, so at the start of a word, and
// that word is one of the first words.
type wordRE struct {
	re       *regexp.Regexp // the expression, for its matches' preference
	anchored *regexp.Regexp // ^(?:expr): a match starting where it is run
	first    []string
	// line: the expression matches no newline (see lineLocal), so it is
	// run on the rest of the line alone.
	line bool
}

// newWordRE compiles expr, which must start with \b and whose first words
// must be few and known (a literal, an alternation, an optional suffix:
// crash(es|ed)?, table[- ]driven); it panics otherwise, as
// regexp.MustCompile does.
func newWordRE(expr string) wordRE {
	p, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	first, ok := firstWords(p)
	if !ok || len(first) == 0 || !strings.HasPrefix(expr, `\b`) {
		panic("query: no first words known for " + expr)
	}
	for _, w := range first {
		if w == "" {
			panic("query: a match of " + expr + " may start with no word")
		}
		firstWordSet[w] = true
	}
	return wordRE{re: regexp.MustCompile(expr), anchored: regexp.MustCompile(`^(?:` + expr + `)`), first: first, line: lineLocal(p)}
}

// firstWordSet holds every wordRE's first words: what a wordIndex keeps.
var firstWordSet = map[string]bool{}

// maxFirstWords bounds the expansion of an expression's first words.
const maxFirstWords = 64

// firstWords returns the words a match of re starts with: its possible
// texts up to the first byte that is not a word byte (\b's ASCII word
// bytes). ok is false when they are not known: a repetition or a
// character class of more than a few bytes before a word ends, or too
// many of them.
func firstWords(re *syntax.Regexp) ([]string, bool) {
	type part struct {
		s      string
		closed bool // a non-word byte ended the first word
	}
	var expand func(re *syntax.Regexp, in []part) ([]part, bool)
	add := func(in []part, lit string) []part {
		out := make([]part, 0, len(in))
		for _, p := range in {
			if p.closed {
				out = append(out, p)
				continue
			}
			q := p
			for i := 0; i < len(lit); i++ {
				if !isWordByte(lit[i]) {
					q.closed = true
					break
				}
				q.s += lit[i : i+1]
			}
			out = append(out, q)
		}
		return out
	}
	open := func(in []part) bool {
		return slices.ContainsFunc(in, func(p part) bool { return !p.closed })
	}
	expand = func(re *syntax.Regexp, in []part) ([]part, bool) {
		if !open(in) {
			return in, true
		}
		switch re.Op {
		case syntax.OpEmptyMatch:
			return in, true
		case syntax.OpWordBoundary:
			// After a word byte, \b ends the word.
			out := slices.Clone(in)
			for i := range out {
				out[i].closed = out[i].closed || out[i].s != ""
			}
			return out, true
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase != 0 {
				return nil, false
			}
			return add(in, string(re.Rune)), true
		case syntax.OpCharClass:
			var out []part
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if re.Rune[i+1]-re.Rune[i] > 4 || re.Rune[i+1] >= 0x80 {
					return nil, false
				}
				for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
					out = append(out, add(in, string(r))...)
				}
			}
			return out, len(out) <= maxFirstWords
		case syntax.OpCapture:
			return expand(re.Sub[0], in)
		case syntax.OpPlus, syntax.OpStar, syntax.OpRepeat:
			// Known only when one repetition ends every first word.
			once, ok := expand(re.Sub[0], in)
			if !ok || open(once) {
				return nil, false
			}
			if re.Op == syntax.OpStar || re.Op == syntax.OpRepeat && re.Min == 0 {
				once = append(once, in...)
			}
			return once, len(once) <= maxFirstWords
		case syntax.OpQuest:
			with, ok := expand(re.Sub[0], in)
			return append(with, in...), ok && len(with)+len(in) <= maxFirstWords
		case syntax.OpConcat:
			out := in
			for _, sub := range re.Sub {
				var ok bool
				if out, ok = expand(sub, out); !ok {
					return nil, false
				}
			}
			return out, true
		case syntax.OpAlternate:
			var out []part
			for _, sub := range re.Sub {
				o, ok := expand(sub, in)
				if !ok {
					return nil, false
				}
				out = append(out, o...)
			}
			return out, len(out) <= maxFirstWords
		}
		return nil, false
	}
	parts, ok := expand(re, []part{{}})
	if !ok {
		return nil, false
	}
	var words []string
	for _, p := range parts {
		if !slices.Contains(words, p.s) {
			words = append(words, p.s)
		}
	}
	return words, true
}

// isWordByte reports \b's word bytes: ASCII letters, digits and '_'.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// wordIndex is where each first word of the package's wordREs stands in a
// text: the start of every whole word (a run of \b's word bytes) that is
// one.
type wordIndex map[string][]int

// indexWords reads text once.
func indexWords(text string) wordIndex {
	idx := wordIndex{}
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		if firstWordSet[text[i:j]] {
			idx[text[i:j]] = append(idx[text[i:j]], i)
		}
		i = j
	}
	return idx
}

// starts returns the places where a match of w may start, in order.
func (w wordRE) starts(idx wordIndex) []int {
	if len(w.first) == 1 {
		return idx[w.first[0]]
	}
	var at []int
	for _, f := range w.first {
		at = append(at, idx[f]...)
	}
	slices.Sort(at)
	return at
}

// count is len(w.re.FindAllStringIndex(text, n)) for n > 0, text the
// text idx indexes.
func (w wordRE) count(text string, idx wordIndex, n int) int {
	found, end := 0, 0
	for _, at := range w.starts(idx) {
		if at < end {
			continue
		}
		rest := text[at:]
		if w.line {
			if k := strings.IndexByte(rest, '\n'); k >= 0 {
				rest = rest[:k]
			}
		}
		if m := w.anchored.FindStringIndex(rest); m != nil {
			found++
			if found == n {
				break
			}
			end = at + m[1]
		}
	}
	return found
}

// matchString is w.re.MatchString(text), text the text idx indexes.
func (w wordRE) matchString(text string, idx wordIndex) bool {
	return w.count(text, idx, 1) > 0
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
