package secrets

import (
	"cmp"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/internal/vsort"
)

// The fast path. gitleaks runs a rule over the whole text as soon as one
// of the rule's keywords is anywhere in it, and the keywords of the
// costliest rules (generic-api-key's key, token, api, ...; s. for
// vault-service-token; ey for jwt) are in nearly every source file. But
// every match of most rules holds one of a few literals (read from the
// rule's expression: requiredLiterals) and spans a bounded number of
// lines (maxNewlines). Such a rule runs only on the windows of lines
// around the lines holding one of its literals, from the first line a
// match can start on (with the newline before it) to one line further
// than a match can end, merged where they meet; the other rules run over
// the whole text as before. The findings are the full scan's exactly
// (TestFastPathMatchesFullScan, FuzzFastPath):
//
//   - no match of the rule in the whole text lies outside the windows,
//     and none crosses a window's edge, so the full scan's matches inside
//     a window are the window's matches; a match touches neither edge
//     (the newline before, a line after lie between: a match holding that
//     newline would hold a literal on an earlier line, whose own window
//     would reach further back), so anchors and \b read the same
//     neighbours;
//   - gitleaks' keyword check is still done on the whole text;
//   - a window starts at the newline before its first line, which is
//     where gitleaks' finding line (allowlists and "gitleaks:allow" read
//     it) starts; a text without a final newline whose last window
//     reaches its end is scanned whole by that rule, since gitleaks gives
//     a finding on such a line the text from its start as its line;
//   - a generic rule's finding is dropped when a specific rule found a
//     secret holding it on the same line, as gitleaks' filter does across
//     the rules of one scan;
//   - lines are found with an ASCII lowercase copy of the text; a line
//     with a non-ASCII rune that case-folds to an ASCII letter (the
//     Kelvin sign, the long s) counts as holding every literal.
//
// Rules with required (composite) rules, rules other rules require, path
// rules and rules the analysis cannot bound stay in the whole-text scan.

// maxWindowSpan: a rule whose matches may span more lines than this is
// not worth windowing (its windows would be most of a text).
const maxWindowSpan = 40

// windowed is one rule run on windows.
type windowed struct {
	id      string
	det     *detector // the rule alone, without keywords
	req     required
	generic bool
	// whole: the rule's strings are single bytes (a hex or digit class),
	// on nearly every line of any text; it runs on the whole text when
	// its keywords are there, as in gitleaks' scan, and its strings are
	// not looked for.
	whole bool
}

// strRule is a windowed rule a pattern of the trie is a string of.
type strRule struct {
	rule int
	// tail, when set, matches (leftmost-longest, anchored) from the
	// string's last byte to the end of a match holding the string there:
	// a hit whose tail does not match is no match, and the longest tail
	// match bounds where the match can end.
	tail *regexp.Regexp
}

type fastPath struct {
	rest  *detector // every rule not windowed
	rules []windowed
	// trie finds the rules' keywords and the windowed rules' required
	// strings; per pattern, kwRules are the rules it is a keyword of
	// (restRule for the rest's), strRules those it is a string of.
	trie       *matcher
	kwRules    [][]int
	strRules   [][]strRule
	always     []int // windowed rules without keywords
	restAlways bool  // a rule of the rest has no keywords
	// asciiKeywords: every keyword is ASCII, so in a text without a rune
	// that lowercases to ASCII (lowersToASCII) the keywords of the
	// Unicode-lowercased text are those of the ASCII-lowercased one.
	asciiKeywords bool
}

