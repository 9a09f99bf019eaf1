package engine

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

const (
	// focusMinTokens: a file smaller than this shows whole or at a
	// structural view that keeps every body anyway.
	focusMinTokens = 1500
	// focusFiles bounds the files one request looks into (each a parse
	// when its content is new to the symbol index).
	focusFiles = 12
	// focusDefs bounds the methods of a named class kept per file.
	focusDefs = 3
	// focusLadder bounds the functions ranked per file for its focus
	// views, and focusLadderCut is the share of the best one's score
	// each must reach: the views keep the best 1, 2, 3, 5, 8 and 13 of
	// them whole (focusSteps), and the fitter buys the step worth its
	// tokens. In 120 of 223 focus views of the development set's answer
	// files at 8k, the changed lines a view hid were in a function past
	// the three it kept; at 32k, a file of 40,000 tokens (fastapi's
	// routing.py) had room for more than the best 8 (BENCHMARKS.md
	// "h25alloc": gin 8k all-lines 58 -> 60, fastapi 32k 60 -> 62).
	focusLadder    = 13
	focusLadderCut = 0.25
	// focusLadderFiles is how many of the large files a request looks
	// into get the ladder. focusLines runs before the scoring, over the
	// chunks in gathering's order (by path, open files among them): these
	// constants were tuned so. Scoring first, to look into the best
	// files, measured on the development set (eval recall, 100 commits):
	// 8k all-lines equal, 32k -0.35, all-found -0.64 (gin, whose
	// context.go comes early by path, -3 / -2; BENCHMARKS.md "Lead
	// (2026-11-30 14:20"); with it the constants want fitting again.
	focusLadderFiles = 6
	// focusMaxLines: a longer definition (a whole class or impl block)
	// would keep most of the file.
	focusMaxLines = 300
	// focusDeclSpan bounds the module-level constants and variables of
	// more than one line ranked beside the functions.
	focusDeclSpan = 60
)

// typeKinds are the kinds of the types focusCandidates offers when at
// module level and of 2 to focusDeclSpan lines (focusLines ranks them
// after the functions, like a class's head): Go's
// structs, interfaces and other types, TypeScript's interfaces, type
// aliases and enums. A commit adding a field edits the type's body, which
// no function holds (BENCHMARKS.md "hdefin": 20 answer files of the
// training split hid a changed line in a type's body).
var typeKinds = map[string]bool{"struct": true, "interface": true, "type": true, "enum": true}

// focusable reports a file chunk whose focus lines focusLines may choose:
// no cursor, selection or error lines keep lines of it already, and it
// is not minified.
func focusable(c *ctxd.Chunk) bool {
	f := &c.Facts
	return c.ChunkType == ctxd.ChunkFile && !f.Minified && f.Cursor <= 0 && f.Selection == nil && len(f.ErrorLines) == 0
}

