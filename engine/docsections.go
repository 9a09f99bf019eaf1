package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/workspace/tree"
)

const (
	// docSectionsMax bounds the sections of one document a how-to keeps
	// whole: the answer is a section or two, and a third that matches as
	// well is shown beside them.
	docSectionsMax = 3
	// docSectionsNear keeps a section whose score is at least this share
	// of the document's best.
	docSectionsNear = 0.5
	// docHeadingWeight is what a request term in a section's heading adds
	// over one in its text, in units of the term's IDF: a heading names
	// what its section is for ("Required option").
	docHeadingWeight = 2.0
	// docHowToFiles bounds the documents a how-to shows by sections:
	// the best lexical matches among them (a static-files question had
	// brought five pages of the docs, each with a section that said
	// "static" or "directory", and the code fell to its signatures).
	docHowToFiles = 2
)

// docSections sets, for a question about how to use the project
// (query.Query.HowTo: "how do I make an option required"), the focus
// lines of the best docHowToFiles gathered Markdown documents: the
// headings of the sections whose heading and text match the request's
// words best, best first, with their scores in FocusDefs. Such a
// document is shown by those sections whole under their headings, not by
// its head and tail or not at all: a README of ten thousand tokens did
// not fit beside the code, and its "Required option" section is the
// answer. A document more than twice its sections' size is reduced to
// them before it is scored and fitted (its chunk is their view, whole
// no option: a 7,600-token middleware page whole had pushed the code it
// documents to outlines); the returned views, by source, are each
// document's, from all its sections down to the best one, for the
// fitter. Code tasks are left as they are. Chunks must be counted (c
// counts a reduced document).
func docSections(q *query.Query, chunks []ctxd.Chunk, c tokens.Counter) map[string]docFocus {
	if !q.HowTo {
		return nil
	}
	terms := tree.TermsOf(q.Words)
	if len(terms) == 0 {
		return nil
	}
	// The documents in the lexical ranking's order, those it did not
	// rank (a readme gathered by name) after.
	var docs []int
	for i := range chunks {
		ch := &chunks[i]
		if ch.ChunkType == ctxd.ChunkFile && !ch.Facts.Minified && !ch.Truncated && isMarkdown(ch.Source) {
			docs = append(docs, i)
		}
	}
	slices.SortStableFunc(docs, func(a, b int) int {
		rank := func(i int) int {
			if r := chunks[i].Facts.LexicalRank; r > 0 {
				return r
			}
			return math.MaxInt
		}
		return cmp.Compare(rank(a), rank(b))
	})
	out := map[string]docFocus{}
	for _, i := range docs {
		if len(out) == docHowToFiles {
			break
		}
		ch := &chunks[i]
		best := bestSections(ch.Content, markdownSections(ch.Content), terms)
		if len(best) == 0 {
			continue
		}
		f := &ch.Facts
		f.FocusLines, f.FocusDefs, f.DocSections = nil, nil, true
		for _, b := range best {
			f.FocusLines = append(f.FocusLines, b.sec.start)
			// Global: the best section is the request's best definition,
			// as a code file's best function is (the fitter values a view
			// by it): without it a section's view was worth a tenth of a
			// code function's and the fitter cut the readme to a head and
			// a tail of its headings.
			f.FocusDefs = append(f.FocusDefs, ctxd.DefScore{Line: b.sec.start, Score: math.Round(b.score*100) / 100, Why: []string{"section " + sectionTitle(b.sec)}, Global: b.score / best[0].score})
		}
		vs := docViews(ch)
		if len(vs) == 0 {
			continue
		}
		d := docFocus{views: vs}
		if 2*len(vs[0].Text) < len(ch.Content) {
			d.elided, d.lines, d.tokens = vs[0].Elided, lineCount(ch.Content), ch.Tokens
			ch.Content = vs[0].Text
			ch.Truncated, ch.Truncation, ch.Elided = true, vs[0].Level, vs[0].Elided
			ch.OriginalTokens = ch.Tokens
			ch.Tokens = c.Count(ch.Content)
			// Its first view is its content now; it stays a view, so
			// the fitter's smallest view is a section, never a head
			// and a tail of them.
		}
		out[ch.Source] = d
	}
	return out
}

