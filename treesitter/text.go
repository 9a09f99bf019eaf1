package treesitter

import (
	"bytes"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
)

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // byte offset of each line's start

func newLineIndex(src []byte) lineIndex {
	// Sized first and cut with IndexByte (both vectorised): an analysis
	// read back from the store makes its index per request, and the byte
	// loop with appends was half of decoding one.
	li := make(lineIndex, 1, bytes.Count(src, newline)+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return li
		}
		i += j + 1
		li = append(li, i)
	}
}

var newline = []byte{'\n'}

// line returns the 1-based line holding byte offset off.
func (li lineIndex) line(off int) int {
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}

// count is the number of lines of the text (a final newline does not start
// a line).
func (li lineIndex) count(size int) int {
	if size == 0 {
		return 0
	}
	n := len(li)
	if li[n-1] == size {
		n--
	}
	return n
}

// lineStart returns the offset of the start of the line holding off.
func (li lineIndex) lineStart(off int) int { return li[li.line(off)-1] }

// lineEnd returns the offset of the newline ending the line holding off, or
// size.
func lineEnd(src []byte, off int) int {
	for i := off; i < len(src); i++ {
		if src[i] == '\n' {
			return i
		}
	}
	return len(src)
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == '\v'
}

// blankBetween reports whether src[a:b] is only whitespace.
func blankBetween(src []byte, a, b int) bool {
	for i := a; i < b; i++ {
		if !isSpace(src[i]) {
			return false
		}
	}
	return true
}

// contentLines returns the 1-based lines of the first and last
// non-whitespace bytes of src[a:b], ok false when there are none.
func contentLines(src []byte, li lineIndex, a, b int) (first, last int, ok bool) {
	for a < b && isSpace(src[a]) {
		a++
	}
	for b > a && isSpace(src[b-1]) {
		b--
	}
	if a >= b {
		return 0, 0, false
	}
	return li.line(a), li.line(b - 1), true
}