// focusLines sets FocusLines for the large gathered files that nothing
// else focuses (no cursor, selection, error lines or named symbols): the
// functions whose text matches the request's words best
// (tree.DefTerms.Focus), read from the symbol index. A source file's own
// tests (Rust's `mod tests`, functions named test_… or Test…) are left out
// unless the task is writing tests: they repeat the words of the code they
// test. Chunks must be counted.
func (e *Engine) focusLines(ctx context.Context, q *query.Query, task ctxd.TaskType, chunks []ctxd.Chunk, sums contentSums, diff *tree.Diff) {
	// A class named as a qualifier (Request of "Request.hooks") names a
	// member, not the class's methods.
	quals := q.Qualifiers
	fq := tree.NewFocusQuery(q) // the request's focus terms, once for every file
	hist := e.ladderHistories(ctx, chunks, sums, diff)
	looked := 0
	var glob []globalSet // the files' definitions, for their global scores
	defer func() { setGlobal(fq, glob) }()
	for i := range chunks {
		c := &chunks[i]
		f := &c.Facts
		if !focusable(c) {
			continue
		}
		if len(f.MentionedSymbols) > 0 && len(f.FocusLines) == 0 {
			// A class the request names ("httpx.Timeout") keeps its
			// methods that match the request's words best whole (its
			// first when none does), whatever the file's size: the views
			// keep a named function whole, but a class is no function,
			// and its methods were collapsed like the rest.
			if ent, err := e.symbolsOf(ctx, c, sums); err == nil && ent != nil {
				if methods := classMethods(ent.Defs, slices.DeleteFunc(slices.Clone(f.MentionedSymbols), func(n string) bool { return quals[n] })); len(methods) > 0 {
					cs := e.focusCandidates(ctx, c.Source, readOnly(c.Content), ent)
					var among []int
					for k, fc := range cs {
						if slices.Contains(methods, fc.at) {
							among = append(among, k)
						}
					}
					dt := e.store.DefTerms(ent.Hash, c.Content, cs.spans())
					ranked := dt.RankBy(fq, among, nameHolds(cs))
					picked := focusPick(f, ranked, cs, focusDefs, 0.5)
					glob = append(glob, globalSet{dt, among, ranked, f, picked})
					if len(f.FocusLines) == 0 {
						f.FocusLines = methods[:1]
					}
				}
			}
			if len(f.FocusLines) > 0 {
				continue
			}
		}
		if c.Tokens < focusMinTokens {
			continue
		}
		if looked == focusFiles || ctx.Err() != nil {
			return
		}
		looked++
		ent, err := e.symbolsOf(ctx, c, sums)
		if err != nil || ent == nil {
			continue
		}
		// A request word the file defines is kept whole by the views
		// already, but it is not always the code that answers: a named
		// type (http.Client) or a function that merely shares a word of the
		// request (Post for "a POST request") left the function whose body
		// holds the request's other words (redirectBehavior: 307, GetBody,
		// redirect) collapsed, even with the file open. The focus lines are
		// chosen among the other functions, by their text.
		var named []int // first lines of the definitions named
		for _, d := range ent.Defs {
			if len(f.MentionedSymbols) > 0 && slices.Contains(f.MentionedSymbols, d.Name) {
				named = append(named, d.Line)
			}
		}
		cs := e.focusCandidates(ctx, c.Source, readOnly(c.Content), ent)
		var among []int // nil: every candidate
		if task != ctxd.TaskTest && slices.ContainsFunc(cs, func(fc focusCand) bool { return fc.test }) || len(f.MentionedSymbols) > 0 {
			among = []int{}
			for k, fc := range cs {
				if !(fc.test && task != ctxd.TaskTest) && !slices.Contains(named, fc.at) {
					among = append(among, k)
				}
			}
		}
		// The types (a struct's fields, a class's head) rank apart and
		// join the ladder after the functions (byName), in the best
		// files only: a struct of many fields scores low against a
		// function for the same words (length), and at its own score
		// it fell under the ladder's cut.
		var typed []int
		if slices.ContainsFunc(cs, func(fc focusCand) bool { return fc.typ }) {
			var funcs []int
			for k, fc := range cs {
				if among == nil || slices.Contains(among, k) {
					if fc.typ {
						typed = append(typed, k)
					} else {
						funcs = append(funcs, k)
					}
				}
			}
			among = funcs
		}
		// Beside what the request names too: three more functions whole
		// in every view of such a file cost the dev repos files shown
		// whole (httpx 8k all-full 28 -> 22) when they were the only
		// focus views; the ladder's steps start at the named definitions
		// alone and add one function at a time.
		dt := e.store.DefTerms(ent.Hash, c.Content, cs.spans())
		holds := nameHolds(cs)
		ranked := rankRuns(cs, among, func(among []int) []tree.DefScore { return dt.RankBy(fq, among, holds) })
		if looked <= focusLadderFiles {
			if len(ranked) == 0 {
				// No definition holds two of the request's words: those
				// holding one that few hold (tree.RankAny) are the ladder (an open
				// answer file at its bodies view, the changed function
				// collapsed: BENCHMARKS.md "hdefch").
				ranked = rankRuns(cs, among, func(among []int) []tree.DefScore { return dt.RankAny(fq, among) })
			} else {
				// Those holding a word few hold join after the ranked
				// ones, like the named ones (BENCHMARKS.md "htype": 13
				// answer files of the training split hid a changed
				// function holding such a word while RankBy ranked
				// others).
				ranked = byName(ranked, rankRuns(cs, among, func(among []int) []tree.DefScore { return dt.RankAny(fq, among) }))
			}
			ranked = byName(ranked, dt.RankNamed(fq, defsOf(among, cs), holds))
			if len(typed) > 0 {
				ranked = byName(ranked, dt.RankBy(fq, typed, holds))
			}
			ranked = byHistory(ranked, cs, among, hist[c.Source])
		}
		var picked []int // the definitions of f.FocusDefs
		if looked > focusLadderFiles {
			// Past the best few files, the ladder's steps are rarely
			// bought and their renderings cost every request: the best
			// three, or the best one beside a named definition, as
			// before the ladder, with no scores (no ladder).
			limit := focusDefs
			if len(named) > 0 {
				limit = 1
			}
			for _, r := range ranked {
				if len(f.FocusLines) == limit || r.Score < 0.5*r.Best {
					break
				}
				f.FocusLines = append(f.FocusLines, cs[r.Index].at)
			}
		} else {
			picked = focusPick(f, ranked, cs, focusLadder, focusLadderCut)
		}
		glob = append(glob, globalSet{dt, defsOf(among, cs), ranked, f, picked})
		if lang.IsTest(c.Source) {
			f.FocusLines = append(f.FocusLines, usedDefs(c.Content, ent.Defs, f.FocusLines)...)
		}
	}
}

