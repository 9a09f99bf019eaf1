package tokens

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
)

// DefaultTailRatio is the share of a truncated text's budget that goes to
// its tail; the head gets the rest.
const DefaultTailRatio = 0.4

// MiddleOptions tunes [Middle].
type MiddleOptions struct {
	// TailRatio is the share of the budget (after the marker) kept for the
	// tail, between 0 and 1; 0 means [DefaultTailRatio]. Error output,
	// whose last lines matter most, wants more tail (say 0.7). Tokens the
	// head does not use go to the tail.
	TailRatio float64
	// WholeLines keeps every cut on a line boundary: the head and the tail
	// are whole lines and the marker stands on its own line, even when that
	// leaves a part empty. Source shown to a model wants this: a half line
	// at either end is neither code nor a count of what was left out.
	WholeLines bool
}

// MiddleResult is the outcome of [Middle].
type MiddleResult struct {
	// Text is the truncated text (or the input, when it fits).
	Text string
	// Truncated reports that something was removed.
	Truncated bool
	// Elided is the 1-based inclusive range of the input's lines that lost
	// text (a line cut in the middle counts as elided); zero when nothing
	// was removed.
	Elided ctxd.LineRange
	// ElidedChars is the number of characters (runes) removed.
	ElidedChars int
	// Tokens is c.Count(Text).
	Tokens int
	// Shown is the number of the input's lines Text shows, whole or in
	// part (all of them when nothing was removed).
	Shown int
}

// Middle truncates text to at most maxTokens tokens by cutting out its
// middle. Text that already fits is returned unchanged. Otherwise about
// 60% of the budget left after the marker goes to the head and 40% to the
// tail (see [MiddleOptions]). Cuts fall on line boundaries where the whole
// lines use at least half of a part's budget, else inside the line on a
// rune boundary: a UTF-8 sequence is never split. If even the marker does
// not fit, the result is the longest head that fits, possibly "".
// maxTokens <= 0 gives "".
//
// c.Count(result.Text) <= maxTokens always holds: every candidate is
// counted whole before it is returned. The cost is one count of text
// (cached for long texts) plus work proportional to the size of the
// result: lines and blocks of long lines are counted once each, and only
// the last block of each part is searched.
func Middle(c Counter, text string, maxTokens int, opts MiddleOptions) MiddleResult {
	if text == "" {
		return MiddleResult{}
	}
	total := 0
	if maxTokens > 0 {
		total = c.Count(text)
		if total <= maxTokens {
			return MiddleResult{Text: text, Tokens: total, Shown: byteview.CountLines(text)}
		}
	}
	// The text's lines and runes are counted once: a middle's are the
	// text's less its head's and tail's (no rune spans a cut), so each
	// attempt below costs what the head and the tail are, not what the
	// text is.
	nl, runes := strings.Count(text, "\n"), utf8.RuneCountInString(text)
	if maxTokens <= 0 {
		return elided(text, "", 0, middleOf(text, 0, len(text), nl, runes))
	}
	tailRatio := opts.TailRatio
	if !(tailRatio > 0 && tailRatio <= 1) { // also catches NaN
		tailRatio = DefaultTailRatio
	}
	// The marker is costed with the largest numbers it can show; fewer
	// digits never take more tokens.
	markerCost := c.Count(marker(nl+1, runes))
	avail := maxTokens - markerCost
	// BPE merges across the joins can make the whole count differ from the
	// sum of its parts; shrink the parts and retry when that happens.
	for attempt := 0; avail > 0 && attempt < 8; attempt++ {
		headBudget := int(float64(avail) * (1 - tailRatio))
		h := longestPrefix(c, text, headBudget, opts.WholeLines)
		headTokens := 0
		if h > 0 {
			headTokens = c.Count(text[:h])
		}
		t := h + longestSuffix(c, text[h:], avail-headTokens, opts.WholeLines)
		if t <= h {
			// Head and tail meet: the parts fit although the whole does
			// not, so their counts under-estimate it. Ask for less.
			avail -= max(1, avail/8)
			continue
		}
		cut := middleOf(text, h, t, nl, runes)
		out := text[:h] + joinMarker(text[:h], marker(cut.lines, cut.chars)) + text[t:]
		n := c.Count(out)
		if n <= maxTokens {
			return elided(text, out, n, cut)
		}
		avail -= n - maxTokens
	}
	// The marker does not fit (or the cuts never settled): the longest
	// head that fits, with no marker.
	h := longestPrefix(c, text, maxTokens, opts.WholeLines)
	head := text[:h]
	return elided(text, head, c.Count(head), middleOf(text, h, len(text), nl, runes))
}

