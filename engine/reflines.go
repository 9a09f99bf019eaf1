package engine

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/query"
)

const (
	// refFiles bounds the gathered files searched for call sites.
	refFiles = 40
	// refLinesPerFile bounds the call sites kept per file: a name used
	// all over a file is better read from its bodies view.
	refLinesPerFile = 12
)

// refLines sets RefLines for a refactoring request about a name's uses (a
// rename, a signature change, "update every caller"): in each gathered
// file, the lines that use a name the request mentions and some gathered
// file defines (MentionedSymbols, from matchSymbols), so "rename X to Y"
// shows the call sites of X beside its definition, in the file that
// defines it and in the others. The definition's own first line is left
// out (the focus views show the definition whole). Other refactorings
// ("clean up the Request parameter") leave them out: a class's uses are
// everywhere, and showing them crowded the changed file out (a commit of
// encode/httpx).
//
// A question about where a name is used (query.Query.AsksUses: "where is X
// used", "who calls X") sets them whatever the task: the answer is those
// lines.
func refLines(task ctxd.TaskType, q *query.Query, chunks []ctxd.Chunk) {
	if !(task == ctxd.TaskRefactor && q.AboutUses || q.AsksUses) {
		return
	}
	var names []string
	for i := range chunks {
		for _, id := range slices.Concat(chunks[i].Facts.MentionedSymbols, chunks[i].Facts.UsedSymbols) {
			_, name := query.SplitQualified(id)
			if len(name) >= 3 && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(names) == 0 {
		return
	}
	looked := 0
	for i := range chunks {
		c := &chunks[i]
		if c.ChunkType != ctxd.ChunkFile || c.Facts.Minified || looked == refFiles {
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(c.Content, n) }) {
			continue
		}
		looked++
		c.Facts.RefLines = usesOf(c.Content, names, refLinesPerFile)
	}
}

// usesOf returns the 1-based lines of content that hold one of names as a
// whole word, not as the name of a definition (def, func, function,
// class, fn... before it), at most limit of them.
func usesOf(content string, names []string, limit int) []int {
	return linesWhere(content, limit, func(line string) bool {
		return slices.ContainsFunc(names, func(name string) bool {
			at := query.NameIndex(line, name)
			return at >= 0 && !definesAt(line, at)
		})
	})
}

// linesWhere returns the 1-based lines of content for which match holds,
// at most limit of them. It walks the lines in place (it runs on every
// gathered file of a request: no slice of all its lines).
func linesWhere(content string, limit int, match func(line string) bool) []int {
	var out []int
	n := 0
	for line := range strings.Lines(content) {
		n++
		if len(out) == limit {
			break
		}
		if match(line) {
			out = append(out, n)
		}
	}
	return out
}

// definesAt reports a definition keyword right before the name at i
// ("def name(", "func (r *T) name(", "function name(").
func definesAt(line string, i int) bool {
	before := strings.TrimRight(line[:i], " \t*")
	if j := strings.LastIndexByte(before, ')'); j >= 0 && strings.HasPrefix(strings.TrimLeft(before, " \t"), "func") {
		before = before[:strings.IndexByte(before, '(')] // Go's receiver
	}
	fields := strings.Fields(before)
	if len(fields) == 0 {
		return false
	}
	switch fields[len(fields)-1] {
	case "def", "func", "function", "fn", "class", "struct", "type", "interface", "enum", "trait", "fun":
		return true
	}
	return false
}

// matchLinesPerFile bounds the lines matching the request kept per file:
// an identifier on every other line of a file is better read from its
// bodies view, and each kept line keeps its function whole there.
const matchLinesPerFile = 12

// matchLinesCommon bounds the lines of a file one identifier may hold and
// still mark them: an identifier on more (cmd on 347 lines of a CLI's
// command.go, Name on 104) names the file, not a line of it, and its
// first lines, kept, kept functions whole the request is not about
// (BENCHMARKS.md "h25small"); one on fewer (InvalidURL on 13 lines of
// httpx's _urlparse.py, for "Improve InvalidURL error message") marks
// the lines a change to its uses edits.
const matchLinesCommon = 3 * matchLinesPerFile

// matchLines sets MatchLines: in each gathered source file, the lines that
// hold one of the request's identifiers (its code words, query.Query's
// Idents and the last part of its qualified names; not plain English
// words) as a whole word, so that no view elides them (issue 25: a
// bodies view hid ModelChoiceField.to_python although its raise line held
// `invalid_choice`, a word of the request). An identifier holding more
// than matchLinesCommon lines of a file marks none of them. The fitter
// counts what the kept lines cost like any other text of a view.
func matchLines(q *query.Query, chunks []ctxd.Chunk) {
	var names []string
	for _, id := range q.Names() {
		_, name := query.SplitQualified(id)
		if len(name) >= 3 && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	var in []string
	for i := range chunks {
		c := &chunks[i]
		if c.ChunkType != ctxd.ChunkFile || c.Facts.Minified {
			continue
		}
		in = in[:0]
		for _, n := range names {
			if strings.Contains(c.Content, n) {
				in = append(in, n)
			}
		}
		if len(in) > 0 {
			c.Facts.MatchLines = linesNaming(c.Content, in, matchLinesPerFile, matchLinesCommon)
		}
	}
}

// linesNaming returns the first limit 1-based lines of content that hold
// one of names as a whole word, leaving out the names that more than
// common lines hold.
func linesNaming(content string, names []string, limit, common int) []int {
	at := make([][]int, len(names)) // each name's lines, up to common+1
	left := len(names)              // the names on common lines or fewer so far
	n := 0
	for line := range strings.Lines(content) {
		n++
		for k, name := range names {
			if len(at[k]) <= common && query.NameIndex(line, name) >= 0 {
				if at[k] = append(at[k], n); len(at[k]) > common {
					left--
				}
			}
		}
		if left == 0 {
			return nil
		}
	}
	var out []int
	for _, ls := range at {
		if len(ls) <= common {
			out = append(out, ls...)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:min(len(out), limit)]
}