// globalSet is one file's definitions for setGlobal: those ranked
// together (among, indexes of dt's; nil: all), the file's own ranking of
// them, its facts, and focus, the definition (dt's index) of each of
// f.FocusDefs, in their order (focusPick's return). The ranking's order
// says nothing of which definitions are the focus ones: focus does.
type globalSet struct {
	dt     *tree.DefTerms
	among  []int
	ranked []tree.DefScore
	f      *ctxd.Facts
	focus  []int
}

// setGlobal sets the Global of the focus definitions of sets: each
// one's score among the definitions of every file the request looked
// into (its first 12 large files: one term weighting over all), over the
// best such score. Within a file the file's own ranking orders its
// definitions as well as this one; across files the global score says
// which of them hold the changed function better than the files' rank
// (BENCHMARKS.md "hglob": the best 12 definitions by it held the
// changed function of 38 of 108 answer files, the best three of each
// file in file order 34), which the fitter reads to value a focus step
// against another file's.
func setGlobal(fq *tree.FocusQuery, sets []globalSet) {
	if len(sets) < 2 {
		return
	}
	st := tree.NewDefStats(fq)
	for _, s := range sets {
		st.Add(s.dt, s.among)
	}
	best := 0.0
	for _, s := range sets {
		// The best of each file's own ranking is nearly always its best
		// across files (a term's weight changes alike for all of its
		// definitions): its first few stand for the file.
		for _, r := range s.ranked[:min(len(s.ranked), 3)] {
			if sc, ok := st.Score(s.dt, r.Index); ok {
				best = max(best, sc)
			}
		}
	}
	if best <= 0 {
		return
	}
	for _, s := range sets {
		for k, i := range s.focus {
			if sc, ok := st.Score(s.dt, i); ok {
				s.f.FocusDefs[k].Global = math.Round(min(sc/best, 1)*100) / 100
			}
		}
	}
}

// defsOf returns the candidates of among (nil: every one of cs) that are
// no run of a long function.
func defsOf(among []int, cs focusCands) []int {
	if !cs.hasRuns() {
		return among
	}
	var out []int
	for k, c := range cs {
		if c.long == 0 && (among == nil || slices.Contains(among, k)) {
			out = append(out, k)
		}
	}
	return out
}