// mergeRanges sorts line ranges and merges overlapping or adjacent ones.
func mergeRanges(rs []ctxd.LineRange) []ctxd.LineRange {
	if len(rs) == 0 {
		return nil
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Start < rs[j].Start })
	out := []ctxd.LineRange{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.Start <= last.End+1 {
			if r.End > last.End {
				last.End = r.End
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// oneLine collapses whitespace runs to single spaces and tidies the spaces
// that a line break left inside brackets: "f(\n\ta int,\n)" → "f(a int)".
func oneLine(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			prev := b.String()[b.Len()-1]
			if !(prev == '(' || prev == '[') && r != ')' && r != ']' && r != ',' {
				b.WriteByte(' ')
			}
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	out = strings.ReplaceAll(out, ",)", ")")
	out = strings.ReplaceAll(out, ",]", "]")
	return out
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - 3
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// sentenceEnd returns the length of the first sentence of prose: up to and
// including the first '.', '!' or '?' followed by whitespace or the end, or
// up to the first blank line. ok is false when the first sentence is the
// whole text.
func sentenceEnd(prose string) (n int, ok bool) {
	for i := 0; i < len(prose); i++ {
		switch prose[i] {
		case '.', '!', '?':
			if i+1 == len(prose) {
				return i + 1, false
			}
			if isSpace(prose[i+1]) {
				// "e.g. " and "i.e. " do not end a sentence.
				if i >= 3 && (prose[i-3:i+1] == "e.g." || prose[i-3:i+1] == "i.e.") {
					continue
				}
				return i + 1, true
			}
		case '\n':
			// A blank line ends the paragraph.
			j := i + 1
			for j < len(prose) && (prose[j] == ' ' || prose[j] == '\t' || prose[j] == '\r') {
				j++
			}
			if j < len(prose) && prose[j] == '\n' {
				return i, true
			}
		}
	}
	return len(prose), false
}

// commentProse strips comment markers from one line of a comment:
// "// x", "/// x", "//! x", "# x", "/** x", " * x", "x */".
func commentProse(line string) string {
	s := strings.TrimSpace(line)
	for _, p := range []string{"///", "//!", "//", "/**", "/*!", "/*", "#", "*"} {
		if strings.HasPrefix(s, p) {
			s = s[len(p):]
			break
		}
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), "*/")
	return strings.TrimSpace(s)
}

// firstSentence returns the first sentence of a comment's prose on one line.
func firstSentence(comment string) string {
	var parts []string
	for _, l := range strings.Split(comment, "\n") {
		parts = append(parts, commentProse(l))
	}
	// Leading empty lines ("/**") carry nothing.
	for len(parts) > 0 && parts[0] == "" {
		parts = parts[1:]
	}
	prose := strings.Join(parts, "\n")
	prose = strings.TrimSpace(strings.NewReplacer("<summary>", "", "</summary>", "").Replace(prose))
	n, _ := sentenceEnd(prose)
	return clip(oneLine(prose[:n]), 300)
}

// directive reports a comment line that tools read (//go:build,
// //go:generate, // +build, //nolint, //export): it survives a doc cut.
func directive(line string) bool {
	s := strings.TrimSpace(line)
	if strings.HasPrefix(s, "// +build") {
		return true
	}
	if !strings.HasPrefix(s, "//") || len(s) < 3 || s[2] == ' ' || s[2] == '/' || s[2] == '!' {
		return false
	}
	word := s[2:]
	if i := strings.IndexAny(word, ": \t"); i > 0 {
		return word[i] == ':' || word[:i] == "nolint" || word[:i] == "export" || word[:i] == "line"
	}
	return word == "nolint" || word == "export"
}

// cutComment shortens a run of comment lines (the source text of one or
// more adjacent comment nodes) to the first sentence of its prose, keeping
// the comment syntax valid: line comments keep their markers, a block
// comment gets its closing "*/" back. ok is false when nothing would be
// shorter.
func cutComment(run string) (string, bool) {
	lines := strings.Split(run, "\n")
	block := strings.HasPrefix(strings.TrimSpace(lines[0]), "/*")
	if block {
		// Only a single block comment: the run ends with its "*/".
		if strings.Count(run, "*/") != 1 || !strings.HasSuffix(strings.TrimRight(run, " \t\r\n"), "*/") {
			return run, false
		}
	} else {
		for _, l := range lines {
			t := strings.TrimSpace(l)
			if t != "" && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "#") {
				return run, false
			}
		}
	}
	// Walk the lines, find the one where the first sentence ends.
	started := false
	for i, l := range lines {
		prose := commentProse(l)
		if block && strings.HasSuffix(strings.TrimSpace(l), "*/") && i == len(lines)-1 && prose == "" {
			break
		}
		if !block && directive(l) {
			continue
		}
		if prose == "" {
			if started {
				// Blank comment line: the paragraph ended on the line before.
				return finishCut(lines[:i], lines[i:], block, run)
			}
			continue
		}
		started = true
		// Find a sentence end on this line, at a position in l itself.
		off := strings.Index(l, prose)
		n, ok := sentenceEnd(prose)
		if !ok && strings.ContainsAny(prose[len(prose)-1:], ".!?") && !strings.HasSuffix(prose, "e.g.") && !strings.HasSuffix(prose, "i.e.") {
			ok = true // the sentence ends with the line
		}
		if ok {
			head := l[:off+n]
			return finishCut(append(append([]string{}, lines[:i]...), head), lines[i+1:], block, run)
		}
	}
	return run, false
}

func finishCut(keep, rest []string, block bool, run string) (string, bool) {
	var b strings.Builder
	b.WriteString(strings.Join(keep, "\n"))
	if block {
		// Close the way the comment closed: " */" on its own line stays
		// on its own line.
		lines := strings.Split(strings.TrimRight(run, " \t\r\n"), "\n")
		if last := lines[len(lines)-1]; len(lines) > 1 && strings.TrimSpace(last) == "*/" {
			b.WriteString("\n" + last)
		} else {
			b.WriteString(" */")
		}
	} else {
		for _, l := range rest {
			if directive(l) {
				b.WriteByte('\n')
				b.WriteString(l)
			}
		}
	}
	out := b.String()
	// C#'s XML docs: close a <summary> the cut left open.
	if strings.Contains(out, "<summary>") && !strings.Contains(out, "</summary>") && strings.Contains(run, "</summary>") {
		out += "</summary>"
	}
	// Keep a trailing newline that belonged to the run (Rust's doc
	// comment nodes end with one).
	if strings.HasSuffix(run, "\n") && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if len(out) >= len(run) {
		return run, false
	}
	return out, true
}
