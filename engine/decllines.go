package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Limits of declLines: the source files looked into (in gathered order),
// the lines kept per file, and the module-level lines of a file a term may
// be on and still pick them (a term on more is the file's subject, not a
// pointer to one place). 8 lines and 4 showed more lines in every focus
// view, and the fitter, which values a view by the functions it keeps,
// bought smaller steps: at 100 commits gin, httpx and requests read 60 /
// 43 / 53 at 8k, against 62 / 44 / 53 with these (BENCHMARKS.md
// "h25views").
const (
	declFiles        = 12
	declLinesPerFile = 4
	declTermLines    = 2
)

// declLines sets DeclLines: in the first declFiles source files, the
// module-level lines (outside every function and method, and outside the
// bodies of classes with methods but for their attributes and fields)
// that hold a term of the request (its focus words, split and stemmed as
// ranking reads them) that at most declTermLines such lines of the file
// hold, at most declLinesPerFile of them. The focus views show each with the short
// declaration, import group or statement it belongs to
// (treesitter.Options.DeclLines). A change to module-level code (a
// constant, `__all__`, a struct's fields, an import group, a module-level
// call) was hidden by every focus view: they show functions whole and the
// rest as outline lines (issue 25; BENCHMARKS.md "h25views"). Match lines
// (the request's code identifiers) already show; these are its words.
func (e *Engine) declLines(ctx context.Context, q *query.Query, chunks []ctxd.Chunk, sums contentSums) {
	if len(q.FocusWords) == 0 {
		return
	}
	want := map[uint32]bool{}
	for _, t := range tree.TermsOf(q.FocusWords) {
		want[t] = true
	}
	aboutTests := q.AboutTests
	looked := 0
	var got []uint32    // the wanted terms of every candidate line, one after another
	var held [][]uint32 // by candidate line, its wanted terms (a part of got)
	for i := range chunks {
		c := &chunks[i]
		if c.ChunkType != ctxd.ChunkFile || c.Facts.Minified || !aboutTests && lang.IsTest(c.Source) {
			continue
		}
		if looked == declFiles || ctx.Err() != nil {
			return
		}
		ent, err := e.symbolsOf(ctx, c, sums)
		if err != nil || ent == nil || len(ent.Defs) == 0 {
			continue
		}
		looked++
		// The module-level lines' terms depend on the content alone:
		// read once per content, each request intersects them with its
		// own (reading every such line's words on every request was 5-6%
		// of a warm request's CPU; BENCHMARKS.md "hspeed").
		lt := e.store.LineTerms(workspace.LineTermsKey{Content: ent.Hash, Language: c.Facts.Language}, func() *workspace.LineTerms {
			return moduleLineTerms(c, ent)
		})
		var lines []int
		got, held = got[:0], held[:0]
		count := map[uint32]int{}
		for k := range lt.Len() {
			l, terms := lt.Line(k)
			if slices.Contains(c.Facts.MatchLines, l) {
				continue
			}
			from := len(got)
			for _, t := range terms {
				if want[t] {
					got = append(got, t)
				}
			}
			if len(got) == from {
				continue
			}
			for _, t := range got[from:] {
				count[t]++
			}
			lines = append(lines, l)
			held = append(held, got[from:len(got):len(got)])
		}
		var out []int
		for k, l := range lines {
			if len(out) == declLinesPerFile {
				break
			}
			if slices.ContainsFunc(held[k], func(t uint32) bool { return count[t] <= declTermLines }) {
				out = append(out, l)
			}
		}
		c.Facts.DeclLines = out
	}
}

// moduleLineTerms reads the terms of c's module-level lines (ent is its
// symbol-index entry): the lines outside every function and method, and
// outside the bodies of classes with methods but for their attributes and
// fields, after the file's leading comment block (lang.HeaderLines); an
// import statement's line is read for the modules it imports only
// (importedModules).
func moduleLineTerms(c *ctxd.Chunk, ent *index.Symbols) *workspace.LineTerms {
	n := strings.Count(c.Content, "\n") + 1
	marks := make([]byte, n+1) // by line, what it is inside of (inFunction...)
	mark := func(d index.Def, m byte) {
		for l := max(d.Line, 1); l <= min(d.End, n); l++ {
			marks[l] |= m
		}
	}
	// Functions, and the bodies of classes with methods in them (a
	// class's docstring holds the words of its methods), but their
	// attributes and fields (outside functions).
	methods := map[string][][2]int{} // by class, the methods' lines
	for _, d := range ent.Defs {
		switch {
		case d.Kind == "function" || d.Kind == "method":
			mark(d, inFunction)
			if d.Parent != "" {
				methods[d.Parent] = append(methods[d.Parent], [2]int{d.Line, d.End})
			}
		case (d.Kind == "field" || d.Kind == "var" || d.Kind == "const") && d.Parent != "":
			mark(d, inMember)
		}
	}
	for _, d := range ent.Defs {
		if ms := methods[d.Name]; d.Kind != "function" && d.Kind != "method" && slices.ContainsFunc(ms, func(m [2]int) bool { return d.Line <= m[0] && m[1] <= d.End }) {
			mark(d, inClass)
		}
	}
	lt := &workspace.LineTerms{}
	header := lang.HeaderLines(c.Facts.Language, c.Content) // a license's words point nowhere
	var terms, all []uint32                                 // scratch: one identifier's terms, one line's
	imps := lang.ImportsAt(c.Facts.Language, readOnly(c.Content))
	k := 0 // the next import
	l := 0
	for line := range strings.Lines(c.Content) {
		l++
		if m := marks[l]; l <= header || m&inFunction != 0 || m&inClass != 0 && m&inMember == 0 {
			continue
		}
		text := line
		for k < len(imps) && imps[k].End < l {
			k++
		}
		if k < len(imps) && imps[k].Start <= l {
			text = importedModules(imps[k:], l)
		}
		all = all[:0]
		query.ScanWords(readOnly(text), func(id []byte) {
			terms = tree.AppendTerms(terms[:0], id)
			all = append(all, terms...)
		})
		lt.Add(l, all)
	}
	return lt
}

// The marks of a line for declLines: inside a function, inside a class
// with methods, inside an attribute or field of a type.
const (
	inFunction byte = 1 << iota
	inClass
	inMember
)

// importedModules returns what declLines reads of line l of an import
// statement (imps, from the statement holding l on): the modules it
// imports on l (`from X import a, b`: X; `import X`; `import {a} from
// 'x'`: 'x'), not the names it binds (a request about requests names
// Request, which every import of the module's models brings); "" for a
// line of names alone (`from X import (` over lines, a JavaScript `import
// {` group) or of the statement's keywords.
func importedModules(imps []lang.Import, l int) string {
	var b strings.Builder
	for _, im := range imps {
		if im.Start > l {
			break
		}
		if im.Line == l && !im.Name {
			b.WriteString(im.Spec)
			b.WriteByte(' ')
		}
	}
	return b.String()
}