// focusPick sets f's focus definitions (f has none yet) and appends
// their focus lines to f's: the best ranked candidates of cs, at most
// limit of them and each scoring at least cut times the best, with their
// scores and reasons. It returns the candidate index of each of
// f.FocusDefs, in their order, for setGlobal.
func focusPick(f *ctxd.Facts, ranked []tree.DefScore, cs focusCands, limit int, cut float64) []int {
	f.FocusDefs = f.FocusDefs[:0]
	var picked []int
	for _, r := range ranked {
		if len(f.FocusDefs) == limit || r.Score < cut*r.Best {
			break
		}
		f.FocusLines = append(f.FocusLines, cs[r.Index].at)
		f.FocusDefs = append(f.FocusDefs, ctxd.DefScore{Line: cs[r.Index].at, Score: math.Round(r.Score*100) / 100, Why: r.Terms})
		picked = append(picked, r.Index)
	}
	return picked
}

// Limits of usedDefs: a helper function of at most usedFuncLines lines, a
// table (any other top-level declaration) of at most usedDeclLines, and
// at most usedDefsMax of them per file.
const (
	usedFuncLines = 30
	usedDeclLines = 60
	usedDefsMax   = 3
)

// usedDefs returns the first lines of the short top-level definitions of
// a test file (defs, its content content) that the functions at focus use
// by name and that focus does not hold: the table a table-driven test
// loops over (cutTests for TestCut), the setup helper that sets the
// fixture values its asserts compare against. The views show a focused
// function whole but what it uses as one outline line, and a new test
// written from that misses the table to add its case to or the values
// to expect. Tests are not helpers.
func usedDefs(content string, defs []index.Def, focus []int) []int {
	if len(focus) == 0 {
		return nil
	}
	var bodies []string
	for _, d := range defs {
		if slices.Contains(focus, d.Line) && d.End >= d.Line {
			bodies = append(bodies, linesOf(content, d.Line, d.End))
		}
	}
	if len(bodies) == 0 {
		return nil
	}
	used := map[string]bool{}
	for _, b := range bodies {
		query.ScanNames([]byte(b), func(id []byte) { used[string(id)] = true })
	}
	var out []int
	for _, d := range defs {
		if len(out) == usedDefsMax {
			break
		}
		n := d.End - d.Line
		switch {
		case d.Parent != "" || !used[d.Name] || slices.Contains(focus, d.Line) || slices.Contains(out, d.Line) || isTestDef(d):
			continue
		case d.Kind == "function" || d.Kind == "method":
			if n > usedFuncLines {
				continue
			}
		case n > usedDeclLines:
			continue
		}
		out = append(out, d.Line)
	}
	return out
}

// linesOf returns lines from to to (1-based, inclusive) of s.
func linesOf(s string, from, to int) string {
	start := 0
	for l := 1; l < from; l++ {
		k := strings.IndexByte(s[start:], '\n')
		if k < 0 {
			return ""
		}
		start += k + 1
	}
	end := start
	for l := from; l <= to; l++ {
		k := strings.IndexByte(s[end:], '\n')
		if k < 0 {
			return s[start:]
		}
		end += k + 1
	}
	return s[start:end]
}

// classMethods returns the first lines of the methods of the classes
// (any definition other than a function or method, with methods nested
// in it: Python's, JavaScript's, Java's classes; not Go's types, whose
// methods stand apart) of defs named in names, for a class of at most
// focusMaxLines lines.
func classMethods(defs []index.Def, names []string) []int {
	var out []int
	for _, d := range defs {
		if d.Kind == "function" || d.Kind == "method" || d.End-d.Line > focusMaxLines || !slices.Contains(names, d.Name) {
			continue
		}
		for _, m := range defs {
			if m.Kind == "method" && m.Parent == d.Name && d.Line < m.Line && m.End <= d.End && !slices.Contains(out, m.Line) {
				out = append(out, m.Line)
			}
		}
	}
	return out
}