// lineCount is the number of lines of text, as strings.Lines reads them.
func lineCount(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// docFocus is a how-to's document shown by its sections: its views and,
// when its chunk was reduced to the first of them, that view's elided
// ranges and the document's line count.
type docFocus struct {
	views  []compress.View
	elided []ctxd.LineRange
	lines  int
	tokens int // the whole document's
}

// fixCut gives a fitted reduced document (docSections) the whole
// document's size, which the fitter took for its sections' view, and,
// when the fitter cut that view to a head and a tail, the document's line
// numbers: the cut's elided ranges count the view's lines. c's Elided
// then becomes every line of the document the cut does not show.
func (d docFocus) fixCut(c *ctxd.Chunk) {
	if d.elided == nil {
		return
	}
	c.OriginalTokens = d.tokens
	if c.Truncation != ctxd.ViewMiddle {
		return
	}
	// at[k] is the document's line of the view's line k+1 (0: a marker).
	var at []int
	for l := 1; l <= d.lines; {
		if k := slices.IndexFunc(d.elided, func(r ctxd.LineRange) bool { return r.Start == l }); k >= 0 {
			at = append(at, 0)
			l = d.elided[k].End + 1
			continue
		}
		at = append(at, l)
		l++
	}
	shown := make([]bool, d.lines+2)
	for k, l := range at {
		if l > 0 && !ctxd.InRanges(c.Elided, k+1) {
			shown[l] = true
		}
	}
	var out []ctxd.LineRange
	for l := 1; l <= d.lines; l++ {
		if shown[l] {
			continue
		}
		if n := len(out); n > 0 && out[n-1].End == l-1 {
			out[n-1].End = l
		} else {
			out = append(out, ctxd.LineRange{Start: l, End: l})
		}
	}
	c.Elided = out
}

// isMarkdown reports a Markdown document by its name.
func isMarkdown(source string) bool { return lang.Of(source) == "markdown" }

// mdSection is one section of a Markdown document: its heading's line
// (1-based), level (1-6) and text, and its last line (the line before
// the next heading of any level, or the document's last). The text
// before the first heading is a section of level 0 from line 1.
type mdSection struct {
	start, end, level int
	title             string
}

// markdownSections returns the sections of a Markdown text, in order:
// ATX headings ("## Options", up to three spaces in) and setext ones (a
// line underlined with "===" or "---"), outside fenced code blocks, and
// the text before the first heading when there is any.
func markdownSections(text string) []mdSection {
	var out []mdSection
	var fence string // the open fence's marker, "" outside one
	prev := ""       // the line before, "" after a heading, a blank or a fence
	n := 0
	for line := range strings.Lines(text) {
		n++
		l := strings.TrimRight(line, "\r\n")
		t := strings.TrimLeft(l, " ")
		indent := len(l) - len(t)
		if fence != "" {
			// A closing fence: the opening one's character, at least as
			// many, nothing after them but spaces.
			if indent < 4 && strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
			prev = ""
			continue
		}
		if indent < 4 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			k := 0
			for k < len(t) && t[k] == t[0] {
				k++
			}
			fence = t[:k]
			prev = ""
			continue
		}
		if level, title, ok := atxHeading(t, indent); ok {
			out = append(out, mdSection{start: n, level: level, title: title})
			prev = ""
			continue
		}
		if prev != "" && indent < 4 && setextUnderline(t) {
			level := 1
			if t[0] == '-' {
				level = 2
			}
			out = append(out, mdSection{start: n - 1, level: level, title: strings.TrimSpace(prev)})
			prev = ""
			continue
		}
		prev = strings.TrimSpace(l)
	}
	if first := firstText(text); first > 0 && (len(out) == 0 || first < out[0].start) {
		// The text before the first heading (a docs page's introduction:
		// starlette's lifespan.md says what startup and shutdown
		// handlers are before its first "##") is a section of its own,
		// with no heading.
		out = slices.Insert(out, 0, mdSection{start: 1, title: "(introduction)"})
	}
	for k := range out {
		out[k].end = n
		if k+1 < len(out) {
			out[k].end = out[k+1].start - 1
		}
	}
	return out
}