// elided is the result out (counting tokens) of text whose middle cut was
// removed.
func elided(text, out string, tokens int, cut middle) MiddleResult {
	return MiddleResult{
		Shown:       byteview.CountLines(text) - cut.lines,
		Text:        out,
		Truncated:   true,
		Elided:      ctxd.LineRange{Start: cut.start, End: cut.start + max(cut.lines, 1) - 1},
		ElidedChars: cut.chars,
		Tokens:      tokens,
	}
}

// middle is the removed middle text[h:t] (h < t) of a text: the line it
// starts on (1-based), the lines it touches and its runes, for the marker
// and the result.
type middle struct {
	start, lines, chars int
}

// middleOf measures text[h:t] (h < t, both cuts where no rune spans) by
// the head text[:h] and the tail text[t:] alone: their lines and runes
// taken from the text's nl and runes.
func middleOf(text string, h, t, nl, runes int) middle {
	head, tail := text[:h], text[t:]
	headNL := strings.Count(head, "\n")
	m := middle{start: headNL + 1, lines: nl - headNL - strings.Count(tail, "\n")}
	if text[t-1] != '\n' {
		m.lines++ // the middle's last line is not closed by it
	}
	m.chars = runes - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	return m
}

func marker(lines, chars int) string {
	return "\n" + Marker(lines, chars)
}

// Marker is the line [Middle] puts where it removed lines lines of chars
// runes, newline included.
func Marker(lines, chars int) string {
	return fmt.Sprintf("... [%s, %d chars elided] ...\n", ctxd.Plural(lines, "line", "lines"), chars)
}

// IsMarker reports a line (without its newline) that is a [Marker].
func IsMarker(line string) bool {
	return strings.HasPrefix(line, "... [") && strings.HasSuffix(line, " chars elided] ...")
}

// joinMarker drops the marker's leading newline when the head already ends
// a line (or is empty), so line-aligned cuts leave no blank line.
func joinMarker(head, m string) string {
	if head == "" || strings.HasSuffix(head, "\n") {
		return m[1:]
	}
	return m
}

// maxTokenBytes bounds the bytes of one token (of any encoding here, and of
// estimators, whose factors are above 1/4): a text longer than
// (budget+1)*maxTokenBytes cannot fit, so it is not counted.
const maxTokenBytes = 1024

// blockBytes is the size of the pieces a long line is counted in. Counting
// a long line whole at every step of a search would make truncation
// quadratic; summing block counts keeps it linear in the result's size.
// The sum can differ from the count of the whole by a token or so per
// block, which [Middle]'s final count catches.
const blockBytes = 2048

// lineEnd returns the end of the line starting at pos (after its '\n').
func lineEnd(s string, pos int) int {
	if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(s)
}

// lineStart returns the start of the line that ends at end.
func lineStart(s string, end int) int {
	return strings.LastIndexByte(s[:end-1], '\n') + 1
}

// nextBlock returns the end of the block of s starting at p: blockBytes
// on, moved down to a rune boundary (at least one rune).
func nextBlock(s string, p int) int {
	q := p + blockBytes
	if q >= len(s) {
		return len(s)
	}
	for q > p+1 && !utf8.RuneStart(s[q]) {
		q--
	}
	return q
}