// appendTests appends the tests of a test file (Mocha's, Jest's and
// Vitest's it and test calls) to cs, from the file's analysis in store
// when it is there (no parse).
func appendTests(ctx context.Context, store *treesitter.Store, rel string, src []byte, cs focusCands) focusCands {
	lang := treesitter.Detect(rel, src)
	if lang == "" {
		return cs
	}
	fs, err := treesitter.SymbolsStored(ctx, lang, src, store)
	if err != nil {
		return cs
	}
	for _, s := range fs.Symbols {
		if s.Kind == "test" && s.End > s.Start && s.End-s.Start <= focusMaxLines {
			cs = append(cs, focusCand{span: tree.DefSpan{Start: s.Start, End: s.End}, at: s.Start})
		}
	}
	return cs
}

// isTestDef reports a test inside a source file: a function of a module
// named tests or test (Rust's convention), or one named test_… or Test…
// followed by a capital (Go's and JUnit's convention).
func isTestDef(d index.Def) bool {
	if d.Parent == "tests" || d.Parent == "test" {
		return true
	}
	return strings.HasPrefix(d.Name, "test_") || len(d.Name) > 4 && strings.HasPrefix(d.Name, "Test") && !unicode.IsLower(rune(d.Name[4]))
}

// focusCand is one definition focus lines choose among (focusCandidates).
type focusCand struct {
	span tree.DefSpan // the lines its terms are read from
	at   int          // the focus line that keeps it: its first line, a run's middle line
	test bool         // a source file's own test (isTestDef), a candidate for test tasks only
	long int          // for a run of a long function's lines, the function's first line; 0 for a definition
	name string       // its name; "" for a run or a test
	typ  bool         // a type or a class head
}

// focusCands are a file's candidates; a ranking (tree.DefScore.Index,
// among) indexes them.
type focusCands []focusCand

// spans returns the candidates' spans, for tree.DefTerms.
func (cs focusCands) spans() []tree.DefSpan {
	out := make([]tree.DefSpan, len(cs))
	for k, c := range cs {
		out[k] = c.span
	}
	return out
}

// hasRuns reports a run of a long function among cs.
func (cs focusCands) hasRuns() bool {
	return slices.ContainsFunc(cs, func(c focusCand) bool { return c.long != 0 })
}

// focusCandidates returns the definitions focus lines choose among in
// the file rel with content src, whose symbol-index entry is ent:
// functions and methods, those over treesitter.LongBody lines by runs of
// treesitter.LongWindow lines (focused by their middle lines), the
// module-level constants, variables and types (typeKinds) of 2 to
// focusDeclSpan lines, the heads of module-level classes (classHead), and
// in a test file its tests (describe/it titles and bodies are not in the
// symbol index: its analysis has them).
func (e *Engine) focusCandidates(ctx context.Context, rel string, src []byte, ent *index.Symbols) focusCands {
	testFile := lang.IsTest(rel)
	isFunc := func(d index.Def) bool { return d.Kind == "function" || d.Kind == "method" }
	// The functions under treesitter.LargeBody lines, by first line: a
	// function inside one of them is shown whole with it, so that one
	// competes instead, its own lines included.
	var small []index.Def
	for _, d := range ent.Defs {
		if isFunc(d) && d.End-d.Line+1 < treesitter.LargeBody {
			small = append(small, d)
		}
	}
	slices.SortFunc(small, func(a, b index.Def) int { return a.Line - b.Line })
	inSmall := func(d index.Def) bool {
		// Those that start at most LargeBody lines before d, not after it.
		for k := sort.Search(len(small), func(k int) bool { return small[k].Line > d.Line }) - 1; k >= 0 && small[k].Line > d.Line-treesitter.LargeBody; k-- {
			if p := small[k]; p != d && d.End <= p.End {
				return true
			}
		}
		return false
	}
	var cs focusCands
	var lines []string // src's, split for the first long function
	for _, d := range ent.Defs {
		switch {
		case d.End <= d.Line:
		case !isFunc(d):
			end := d.End
			if d.Kind == "class" && d.Parent == "" {
				end = classHead(ent.Defs, d)
			} else if !(d.Kind == "const" || d.Kind == "var" || typeKinds[d.Kind]) || d.Parent != "" {
				continue
			}
			if end > d.Line && end-d.Line < focusDeclSpan {
				cs = append(cs, focusCand{span: tree.DefSpan{Start: d.Line, End: end}, at: d.Line, name: d.Name, typ: d.Kind == "class" || typeKinds[d.Kind]})
			}
		case d.End-d.Line > treesitter.LongBody:
			// A long function (fastapi's get_request_handler, vite's
			// resolveConfig) competes by the runs of lines of its body,
			// each focused by its middle line: the focus views show a
			// line of such a function with the run around it, in its
			// outline, not the function whole. Its parameters are no
			// run: fastapi's APIRouter.get and its seven siblings are
			// 350 lines of documented parameters each, whose runs all
			// matched "include_router" and took the ladder's steps.
			if lines == nil {
				lines = strings.SplitAfter(string(src), "\n")
			}
			for at := paramsEnd(lines, d) + 1; at <= d.End; at += treesitter.LongWindow {
				end := min(at+treesitter.LongWindow-1, d.End)
				cs = append(cs, focusCand{span: tree.DefSpan{Start: at, End: end}, at: (at + end) / 2, test: !testFile && isTestDef(d), long: d.Line})
			}
		case !inSmall(d):
			cs = append(cs, focusCand{span: tree.DefSpan{Start: d.Line, End: d.End}, at: d.Line, test: !testFile && isTestDef(d), name: d.Name})
		}
	}
	if testFile {
		cs = appendTests(ctx, e.store.Views(), rel, src, cs)
	}
	return cs
}