// newFastPath splits det's rules into the windowed ones and the rest. It
// returns nil when no rule can be windowed.
func newFastPath(det *detector) *fastPath {
	required := map[string]bool{}
	for _, r := range det.rules {
		for _, q := range r.required {
			required[q.ID] = true
		}
	}
	fp := &fastPath{}
	var pats []string
	tails := map[string]*regexp.Regexp{} // compiled once per expression
	var rest []*rule
	for _, r := range det.rules {
		if r.path != nil && !r.path.MatchString("") && !required[r.id] {
			// A text has no path: such a rule never reports on it.
			continue
		}
		if r.re == nil || r.path != nil || len(r.required) > 0 || required[r.id] || r.skipReport {
			rest = append(rest, r)
			continue
		}
		q, ok := analyze(r.re.String())
		if !ok {
			rest = append(rest, r)
			continue
		}
		one := *r
		one.keywords = nil // the prefilter's: none to check
		d := newDetector([]*rule{&one}, det.allow)
		i := len(fp.rules)
		whole := shortest(q.set) < 2
		fp.rules = append(fp.rules, windowed{id: r.id, det: d, req: q, generic: isGeneric(r.id), whole: whole})
		if len(r.keywords) == 0 {
			fp.always = append(fp.always, i)
		}
		for _, k := range r.keywords {
			pats = fp.index(pats, k, i, true, nil)
		}
		for _, str := range q.set {
			if whole {
				break
			}
			var tail *regexp.Regexp
			if t := q.tails[str]; t != nil {
				// (?s:.) reads the string's last byte, the context of an
				// assertion at the tail's start.
				expr := `\A(?s:.)(?:` + t.String() + `)`
				if tail = tails[expr]; tail == nil {
					if tail, _ = regexp.Compile(expr); tail != nil {
						tail.Longest()
						tails[expr] = tail
					}
				}
			}
			pats = fp.index(pats, str, i, false, tail)
		}
	}
	if len(fp.rules) == 0 {
		return nil
	}
	// The rest runs when one of its rules' keywords is in the text (as
	// gitleaks' own check would find), always when one has none; its
	// prefilter needs only its keywords.
	for _, r := range rest {
		if len(r.keywords) == 0 {
			fp.restAlways = true
		}
		for _, k := range r.keywords {
			pats = fp.index(pats, k, restRule, true, nil)
		}
	}
	fp.rest = newDetector(rest, det.allow)
	fp.trie = newMatcher(pats)
	fp.asciiKeywords = true
	for k, p := range pats {
		if len(fp.kwRules[k]) > 0 && !isASCII(p) {
			fp.asciiKeywords = false
		}
	}
	return fp
}

// restRule stands for the rest's rules in kwRules.
const restRule = -1

// index adds rule to the rules pattern s is a keyword of (kw) or a string
// of (with the string's tail), appending s to pats when it is new; it
// returns pats.
func (fp *fastPath) index(pats []string, s string, rule int, kw bool, tail *regexp.Regexp) []string {
	k := slices.Index(pats, s)
	if k < 0 {
		k = len(pats)
		pats = append(pats, s)
		fp.kwRules = append(fp.kwRules, nil)
		fp.strRules = append(fp.strRules, nil)
	}
	if kw {
		fp.kwRules[k] = append(fp.kwRules[k], rule)
	} else {
		fp.strRules[k] = append(fp.strRules[k], strRule{rule, tail})
	}
	return pats
}

// analyze returns the strings one of which every match of the expression
// holds and how many lines a match reaches before and after it; ok is
// false when either is unbounded or the strings are not usable.
func analyze(expr string) (required, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return required{}, false
	}
	if n, ok := maxNewlines(re); !ok || n > maxWindowSpan {
		return required{}, false
	}
	a := &analyzer{exact: map[*syntax.Regexp]exactResult{}}
	q, ok := a.requiredLiterals(re)
	if !ok || len(q.set) > 64 {
		return required{}, false
	}
	for _, l := range q.set {
		if l == "" || strings.Contains(l, "\n") {
			return required{}, false
		}
	}
	slices.Sort(q.set)
	q.set = slices.Compact(q.set)
	return q, true
}

// maxNewlines returns the most '\n' a match of re can hold; ok is false
// when there is no bound.
func maxNewlines(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary,
		syntax.OpAnyCharNotNL:
		return 0, true
	case syntax.OpAnyChar:
		return 1, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == '\n' {
				n++
			}
		}
		return n, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return 1, true
			}
		}
		return 0, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxNewlines(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		n, ok := maxNewlines(re.Sub[0])
		return 0, ok && n == 0
	case syntax.OpRepeat:
		n, ok := maxNewlines(re.Sub[0])
		if !ok || (re.Max < 0 && n > 0) {
			return 0, false
		}
		if re.Max < 0 {
			return 0, true
		}
		return n * re.Max, true
	case syntax.OpConcat, syntax.OpAlternate:
		// A concatenation holds its parts' newlines, an alternation its
		// widest branch's.
		acc := 0
		for _, s := range re.Sub {
			n, ok := maxNewlines(s)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				acc += n
			} else {
				acc = max(acc, n)
			}
		}
		return acc, true
	}
	return 0, false
}

// maxExact bounds the strings an exact set holds (a cross product of
// small classes and alternations).
const maxExact = 32

// exactSet returns the lowercase strings re matches when it matches one
// of a few fixed ASCII strings (a literal, a small class, an alternation
// or concatenation of those); ok is false otherwise.
func (a *analyzer) exactSet(re *syntax.Regexp) ([]string, bool) {
	if r, ok := a.exact[re]; ok {
		return r.set, r.ok
	}
	set, ok := a.exactSet1(re)
	a.exact[re] = exactResult{set, ok}
	return set, ok
}