// firstText returns the first line of text that is not blank, 0 for
// none.
func firstText(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		n++
		if strings.TrimSpace(line) != "" {
			return n
		}
	}
	return 0
}

// atxHeading reads an ATX heading ("### Required option ###"): its level
// and text.
func atxHeading(t string, indent int) (level int, title string, ok bool) {
	if indent >= 4 {
		return 0, "", false
	}
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level < len(t) && t[level] != ' ' && t[level] != '\t' {
		return 0, "", false
	}
	title = strings.TrimSpace(t[level:])
	title = strings.TrimSpace(strings.TrimRight(title, "#"))
	return level, title, true
}

// setextUnderline reports a line of '=' or '-' alone (trailing spaces
// allowed) under a paragraph line.
func setextUnderline(t string) bool {
	t = strings.TrimRight(t, " \t")
	if t == "" || t[0] != '=' && t[0] != '-' {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// scoredSection is a section and its match with a request.
type scoredSection struct {
	sec   mdSection
	score float64
}

// bestSections scores each section of text against the request's terms
// (the lexical ranking's: identifier pieces, lowercased and stemmed):
// BM25 of its lines with each term's IDF taken among the document's
// sections, a term in the heading adding docHeadingWeight times its IDF.
// It returns the best ones: those within docSectionsNear of the best, at
// most docSectionsMax, best first. A section must hold two of the
// request's terms, or one in its heading, and one of them must be in
// at most half the sections (of a document of three or more): words
// every section holds ("option", in a command-line library's README)
// pick nothing.
func bestSections(text string, secs []mdSection, terms []uint32) []scoredSection {
	if len(secs) == 0 {
		return nil
	}
	want := make(map[uint32]bool, len(terms))
	for _, t := range terms {
		want[t] = true
	}
	type bag struct {
		head map[uint32]bool
		tf   map[uint32]int
		n    int // the section's terms, the request's or not
	}
	bags := make([]bag, len(secs))
	for k := range bags {
		bags[k] = bag{head: map[uint32]bool{}, tf: map[uint32]int{}}
	}
	var buf []uint32
	k, n := -1, 0
	for line := range strings.Lines(text) {
		n++
		for k+1 < len(secs) && secs[k+1].start <= n {
			k++
		}
		if k < 0 {
			continue // before the first heading
		}
		b := &bags[k]
		buf = identTerms(buf[:0], line)
		b.n += len(buf)
		for _, t := range buf {
			if !want[t] {
				continue
			}
			if n == secs[k].start && secs[k].level > 0 {
				b.head[t] = true
			} else {
				b.tf[t]++
			}
		}
	}
	df := map[uint32]int{}
	total := 0
	for _, b := range bags {
		total += b.n
		for t := range want {
			if b.head[t] || b.tf[t] > 0 {
				df[t]++
			}
		}
	}
	avg := max(float64(total)/float64(len(bags)), 1)
	const k1, bm = 1.2, 0.75
	N := float64(len(secs))
	var out []scoredSection
	for i, b := range bags {
		score, held, rare := 0.0, 0, false
		for t := range want {
			if !b.head[t] && b.tf[t] == 0 {
				continue
			}
			held++
			rare = rare || 2*df[t] <= len(secs) || len(secs) <= 2
			idf := math.Log(1 + (N-float64(df[t])+0.5)/(float64(df[t])+0.5))
			if b.head[t] {
				score += docHeadingWeight * idf
			}
			if tf := float64(b.tf[t]); tf > 0 {
				score += idf * tf * (k1 + 1) / (tf + k1*(1-bm+bm*float64(b.n)/avg))
			}
		}
		if rare && (held >= 2 || len(b.head) > 0) {
			out = append(out, scoredSection{secs[i], score})
		}
	}
	slices.SortStableFunc(out, func(a, b scoredSection) int { return cmp.Compare(b.score, a.score) })
	for i := range out {
		if i == docSectionsMax || out[i].score < docSectionsNear*out[0].score {
			return out[:i]
		}
	}
	return out
}

// identTerms appends the terms of the identifier runs of s to dst.
func identTerms(dst []uint32, s string) []uint32 {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && query.IsIdentByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = tree.AppendTerms(dst, []byte(s[start:i]))
			start = -1
		}
	}
	return dst
}