// classHead returns the last line of the head of the class c (of defs):
// the lines from its declaration to above its first member that is no
// field or attribute (its docstring, class attributes, a dataclass's
// fields), at most treesitter.NamedHeadLines of them (what the focus
// views show of a head). A commit editing the docstring
// or adding an attribute changes lines no method holds (BENCHMARKS.md
// "hdefin": httpx's Client and URL docstrings); focused at its first line,
// the focus views show a long class's head (treesitter.typeHeads).
func classHead(defs []index.Def, c index.Def) int {
	end := c.End
	for _, m := range defs {
		if m.Line > c.Line && m.Line <= end && m.Kind != "const" && m.Kind != "var" && m.Kind != "field" {
			end = m.Line - 1
		}
	}
	return min(end, c.Line+treesitter.NamedHeadLines-1)
}

// nameHolds returns whether the name of candidate i of cs holds term t,
// for tree.DefTerms.RankBy: a function named by a request's word
// (get_netrc_auth for "netrc") ranks on that word alone.
func nameHolds(cs focusCands) func(i int, t uint32) bool {
	terms := make([][]uint32, len(cs)) // each name's, read once
	return func(i int, t uint32) bool {
		if i < 0 || i >= len(cs) || cs[i].name == "" {
			return false
		}
		if terms[i] == nil {
			terms[i] = tree.TermsOf([]string{cs[i].name})
			if terms[i] == nil {
				terms[i] = []uint32{}
			}
		}
		return slices.Contains(terms[i], t)
	}
}

// byName adds to ranked (a ladder file's definitions ranked by the
// request's words, best first) the definitions named ranks (those whose
// name holds a request term few names hold, tree.DefTerms.RankNamed) that
// it does not hold, after every ranked one (at most the lowest ranked
// score) and at least at focusLadderCut of the best, so that the ladder
// keeps it: a function named by the request's word holds the changed
// lines more often than not, but holding that word alone it was in no
// step. At its own score (a rare word in a name scores high) it took the
// first steps from the words' ranking and the fitter bought other sizes
// (BENCHMARKS.md "hdefin": vite's css.ts on the training split).
func byName(ranked, named []tree.DefScore) []tree.DefScore {
	if len(named) == 0 {
		return ranked
	}
	floor, ceil := 0.0, math.Inf(1)
	if len(ranked) > 0 {
		floor = focusLadderCut * ranked[0].Score
		ceil = ranked[len(ranked)-1].Score
	}
	added := false
	for _, n := range named {
		if slices.ContainsFunc(ranked, func(r tree.DefScore) bool { return r.Index == n.Index }) {
			continue
		}
		n.Score = max(min(n.Score, ceil), floor)
		ranked = append(ranked, n)
		added = true
	}
	if !added {
		return ranked
	}
	return tree.SortDefScores(ranked)
}