// exactResult is a memoized exactSet.
type exactResult struct {
	set []string
	ok  bool
}

// analyzer memoizes exactSet over one expression's nodes (requiredLiterals
// asks again at every level).
type analyzer struct {
	exact map[*syntax.Regexp]exactResult
}

func (a *analyzer) exactSet1(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if !isASCII(s) {
			return nil, false
		}
		return []string{strings.ToLower(s)}, true
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= utf8.RuneSelf {
				return nil, false
			}
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if n > 2*maxExact { // upper and lower case of maxExact letters
			return nil, false
		}
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				out = append(out, strings.ToLower(string(r)))
			}
		}
		slices.Sort(out)
		out = slices.Compact(out)
		return out, len(out) > 0 && len(out) <= maxExact
	case syntax.OpCapture:
		return a.exactSet(re.Sub[0])
	case syntax.OpQuest:
		set, ok := a.exactSet(re.Sub[0])
		if !ok || len(set) >= maxExact {
			return nil, false
		}
		return append([]string{""}, set...), true
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			set, ok := a.exactSet(s)
			if !ok {
				return nil, false
			}
			out = append(out, set...)
		}
		return out, len(out) <= maxExact
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			set, ok := a.exactSet(s)
			if !ok {
				return nil, false
			}
			if out = product(out, set); out == nil {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// product returns every a+b, nil when there would be more than maxExact.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxExact {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, a+b)
		}
	}
	return out
}

// required is a set of lowercase strings one of which every match of an
// expression holds (in some case), and the most newlines a match holds
// before and after that string.
type required struct {
	set           []string
	before, after int
	// tails[s], when set, is what follows s to the end of every match
	// holding s where the analysis found it (so a match ends where a
	// match of tails[s] from there ends).
	tails map[string]*syntax.Regexp
}

// requiredLiterals returns re's required strings; ok is false when there
// is no such set. re's matches hold a bounded number of newlines
// (maxNewlines).
func (a *analyzer) requiredLiterals(re *syntax.Regexp) (required, bool) {
	if set, ok := a.exactSet(re); ok {
		return required{set: set}, true
	}
	switch re.Op {
	case syntax.OpCapture:
		return a.requiredLiterals(re.Sub[0])
	case syntax.OpPlus, syntax.OpRepeat:
		if re.Op == syntax.OpRepeat && re.Min < 1 {
			return required{}, false
		}
		q, ok := a.requiredLiterals(re.Sub[0])
		if !ok {
			return required{}, false
		}
		// The string is in one of the repetitions; the others may lie on
		// either side.
		n, _ := maxNewlines(re)
		q.before, q.after, q.tails = n, n, nil
		return q, true
	case syntax.OpAlternate:
		var out required
		for _, s := range re.Sub {
			q, ok := a.requiredLiterals(s)
			if !ok {
				return required{}, false
			}
			// A string of two branches keeps the alternation of their
			// tails (none when one has none).
			for _, str := range q.set {
				t := q.tails[str]
				if slices.Contains(out.set, str) {
					if old := out.tails[str]; old != nil && t != nil {
						t = &syntax.Regexp{Op: syntax.OpAlternate, Flags: re.Flags, Sub: []*syntax.Regexp{old, t}}
					} else {
						t = nil
					}
				} else {
					out.set = append(out.set, str)
				}
				if out.tails == nil {
					out.tails = map[string]*syntax.Regexp{}
				}
				out.tails[str] = t
			}
			out.before, out.after = max(out.before, q.before), max(out.after, q.after)
		}
		return out, true
	case syntax.OpConcat:
		// Candidates: each run of exact parts as one cross product, and
		// each other part's own set; the best is the one whose shortest
		// string is longest (fewest lines hold it). Exact parts hold no
		// newline.
		nl := make([]int, len(re.Sub)+1) // nl[i]: newlines parts before i hold
		for i, s := range re.Sub {
			n, _ := maxNewlines(s)
			nl[i+1] = nl[i] + n
		}
		total := nl[len(re.Sub)]
		var best required
		consider := func(q required) {
			if len(q.set) > 0 && shortest(q.set) > shortest(best.set) {
				best = q
			}
		}
		run, from := []string{""}, 0
		endRun := func(i int) {
			if run[0] != "" || len(run) > 1 {
				q := required{set: run, before: nl[from], after: total - nl[i]}
				if i < len(re.Sub) {
					tail := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[i:]}
					q.tails = map[string]*syntax.Regexp{}
					for _, str := range run {
						q.tails[str] = tail
					}
				}
				consider(q)
			}
		}
		for i, s := range re.Sub {
			if set, ok := a.exactSet(s); ok {
				if p := product(run, set); p != nil {
					run = p
					continue
				}
				endRun(i)
				run, from = set, i
				continue
			}
			endRun(i)
			run, from = []string{""}, i+1
			if q, ok := a.requiredLiterals(s); ok {
				q.before += nl[i]
				q.after += total - nl[i+1]
				// What follows a string in part i, then the parts after.
				tails := map[string]*syntax.Regexp{}
				for str, t := range q.tails {
					if t != nil && i+1 < len(re.Sub) {
						t = &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: append([]*syntax.Regexp{t}, re.Sub[i+1:]...)}
					}
					tails[str] = t
				}
				q.tails = tails
				consider(q)
			}
		}
		endRun(len(re.Sub))
		return best, best.set != nil
	}
	return required{}, false
}