// docViews returns the views of a Markdown document whose focus lines
// are section headings (docSections): the best k sections whole for k
// from all of them down to the best alone, each under the headings of
// the sections it is part of, the rest of the document elided; each
// smaller than the one before. Nil when the document has no such focus.
func docViews(c *ctxd.Chunk) []compress.View {
	if len(c.Facts.FocusLines) == 0 || !isMarkdown(c.Source) {
		return nil
	}
	secs := markdownSections(c.Content)
	var chosen []mdSection
	for _, l := range c.Facts.FocusLines {
		k := slices.IndexFunc(secs, func(s mdSection) bool { return s.start == l })
		if k < 0 {
			return nil // not a section's heading: no document focus
		}
		chosen = append(chosen, secs[k])
	}
	lines := strings.SplitAfter(c.Content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []compress.View
	for k := len(chosen); k >= 1; k-- {
		v := sectionsView(lines, secs, chosen[:k])
		if n := len(out); n > 0 && len(v.Text) >= len(out[n-1].Text) {
			continue
		}
		out = append(out, v)
	}
	return out
}

// sectionsView shows the lines of the chosen sections and the headings
// of the sections that contain them (a heading of a lower level before
// each), every other run of lines replaced by a marker and reported as
// elided.
func sectionsView(lines []string, secs, chosen []mdSection) compress.View {
	show := make([]bool, len(lines)+1) // 1-based
	for _, s := range chosen {
		for l := s.start; l <= s.end && l <= len(lines); l++ {
			show[l] = true
		}
		// The headings above it: each nearest earlier heading of a
		// lower level, up to the document's top.
		level := s.level
		for k := slices.IndexFunc(secs, func(o mdSection) bool { return o.start == s.start }) - 1; k >= 0 && level > 1; k-- {
			if secs[k].level > 0 && secs[k].level < level {
				show[secs[k].start] = true
				if secs[k].start+1 <= len(lines) && setextUnderline(strings.TrimSpace(lines[secs[k].start])) {
					show[secs[k].start+1] = true
				}
				level = secs[k].level
			}
		}
	}
	var b strings.Builder
	var elided []ctxd.LineRange
	for l := 1; l <= len(lines); {
		if show[l] {
			b.WriteString(lines[l-1])
			if !strings.HasSuffix(lines[l-1], "\n") {
				b.WriteByte('\n')
			}
			l++
			continue
		}
		from, chars := l, 0
		for ; l <= len(lines) && !show[l]; l++ {
			chars += len([]rune(lines[l-1]))
		}
		elided = append(elided, ctxd.LineRange{Start: from, End: l - 1})
		b.WriteString(tokens.Marker(l-from, chars))
	}
	return compress.View{Level: ctxd.ViewFocusOnly, Text: b.String(), Elided: elided}
}

// sectionTitle names a section for a reason line.
func sectionTitle(s mdSection) string { return fmt.Sprintf("%q (line %d)", s.title, s.start) }