// prevBlock returns the start of the block of s ending at q.
func prevBlock(s string, q int) int {
	p := q - blockBytes
	if p <= 0 {
		return 0
	}
	for p < q-1 && !utf8.RuneStart(s[p]) {
		p++
	}
	return p
}

// countWithin counts s block by block and reports whether it fits limit,
// stopping early once it does not.
func countWithin(c Counter, s string, limit int) (int, bool) {
	if len(s) > (limit+1)*maxTokenBytes {
		return 0, false
	}
	if len(s) <= blockBytes {
		n := c.Count(s)
		return n, n <= limit
	}
	sum := 0
	for p := 0; p < len(s); {
		q := nextBlock(s, p)
		sum += c.Count(s[p:q])
		if sum > limit {
			return sum, false
		}
		p = q
	}
	return sum, true
}

// longestPrefix returns the end of the longest prefix of s that counts at
// most budget tokens, on a rune boundary. Whole lines are preferred: the
// cut goes inside a line only when the whole lines use less than half of
// the budget, and never when wholeLines is set.
func longestPrefix(c Counter, s string, budget int, wholeLines bool) int {
	if budget <= 0 {
		return 0
	}
	pos, used := 0, 0
	for pos < len(s) {
		end := lineEnd(s, pos)
		n, ok := countWithin(c, s[pos:end], budget-used)
		if !ok {
			break
		}
		used += n
		pos = end
	}
	if pos == len(s) || used*2 >= budget || wholeLines {
		return pos
	}
	// Go into the next line block by block, then cut inside a block.
	line := s[pos:lineEnd(s, pos)]
	p := 0
	for p < len(line) {
		q := nextBlock(line, p)
		n := c.Count(line[p:q])
		if used+n > budget {
			break
		}
		used += n
		p = q
	}
	if p < len(line) {
		block := line[p:nextBlock(line, p)]
		rest := budget - used
		p += searchCut(block, func(k int) bool { return c.Count(block[:k]) <= rest }, true)
	}
	return pos + p
}

// longestSuffix returns the start of the longest suffix of s that counts
// at most budget tokens, on a rune boundary, preferring whole lines as
// [longestPrefix] does.
func longestSuffix(c Counter, s string, budget int, wholeLines bool) int {
	if budget <= 0 {
		return len(s)
	}
	pos, used := len(s), 0
	for pos > 0 {
		start := lineStart(s, pos)
		n, ok := countWithin(c, s[start:pos], budget-used)
		if !ok {
			break
		}
		used += n
		pos = start
	}
	if pos == 0 || used*2 >= budget || wholeLines {
		return pos
	}
	line := s[lineStart(s, pos):pos]
	q := len(line)
	for q > 0 {
		p := prevBlock(line, q)
		n := c.Count(line[p:q])
		if used+n > budget {
			break
		}
		used += n
		q = p
	}
	if q > 0 {
		block := line[prevBlock(line, q):q]
		rest := budget - used
		q -= searchCut(block, func(k int) bool { return c.Count(block[len(block)-k:]) <= rest }, false)
	}
	return pos - (len(line) - q)
}

// searchCut finds the largest k such that fits(k), where k is a byte
// count of s taken from its start (fromStart) or its end, on a rune
// boundary. fits(0) must hold; fits is assumed monotone (where BPE is not,
// the answer still fits, it may just not be the longest).
func searchCut(s string, fits func(int) bool, fromStart bool) int {
	valid := func(k int) bool {
		if k <= 0 || k >= len(s) {
			return true
		}
		if fromStart {
			return utf8.RuneStart(s[k])
		}
		return utf8.RuneStart(s[len(s)-k])
	}
	if fits(len(s)) {
		return len(s)
	}
	lo, hi := 0, len(s) // fits(lo), !fits(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		for mid > lo && !valid(mid) {
			mid--
		}
		if mid == lo {
			// No boundary between lo and the midpoint: try the first one
			// above it.
			mid = lo + (hi-lo)/2 + 1
			for mid < hi && !valid(mid) {
				mid++
			}
			if mid >= hi {
				break
			}
		}
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