// shortest is the length of the shortest string of set (0 for none).
func shortest(set []string) int {
	if len(set) == 0 {
		return 0
	}
	n := len(set[0])
	for _, s := range set[1:] {
		n = min(n, len(s))
	}
	return n
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldsToASCII are the non-ASCII runes whose case folding reaches an
// ASCII letter (U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S
// in today's tables), UTF-8 encoded.
// lowersToASCII are the non-ASCII runes unicode.ToLower (so
// strings.ToLower) maps to an ASCII letter (U+0130 LATIN CAPITAL LETTER I
// WITH DOT ABOVE and U+212A KELVIN SIGN in today's tables), UTF-8
// encoded; only runes with a case mapping are looked at.
var lowersToASCII = func() []string {
	var out []string
	for _, cr := range unicode.CaseRanges {
		for r := rune(cr.Lo); r <= rune(cr.Hi); r++ {
			if r >= utf8.RuneSelf && unicode.ToLower(r) < utf8.RuneSelf {
				out = append(out, string(r))
			}
		}
	}
	return out
}()

// containsAny reports whether s holds one of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

var foldsToASCII = func() []string {
	var out []string
	for c := 'a'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf {
				out = append(out, string(r))
			}
		}
	}
	return out
}()

// find returns what the detector of every rule returns on text, by the
// fast path.
func (f *fastPath) find(text string) []rawFinding {
	run := make([]bool, len(f.rules))
	for _, i := range f.always {
		run[i] = true
	}
	restRuns := f.restAlways
	// gated[k]: pattern k's rules are already set to run.
	gated := make([]bool, len(f.kwRules))
	gate := func(k int32) {
		if gated[k] {
			return
		}
		gated[k] = true
		for _, i := range f.kwRules[k] {
			if i == restRule {
				restRuns = true
			} else {
				run[i] = true
			}
		}
	}
	// One pass finds gitleaks' keywords (in the lowercased text) and the
	// strings (in the ASCII-lowercased text; the same text when it is
	// ASCII; else a second pass) with their lines.
	t := newLines(text)
	type hit struct{ end, line, str int32 }
	var found []hit
	line := 0
	onString := func(end int, k int32) {
		if len(f.strRules[k]) == 0 {
			return
		}
		for line+1 < len(t.start) && t.start[line+1] <= end {
			line++
		}
		found = append(found, hit{int32(end), int32(line), k})
	}
	if t.ascii || f.asciiKeywords && !containsAny(text, lowersToASCII) {
		f.trie.walk(text, func(end int, k int32) {
			gate(k)
			onString(end, k)
		})
	} else {
		f.trie.walk(strings.ToLower(text), func(_ int, k int32) {
			gate(k)
		})
		f.trie.walk(text, onString)
	}
	var out []rawFinding
	if restRuns {
		out = f.rest.detect(text)
	}
	// hits[i] are the lines holding a string of rule i where a match can
	// hold it, ascending, each with the last line such a match reaches.
	hits := make([][]span, len(f.rules))
	for _, h := range found {
		for _, sr := range f.strRules[h.str] {
			i := sr.rule
			if !run[i] {
				continue
			}
			r := &f.rules[i]
			last := int(h.line) + r.req.after
			if n := len(hits[i]); n > 0 && hits[i][n-1].line == int(h.line) && hits[i][n-1].last >= last {
				continue // the line's window already reaches as far as a match can
			}
			if sr.tail != nil {
				// The match would end before the newline of line
				// line+after; one line more for the assertions' context.
				limit := t.end(min(last+1, len(t.start)-1))
				m := sr.tail.FindStringIndex(text[h.end:limit])
				if m == nil {
					continue
				}
				// Every match from here ends by the longest tail's last
				// byte.
				last = min(last, t.lineOf(int(h.end)+m[1]-1))
			}
			if n := len(hits[i]); n > 0 && hits[i][n-1].line == int(h.line) {
				hits[i][n-1].last = max(hits[i][n-1].last, last)
				continue
			}
			hits[i] = append(hits[i], span{int(h.line), last})
		}
	}
	var generic []rawFinding
	for i := range f.rules {
		r := &f.rules[i]
		if !run[i] || !r.whole && len(hits[i])+len(t.wild) == 0 {
			continue
		}
		var fds []rawFinding
		if r.whole {
			fds = r.det.detect(text)
		} else {
			fds = r.scan(t, hits[i])
		}
		for _, fd := range fds {
			if r.generic {
				generic = append(generic, fd)
			} else {
				out = append(out, fd)
			}
		}
	}
	// gitleaks' filter, across the scans: the specific findings are out.
	specific := out
	for _, g := range generic {
		if !shadowed(g, specific) {
			out = append(out, g)
		}
	}
	return out
}