// paramsEnd returns the line of lines (a file's, each with its newline)
// where the parameter list of the function d opens on its first line
// closes: the first line from d.Line on where the parentheses opened
// since d.Line are closed, not counting those in quotes (one line's, or
// Python's triple-quoted strings over lines); d.Line when none is open
// there or they never close before d.End.
func paramsEnd(lines []string, d index.Def) int {
	depth := 0
	var triple string // the open triple quote, or ""
	for l := d.Line; l <= d.End && l <= len(lines); l++ {
		line := lines[l-1]
		var quote byte
		for k := 0; k < len(line); k++ {
			ch := line[k]
			switch {
			case triple != "":
				if strings.HasPrefix(line[k:], triple) {
					k += 2
					triple = ""
				}
			case quote != 0:
				if ch == quote {
					quote = 0
				}
			case strings.HasPrefix(line[k:], `"""`) || strings.HasPrefix(line[k:], "'''"):
				triple = line[k : k+3]
				k += 2
			case ch == '"' || ch == '\'' || ch == '`':
				quote = ch
			case ch == '(':
				depth++
			case ch == ')':
				depth--
			}
		}
		if depth <= 0 && triple == "" {
			return l
		}
	}
	return d.Line
}

// runsPerFunc bounds the runs of one long function rankRuns keeps, and
// runWeight is the share of its score a run keeps: a run is a slice of a
// function, not a unit of meaning, and the runs of a large function's
// body (fastapi's request handler, whose every part reads the request)
// match a request's common words more often than the function it is
// about (fastapi 8a9258b, "avoid yield from a TaskGroup ... request async
// exit stack": the handler's runs took the first steps from its inner
// _async_stream_sse, which the commit changed).
const (
	runsPerFunc = 2
	runWeight   = 0.5
)

// rankRuns ranks the candidates of among (nil: all of cs) by rank (a
// DefTerms.RankBy of the request's focus words), with the runs of long
// functions among them added in score order: the definitions are
// ranked as if there were no runs (a file's hundred runs of docstrings
// would change every term's weight), the runs among all of them, their
// scores at runWeight and brought to the definitions' scale by the best
// definition's score in both rankings. At most runsPerFunc runs of a
// function are kept: a function whose runs all match (the same words in
// every branch) would fill the ladder's steps with itself.
func rankRuns(cs focusCands, among []int, rank func(among []int) []tree.DefScore) []tree.DefScore {
	if !cs.hasRuns() {
		return rank(among)
	}
	if among == nil {
		among = make([]int, len(cs))
		for k := range among {
			among[k] = k
		}
	}
	defs := slices.DeleteFunc(slices.Clone(among), func(k int) bool { return k < 0 || k >= len(cs) || cs[k].long != 0 })
	ranked := rank(defs)
	all := rank(among)
	scale := runWeight
	for _, r := range all {
		if cs[r.Index].long == 0 {
			if k := slices.IndexFunc(ranked, func(d tree.DefScore) bool { return d.Index == r.Index }); k >= 0 && r.Score > 0 {
				scale *= ranked[k].Score / r.Score
			}
			break
		}
	}
	seen := map[int]int{}
	for _, r := range all {
		f := cs[r.Index].long
		if f == 0 {
			continue
		}
		if seen[f]++; seen[f] > runsPerFunc {
			continue
		}
		r.Score *= scale
		ranked = append(ranked, r)
	}
	return tree.SortDefScores(ranked)
}