// scan runs the rule on its windows of t.
func (r *windowed) scan(t *lines, hits []span) []rawFinding {
	ws := t.windows(r.req, hits)
	if n := len(ws); n > 0 && ws[n-1].end == len(t.text) && !strings.HasSuffix(t.text, "\n") {
		return r.det.detect(t.text)
	}
	var out []rawFinding
	for _, w := range ws {
		// A finding's line starts at the newline before it (gitleaks'
		// location): the window holds that newline, as a line of its own.
		start, line := w.start, w.line
		if start > 0 {
			start, line = start-1, line-1
		}
		for _, g := range r.det.detect(t.text[start:w.end]) {
			g.StartLine += line
			g.EndLine += line
			out = append(out, g)
		}
	}
	return out
}

// lines is a text split in lines.
type lines struct {
	text  string
	ascii bool  // text is ASCII
	start []int // byte offset of each line; a line holds its '\n'
	// wild marks lines holding a rune that folds to an ASCII letter.
	wild map[int]bool
}

func newLines(text string) *lines {
	t := &lines{text: text, start: make([]int, 1, strings.Count(text, "\n")+1), ascii: isASCII(text)}
	for off := 0; ; {
		k := strings.IndexByte(text[off:], '\n')
		if k < 0 || off+k+1 == len(text) {
			break
		}
		off += k + 1
		t.start = append(t.start, off)
	}
	if t.ascii {
		return t
	}
	for _, r := range foldsToASCII {
		for off := 0; ; {
			k := strings.Index(text[off:], r)
			if k < 0 {
				break
			}
			if t.wild == nil {
				t.wild = map[int]bool{}
			}
			t.wild[t.lineOf(off+k)] = true
			off += k + len(r)
		}
	}
	return t
}

// lineOf returns the line holding byte offset off.
func (t *lines) lineOf(off int) int {
	i, found := slices.BinarySearch(t.start, off)
	if !found {
		i--
	}
	return i
}

// end returns the byte offset where line i ends (after its '\n').
func (t *lines) end(i int) int {
	if i+1 < len(t.start) {
		return t.start[i+1]
	}
	return len(t.text)
}

// window is a run of whole lines: bytes [start, end) of the text, the
// first being line `line` (0-based).
type window struct{ start, end, line int }

// span is a line holding a string a match can hold (a hit) and the last
// line such a match reaches.
type span struct{ line, last int }

// windows returns the runs of lines that can hold a match: from q.before
// lines before each hit (ascending by line: the first line a match can
// start on; scan adds the newline before it, all an assertion or
// gitleaks' finding line reads of what precedes) to one line after its
// last, and around each wild line as around a hit reaching q.after lines
// on, merged where they meet or touch.
func (t *lines) windows(q required, hits []span) []window {
	if len(t.wild) > 0 {
		hits = slices.Clone(hits)
		for l := range t.wild {
			hits = append(hits, span{l, l + q.after})
		}
		vsort.Func(hits, func(a, b span) int { return cmp.Compare(a.line, b.line) })
	}
	var out []window
	last, prev := len(t.start)-1, -2
	for _, h := range hits {
		lo, hi := max(h.line-q.before, 0), min(h.last+1, last)
		if len(out) > 0 && lo <= prev+1 {
			hi = max(hi, prev)
			out[len(out)-1].end = t.end(hi)
		} else {
			out = append(out, window{start: t.start[lo], end: t.end(hi), line: lo})
		}
		prev = hi
	}
	return out
}
