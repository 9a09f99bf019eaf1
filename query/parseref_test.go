package query_test

// The query package's Parse as it was at main 76788bf, before it was made
// one pass over long requests (hqp): the reference TestParseSameAsBefore
// and FuzzParseSameAsBefore compare query.Parse with. Copied whole from
// query.go, task.go, stacktrace.go, files.go, idents.go, qualified.go,
// words.go, scan_re.go and scan.go; only Parse and ParseStackTrace are
// renamed (refParse, refParseStackTrace) and the Query and Location types
// are the package's. Do not edit it to follow the package: it is what the
// package must still answer.

import (
	"bytes"
	"cmp"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
)

// ---- query.go at 76788bf ----

// translations matches the words of a request about translations.
var translations = regexp.MustCompile(`(?i)\b(translat\w*|i18n|l10n|locali[sz]\w*|locales?)\b`)

// Parse reads a request. It never fails: a request without code, paths
// or cues gives an empty Query (task implement, not detected).
func refParse(request string) *query.Query {
	text := wordText(request)
	ws := Words(text)
	q := &query.Query{
		Words:         ws,
		FocusWords:    words(text, ScanWords),
		Idents:        requestIdents(text),
		Qualified:     qualified(text),
		Paths:         paths(request),
		FileNames:     fileNames(request),
		Frames:        refParseStackTrace(request),
		InnermostLast: strings.Contains(request, "Traceback (most recent call last)"),
		AboutTests:    aboutTests(ws),
		Explain:       explains(request),
		AboutUses:     aboutUses(request),
		AsksUses:      asksUses(request),
		Lang:          lang.TextLocale(request),
		Translations:  translations.MatchString(request),
	}
	q.Qualifiers = qualifiers(q.Qualified)
	q.AsksChange = asksChange(request)
	q.Task, q.Detected = detectTask(request, q.AsksChange)
	return q
}

// wordText returns request with its non-ASCII punctuation and spaces
// made spaces (full-width and curly punctuation: "：", "，", "“", "”"),
// and a space between an ASCII word and a letter of a script other than
// Latin, so the identifiers a request in Chinese or Japanese writes are
// words of their own ("修复solve_dependencies：子依赖" names
// solve_dependencies) and so are quoted ones (“parse_config”). Latin
// letters (é, ß), marks and symbols (an emoji) stay in their words, as
// the scanner reads them. An ASCII request is returned as is.
func wordText(request string) string {
	ascii := true
	for i := 0; i < len(request); i++ {
		if request[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return request
	}
	// other: a letter of a script other than Latin.
	other := func(r rune) bool { return r >= utf8.RuneSelf && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) }
	asciiWord := func(r rune) bool { return r < utf8.RuneSelf && IsIdentByte(byte(r)) }
	var b strings.Builder
	b.Grow(len(request) + 8)
	prev := ' '
	for _, r := range request {
		if r >= utf8.RuneSelf && (unicode.IsPunct(r) || unicode.IsSpace(r)) {
			r = ' '
		}
		if other(r) && asciiWord(prev) || asciiWord(r) && other(prev) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// pathTokenRe finds words of a request that may name a file: runs of path
// characters with a slash or a dot-extension.
var pathTokenRe = regexp.MustCompile(`[\w@~.+\-/\\]*[\w/\\]\.[A-Za-z][\w]{0,9}\b|[\w.\-]+(?:/[\w.\-]+)+`)

// paths returns the words of text that may name a file (see Query.Paths).
func paths(text string) []string {
	var out []string
	for _, loc := range pathTokenRe.FindAllStringIndex(text, -1) {
		tok := text[loc[0]:loc[1]]
		if loc[0] > 0 && text[loc[0]-1] == ':' && strings.HasPrefix(tok, "//") {
			continue // a URL's tail: https://example.com/.env
		}
		tok = strings.ReplaceAll(tok, "\\", "/")
		tok = strings.TrimRight(tok, ".,;:'\"`()[]{}<>")
		tok = strings.TrimLeft(tok, ",;:'\"`()[]{}<>")
		switch {
		case strings.HasPrefix(tok, "./"):
			tok = strings.TrimLeft(tok[2:], "/")
		case strings.HasPrefix(tok, "..") && !strings.HasPrefix(tok, "../"):
			tok = strings.TrimLeft(tok, ".") // an ellipsis: "...see foo.py"
		}
		// One leading dot is a dotfile's (.eslintrc.js) and stays.
		if tok == "" || strings.Contains(tok, "://") {
			continue
		}
		out = append(out, tok)
	}
	return out
}

// testWords are the words of a request about tests. They are matched
// against the pieces of the request's words (split at case and underscore
// as the index splits identifiers), so TestParse, test_utils.py and tests/
// count while latest, contest, inspect and specific do not.
var testWords = map[string]bool{
	"test": true, "tests": true, "testing": true, "tested": true, "spec": true, "specs": true,
	"pytest": true, "unittest": true, "jest": true, "vitest": true, "mocha": true, "rspec": true,
}

// aboutTests reports a request about tests, for which test files are not
// ranked down: one of its word pieces is a testWords word.
func aboutTests(words []string) bool {
	for _, w := range words {
		if testWords[strings.ToLower(w)] {
			return true
		}
		for _, p := range pieces(w) {
			if testWords[strings.ToLower(p)] {
				return true
			}
		}
	}
	return false
}

// pieces splits a word at underscores and case breaks (see [CamelBreak]).
func pieces(w string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(w); i++ {
		if i == len(w) || w[i] == '_' || w[i-1] == '_' || CamelBreak([]byte(w), i) {
			if p := strings.Trim(w[start:i], "_"); p != "" {
				out = append(out, p)
			}
			start = i
		}
	}
	return out
}

// explainRE matches a request that asks how something works rather than
// for a change (docs may rise for it): these phrases on word boundaries,
// so "docstring" and "nowhat is" do not count.
var explainRE = newLineRE(`\b(how (does|do|is|are)|explain|what (does|is)|why does|walk me through|overview|documentation|docs)\b`)

// explains reports a request that asks how something works.
func explains(q string) bool {
	return explainRE.matchString(strings.ToLower(q))
}

// usesRE matches a request about a name's uses: a rename, its callers,
// its call sites, its usages, its signature (whole words, any inflection
// of rename).
var usesRE = newLineRE(`\b(renam(e|es|ed|ing)|callers?|call ?sites?|usages?|signatures?|every use|all uses|references to)\b`)

// aboutUses reports a request about a name's uses.
func aboutUses(request string) bool {
	return usesRE.matchString(strings.ToLower(request))
}

// asksUsesRE matches a question about where a name is used: its callers,
// usages, call sites, references, "who calls", "where is X used". The
// singulars and participles ("a caller", "not referenced") are left
// out: commit messages and bug reports write them about other things.
var asksUsesRE = regexp.MustCompile(`\b(callers|usages|(who|what) calls|call ?sites|references to)\b|\bwhere(\s+(is|are|do|does|else)|'s)\b[^.?!]{0,60}\bused\b`)

// asksUses reports a question about where a name is used.
func asksUses(request string) bool {
	return asksUsesRE.MatchString(strings.ToLower(request))
}

// ---- task.go at 76788bf ----

// cue is a phrase that hints at a task type, with a weight. Phrases are
// matched on word boundaries in the lower-cased request.
type cue struct {
	task   ctxd.TaskType
	weight int
	re     lineRE
}

func cues(task ctxd.TaskType, weight int, phrases ...string) []cue {
	out := make([]cue, len(phrases))
	for i, p := range phrases {
		out[i] = cue{task, weight, newLineRE(`\b` + p + `\b`)}
	}
	return out
}

// The cue table. Strong phrases (weight 3) decide ties that single words
// (weight 1) would get wrong: "fix the failing test" is debugging, "add
// tests for" is testing.
var cueTable = concat(
	cues(ctxd.TaskDebug, 3, `failing tests?`, `stack ?trace`, `traceback`, `panic(s|ked)?`, `segfault`, `nil pointer`, `null pointer`, `doesn'?t work`, `not working`, `throws?`, `crash(es|ed|ing)?`, `exception`, `regression`, `fails?`, `failed`, `broken`),
	cues(ctxd.TaskDebug, 2, `bug`, `error`, `errors`, `debug`, `fix`, `wrong`, `incorrect`, `unexpected`, `hangs?`, `leaks?`, `race`, `deadlock`),
	cues(ctxd.TaskTest, 3, `(write|add|create|generate|improve|more) (an? |some |the |new |missing )?(unit |integration |e2e |regression )?tests?`, `tests? for`, `test coverage`, `unit tests?`, `table[- ]driven`, `fuzz(ing)? tests?`),
	cues(ctxd.TaskTest, 1, `tests?`, `spec`, `coverage`, `fixtures?`, `mock`),
	cues(ctxd.TaskRefactor, 3, `refactor(ing)?`, `rename`, `extract`, `clean ?up`, `restructure`, `deduplicate`, `split up`, `split (the |this |that |it )?[\w.]+ into`, `move .+ (in)?to`, `simplify`, `reorganize`, `decouple`),
	cues(ctxd.TaskAnalyze, 3, `explain`, `how (does|do|is|are)`, `what (does|do|is|are)`, `why (does|do|is)`, `where (is|are|does)`, `analy[sz]e`, `overview`, `architecture`, `walk me through`, `summari[sz]e`, `review`, `understand`, `document`),
	cues(ctxd.TaskImplement, 2, `implement`, `add`, `create`, `build`, `support`, `introduce`, `write`, `new`, `make`, `allow`, `enable`),
)

func concat(lists ...[]cue) []cue {
	var out []cue
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// traceLine matches a stack-trace frame or compiler error location
// ("foo.go:12", "File \"x.py\", line 3", "at f (a.js:1:2)").
var traceLine = regexp.MustCompile(`(?m)(\w+\.\w+:\d+|File "[^"]+", line \d+|^\s+at .+\(.+:\d+(:\d+)?\))`)

// detectTask infers the task type from a request; change is whether it
// asks for a change ([asksChange]). ok is false when no cue matched; the
// task is then implement, the design's default. A request that asks for
// a change is not analyze, whatever questions it asks on the way ("why
// does this reject X? make it accept X"); one that does not, and says
// what happens against what should ("why does it return 404 instead of
// 405?"), reports a bug.
func detectTask(request string, change bool) (task ctxd.TaskType, ok bool) {
	text := strings.ToLower(request)
	score := map[ctxd.TaskType]int{}
	for _, c := range cueTable {
		if n := len(c.re.findAllIndex(text, 3)); n > 0 {
			score[c.task] += c.weight * n
		}
	}
	if n := len(traceLine.FindAllStringIndex(request, 5)); n >= 2 {
		score[ctxd.TaskDebug] += 5
	}
	if change {
		delete(score, ctxd.TaskAnalyze)
	} else if mismatch(text) {
		score[ctxd.TaskDebug] += 3
	}
	best, bestScore := ctxd.TaskImplement, 0
	// A fixed order keeps ties stable: the earlier type wins. Debug and test
	// come before implement because a request that both "adds" and "fixes"
	// is usually a fix; analyze comes before refactor and implement because
	// a request that asks to "explain" something (and for no change) is a
	// question, whatever else it mentions.
	for _, t := range []ctxd.TaskType{ctxd.TaskDebug, ctxd.TaskTest, ctxd.TaskAnalyze, ctxd.TaskRefactor, ctxd.TaskImplement} {
		if score[t] > bestScore {
			best, bestScore = t, score[t]
		}
	}
	return best, bestScore > 0
}

// mismatch reports a request (lower-cased) that sets what happens against
// what was expected: a bug report, even in the question form. "instead
// of" counts in a question ("why does it return 404 instead of 405?") or
// after a verb of behaviour ("the router responds with 404 instead of
// 405"), not in a request for a change that names no behaviour ("Pass
// context to .forEach instead of closure", an express commit).
func mismatch(text string) bool {
	if expectedRE.matchString(text) || behaviourInsteadRE.matchString(text) {
		return true
	}
	question := strings.Contains(text, "?") || questionRE.MatchString(strings.TrimSpace(text))
	if question {
		return insteadRE.matchString(text)
	}
	// A statement that says what the code fails to do ("path parameters
	// with dots are not matched", "retry does not respect Retry-After",
	// "ShouldBind ignores the tag") or that it answers with an HTTP error
	// status is a bug report; one that says what is missing ("YAML is not
	// supported") asks for a feature.
	if m := brokenRE.FindStringSubmatch(text); m != nil && !missingRE.MatchString(m[0]) {
		return true
	}
	return statusRE.matchString(text)
}

var (
	insteadRE          = newLineRE(`\b(instead of|rather than)\b`)
	expectedRE         = newLineRE(`\bexpected\b.{0,80}\b(got|but|returns?)\b`)
	brokenRE           = regexp.MustCompile(`\b((does|do|is|are|was|were|can|will)(\s+not|n'?t)|cannot|won'?t|never|ignores|ignored|loses|swallows|hangs)\b(\s+\w+)?`)
	missingRE          = regexp.MustCompile(`\b(supported|implemented|available|possible|exposed|configurable|documented)$`)
	statusRE           = newLineRE(`\b(returns?|returned|responds?|responded|gives?|gave|answers?|answered|sends?|sent|fails? with|failed with|throws?|raises?)\b[^.?!\n]{0,30}\b[45]\d\d\b`)
	behaviourInsteadRE = newLineRE(`\b(returns?|returned|returning|gives?|gets?|shows?|throws?|raises?|prints?|sends?|responds?|yields?|produces?)\b[^.?!\n]{0,60}\b(instead of|rather than)\b`)
)

// clauseRE splits a request into clauses: at sentence punctuation (a dot
// or colon only before a space: res.set and app.py:12 stay whole), commas,
// and "and" or "then" between clauses.
var clauseRE = regexp.MustCompile(`[?!;\n]+|[.:,]+(\s|$)|\s+(and|then)\s+`)

// politeRE is what may come before a clause's verb without making it a
// question or a statement: "please", "can you", "now", "also"...
var politeRE = regexp.MustCompile(`^((please|pls|now|so|then|and|also|just|but|instead|can you|could you|would you|will you|let'?s|lets|i want you to|you should)\s+)*`)

// imperativeRE matches a clause that starts with a verb asking for a
// change ("make it accept X", "fix the parser", "add a flag").
var imperativeRE = regexp.MustCompile(`^(make|fix|add|change|update|implement|create|remove|delete|rename|refactor|support|allow|handle|use|write|move|replace|ensure|extract|split|convert|migrate|return|accept|reject|drop|keep|set|stop|avoid|prevent|improve|optimi[sz]e|clean|simplify|introduce|enable|disable|bump|upgrade|raise|throw|validate|reuse|switch|wire|expose|rewrite|port)\b`)

// modalRE matches a statement of what the code should do ("it should
// accept X", "the parser must not panic").
var modalRE = regexp.MustCompile(`\b(should|must|needs? to|has to|ought to)\b`)

// asksChange reports a request that asks for a change: one of its
// clauses starts with an imperative verb (after "please", "can you" and
// the like), or one that is not a question says what the code should or
// must do.
func asksChange(request string) bool {
	text := strings.ToLower(request)
	for len(text) > 0 {
		loc := clauseRE.FindStringIndex(text)
		clause, rest, question := text, "", false
		if loc != nil {
			clause, rest = text[:loc[0]], text[loc[1]:]
			question = strings.Contains(text[loc[0]:loc[1]], "?")
		}
		clause = strings.TrimSpace(clause)
		clause = strings.TrimSpace(clause[len(politeRE.FindString(clause)):])
		if imperativeRE.MatchString(clause) || !question && modalRE.MatchString(clause) && !questionRE.MatchString(clause) {
			return true
		}
		text = rest
	}
	return false
}

// questionRE matches a clause in the question form.
var questionRE = regexp.MustCompile(`^(why|how|what|where|when|which|who|is|are|does|do|did|can|could|would|should|will)\b`)

// ---- stacktrace.go at 76788bf ----

// Frame patterns, most specific first. Each has named groups path, line
// and optionally col and fn.
var traceRes = []lineRE{
	// Python: File "app/db.py", line 12, in connect
	newLineRE(`File "(?P<path>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<fn>[\w<>.]+))?`),
	// Java / Kotlin / Scala: at com.example.Foo.bar(Foo.java:42)
	newLineRE(`at (?P<fn>[\w$.<>/]+)\((?P<path>[\w$-]+\.(?:java|kt|scala|groovy)):(?P<line>\d+)\)`),
	// Node: at fn (/app/x.js:10:5)  or  at /app/x.js:10:5  or  at file:///app/x.mjs:1:2
	newLineRE(`at (?:async )?(?:(?P<fn>[^\s(]+(?: \[as [^\]]+\])?) \()?(?:file://)?(?P<path>[^\s():]+\.[A-Za-z]{1,5}):(?P<line>\d+)(?::(?P<col>\d+))?\)?`),
	// Ruby: app/models/user.rb:12:in `save'
	newLineRE("(?P<path>[^\\s:'\"`(]+\\.rb):(?P<line>\\d+):in [`'](?P<fn>[^'`]+)'"),
	// Go: \t/home/u/app/x.go:123 +0x1d  (the function is on the line before)
	newLineRE(`(?m)^[ \t]+(?P<path>[^\s:]+\.(?:go|s)):(?P<line>\d+)(?: \+0x[0-9a-f]+)?[ \t\r]*$`),
	// Rust: --> src/main.rs:10:5  /  panicked at src/main.rs:10:5  /  at ./src/lib.rs:3:9
	newLineRE(`(?:-->|panicked at|\bat) (?P<path>[^\s:]+\.rs):(?P<line>\d+)(?::(?P<col>\d+))?`),
	// Generic: path/to/file.ext:line:col or file.ext:line (compilers,
	// linters, test runners), and "file.ext, line N".
	newLineRE(`(?P<path>(?:[A-Za-z]:)?[\w@~.+\-/\\]*[\w\-]\.[A-Za-z][\w]{0,7}):(?P<line>\d+)(?::(?P<col>\d+))?`),
	newLineRE(`(?P<path>[\w@~.+\-/\\]*[\w\-]\.[A-Za-z][\w]{0,7}),? line (?P<line>\d+)`),
}

// goFuncRe matches the function line above a Go frame.
var goFuncRe = regexp.MustCompile(`^([\w./*()$\[\]-]+)\(.*\)$`)

// maxTraceLocations bounds what one text can yield.
const maxTraceLocations = 200

// ParseStackTrace finds the file locations a stack trace or error text
// points at, in the order they appear, without duplicates: Go panics and
// test failures, Python tracebacks, Node/JS stack frames, Java/Kotlin
// frames, Rust panics and compiler errors, Ruby backtraces, and the
// generic "file:line:col" of compilers and linters. A Java frame's path
// is built from its package ("com/example/Foo.java"). URLs are skipped.
// Paths are returned as written; mapping them to workspace files is the
// caller's job. It never fails: text without locations gives none.
func refParseStackTrace(text string) []query.Location {
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	type span struct{ start, end int }
	// taken are the spans matched so far, sorted and disjoint (a match
	// that overlaps one is left out), so their ends are sorted too: the
	// first that ends after a is the only one [a, b) may overlap.
	var taken []span
	overlaps := func(a, b int) bool {
		i, _ := slices.BinarySearchFunc(taken, a, func(s span, a int) int { return cmp.Compare(s.end, a+1) })
		return i < len(taken) && taken[i].start < b
	}
	type found struct {
		pos int
		loc query.Location
	}
	var all []found
	for ri, re := range traceRes {
		names := re.re.SubexpNames()
		for _, m := range re.findAllSubmatchIndex(text, -1) {
			if overlaps(m[0], m[1]) {
				continue
			}
			var loc query.Location
			pathStart := -1
			for i, n := range names {
				if m[2*i] < 0 {
					continue
				}
				v := text[m[2*i]:m[2*i+1]]
				switch n {
				case "path":
					loc.Path = v
					pathStart = m[2*i]
				case "line":
					loc.Line, _ = strconv.Atoi(v)
				case "col":
					loc.Col, _ = strconv.Atoi(v)
				case "fn":
					loc.Func = v
				}
			}
			if loc.Path == "" || loc.Line <= 0 || isURLAt(text, pathStart) {
				continue
			}
			switch ri {
			case 1: // Java: build the package path from the frame.
				loc.Path = javaPath(loc.Func, loc.Path)
			case 4: // Go: the function is on the line before.
				loc.Func = goFrameFunc(text, m[0])
			}
			loc.Path = strings.TrimPrefix(loc.Path, "./")
			k, _ := slices.BinarySearchFunc(taken, m[0], func(s span, start int) int { return cmp.Compare(s.start, start) })
			taken = slices.Insert(taken, k, span{m[0], m[1]})
			all = append(all, found{m[0], loc})
		}
	}
	// Order by position in the text (stable: one pattern's finds at one
	// place keep their order).
	vsort.StableFunc(all, func(a, b found) int { return cmp.Compare(a.pos, b.pos) })
	var out []query.Location
	seen := map[query.Location]bool{}
	for _, f := range all {
		if seen[f.loc] {
			continue
		}
		seen[f.loc] = true
		out = append(out, f.loc)
		if len(out) == maxTraceLocations {
			break
		}
	}
	return out
}

// isURLAt reports a path that is part of a URL (http://host/x.js:1).
func isURLAt(text string, start int) bool {
	if start < 0 {
		return false
	}
	i := start
	for i > 0 && !strings.ContainsRune(" \t\n(\"'<", rune(text[i-1])) {
		i--
	}
	j := start
	for j < len(text) && !strings.ContainsRune(" \t\n)\"'>", rune(text[j])) {
		j++
	}
	word := text[i:j]
	return strings.Contains(word, "://") && !strings.HasPrefix(word, "file://")
}

// javaPath turns a frame "com.example.Foo.bar" and file "Foo.java" into
// "com/example/Foo.java".
func javaPath(fn, file string) string {
	parts := strings.Split(fn, ".")
	// Drop the method and the class (with any $Inner) to keep the package.
	if len(parts) < 3 {
		return file
	}
	pkg := parts[:len(parts)-2]
	for _, p := range pkg {
		if p == "" || strings.ToLower(p[:1]) != p[:1] {
			// Not a lowercase package segment: give up on the package.
			return file
		}
	}
	return strings.Join(pkg, "/") + "/" + file
}

// goFrameFunc returns the function named on the line before the Go frame
// line starting at pos.
func goFrameFunc(text string, pos int) string {
	end := strings.LastIndexByte(text[:pos], '\n')
	if end < 0 {
		if pos == 0 {
			return ""
		}
		end = pos
	}
	start := strings.LastIndexByte(text[:end], '\n') + 1
	line := strings.TrimSpace(text[start:end])
	if m := goFuncRe.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// ---- files.go at 76788bf ----

// fileNames returns the words of request as the file names they may be
// (see Query.FileNames): request is read as [wordText] makes it, so
// full-width punctuation ends a word and a file name written against
// Chinese text stands apart ("修复config/.npmrc：" names config/.npmrc).
func fileNames(request string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(wordText(request), fileNameSep) {
		w = strings.ReplaceAll(w, "\\", "/")
		w = strings.TrimRight(cutLineSuffix(strings.TrimRight(w, ".:?!")), ".:?!")
		for strings.HasPrefix(w, "./") {
			w = w[2:]
		}
		if strings.Trim(w, "./") == "" || strings.Contains(w, "://") || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// fileNameSep reports the characters that end a word a file name may be:
// spaces, quotes, brackets and the separators of a list or an
// assignment.
func fileNameSep(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', '`', '\'', '"', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=':
		return true
	}
	return false
}

// cutLineSuffix cuts a location's line and column after a file name:
// "config/.npmrc:3" and "app.py:12:5" are config/.npmrc and app.py.
func cutLineSuffix(w string) string {
	for {
		i := strings.LastIndexByte(w, ':')
		if i < 0 || i == len(w)-1 || strings.TrimLeft(w[i+1:], "0123456789") != "" {
			return w
		}
		w = w[:i]
	}
}

// ---- idents.go at 76788bf ----

// requestIdents returns the identifier-like words of a request that look
// like code, to look for verbatim in files as MentionedSymbols: camelCase,
// snake_case, words with digits after letters, capitalized words that
// do not start a sentence ("make Amount print" names Amount; "German
// customers ..." at the start does not), calls ("render()"), members
// ("res.links") and words in backquotes.
func requestIdents(q string) []string {
	var out []string
	seen := map[string]bool{}
	b := []byte(q)
	for i := 0; i < len(b); {
		if !IsIdentByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && IsIdentByte(b[j]) {
			j++
		}
		id := b[i:j]
		start := i
		i = j
		s := string(id)
		if len(s) < 3 || seen[s] || !utf8.ValidString(s) || s[0] >= '0' && s[0] <= '9' {
			continue
		}
		code := strings.ContainsRune(s, '_')
		for k := 1; k < len(id) && !code; k++ {
			if CamelBreak(id, k) || id[k] >= '0' && id[k] <= '9' && id[k-1] >= 'a' && id[k-1] <= 'z' {
				code = true
			}
		}
		if !code && s[0] >= 'A' && s[0] <= 'Z' && !sentenceStart(b, start) {
			code = true
		}
		// Calls, members and quoted code: "res.links()", "`render`".
		if !code && (j < len(b) && b[j] == '(' ||
			start >= 2 && b[start-1] == '.' && IsIdentByte(b[start-2]) ||
			start >= 1 && b[start-1] == '`' || j < len(b) && b[j] == '`') {
			code = true
		}
		if code && !literalWords[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// literalWords are languages' literal constants: capitalized, they look
// like names ("when allow_redirects is False"), but no file defines them.
var literalWords = map[string]bool{
	"True": true, "False": true, "None": true, "TRUE": true, "FALSE": true,
	"NULL": true, "Null": true, "Nil": true, "NaN": true, "Infinity": true,
}

// sentenceStart reports whether the word at i begins the text, a line or
// a sentence.
func sentenceStart(b []byte, i int) bool {
	for i--; i >= 0; i-- {
		switch b[i] {
		case ' ', '\t', '"', '\'', '(', '`':
			continue
		case '\n', '.', '!', '?', ':', ';':
			return true
		}
		return false
	}
	return true
}

// ---- qualified.go at 76788bf ----

// SplitQualified splits "A.b", "a::b", "a#b" or "a/b" into qualifier (its
// last part: "x.Server.Shutdown" → "Server", "net/http.Get" → "http") and
// name. It is the one splitter of qualified names: the request's and the
// symbol index's; a symbol request (ctxd symbol, ctx/findSymbol) splits
// through engine's splitSymbol, which keeps a JavaScript private name's #
// and calls it for the rest.
func SplitQualified(s string) (qual, name string) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i]) // f() and f(x, y) name f
	}
	i := strings.LastIndexAny(s, ".:/#")
	if i < 0 {
		return "", s
	}
	qual, name = strings.TrimRight(s[:i], ":"), s[i+1:]
	if j := strings.LastIndexAny(qual, ".:/#"); j >= 0 {
		qual = qual[j+1:]
	}
	return qual, name
}

// qualifiedRE finds dotted and scoped names: Server.Shutdown,
// requests.Session.merge_environment_settings, Store::open, Foo#bar; their
// parts are code names ($ included: $scope.apply), see IsNameByte.
var qualifiedRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)+`)

// qualified returns the qualified names a request writes ("rename
// Session.merge_environment_settings" gives
// Session.merge_environment_settings), leaving out what reads as a file
// name (server.go, index.test.ts).
func qualified(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range qualifiedRE.FindAllString(text, -1) {
		if seen[s] || lang.Of(s) != "" {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// qualifiers returns the non-final parts of qualified names: requests and
// utils of requests.utils.get_netrc_auth, Request of Request.hooks.
func qualifiers(names []string) map[string]bool {
	quals := map[string]bool{}
	for _, q := range names {
		parts := strings.FieldsFunc(q, func(r rune) bool { return r == '.' || r == ':' || r == '#' })
		for _, p := range parts[:max(len(parts)-1, 0)] {
			quals[p] = true
		}
	}
	return quals
}

// ---- words.go at 76788bf ----

// stopwords are request words that say nothing about which file is meant.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of in on at to for from by with
		without into onto over under about as is are was were be been being it its this that these
		those there here what which who whom whose when where why how i me my we our you your he she
		they them their do does did doing done have has had having can could should would will shall
		may might must not no yes so than too very just also only all any some each every both
		please pls thanks explain explains describe show tell help understand
		fix fixes fixed fixing add adds added adding make makes making made change
		changes changed changing update updates updated updating implement implementing write
		writing use uses used using need needs want wants get gets got let lets like new old
		code file files function functions method methods work works working broken issue issues
		problem problems bug bugs should seem seems seemed wrong right way thing things one two
		sure something anything everything`) {
		m[w] = true
	}
	return m
}()

// Words returns the words of s that say which file is meant: its
// identifier runs ([ScanIdents]), stopwords dropped, in order. Ranking
// hashes them into its terms.
func Words(s string) []string {
	return words(s, ScanIdents)
}

// words returns the runs scan finds in s, stopwords dropped.
func words(s string, scan func(b []byte, fn func(id []byte))) []string {
	var out []string
	scan([]byte(s), func(id []byte) {
		if len(id) <= 12 && stopwords[strings.ToLower(string(id))] {
			return
		}
		out = append(out, string(id))
	})
	return out
}

// ---- scan_re.go at 76788bf ----

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

// ---- scan.go at 76788bf ----

// The one identifier scanner, with one byte class per fact. Words (a
// request's words, the terms files are indexed by, the code identifiers a
// request writes) end at '$': "$HOME" and "$scope" are the words HOME and
// scope, which the files that read them write without the '$'. Code names
// (what ctx/findSymbol looks up, the definitions a focused function uses,
// a qualified name's parts) keep it: JavaScript's $http and PHP's $user
// are one name each, and a use of foo is not a use of $foo.

// IsIdentByte reports bytes that belong to words. Bytes of multi-byte
// UTF-8 sequences count, so words in other scripts stay whole.
func IsIdentByte(c byte) bool { return identBytes[c] }

// IsNameByte reports bytes that belong to code names: a word's and '$'.
func IsNameByte(c byte) bool { return nameBytes[c] }

// NameIndex returns the first index of name in s as a whole code name
// (no name byte on either side), -1 when there is none.
func NameIndex(s, name string) int { return nameIndex(s, name, strings.Index) }

// HasName reports whether b holds name as a whole code name: [NameIndex]
// over bytes (a file's lines, unconverted).
func HasName(b, name []byte) bool { return nameIndex(b, name, bytes.Index) >= 0 }

func nameIndex[S string | []byte](s, name S, index func(s, sub S) int) int {
	if len(name) == 0 {
		return -1
	}
	for from := 0; ; {
		i := index(s[from:], name)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(name)
		if (i == 0 || !IsNameByte(s[i-1])) && (end == len(s) || !IsNameByte(s[end])) {
			return i
		}
		from = i + 1
	}
}

var identBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
	}
	return t
}()

var nameBytes = func() (t [256]bool) {
	t = identBytes
	t['$'] = true
	return t
}()

// ScanIdents calls fn for each word of b (a run of IsIdentByte bytes)
// that does not start with a digit.
func ScanIdents(b []byte, fn func(id []byte)) { scan(b, &identBytes, fn) }

// ScanNames calls fn for each code name of b (a run of IsNameByte bytes)
// that does not start with a digit.
func ScanNames(b []byte, fn func(id []byte)) { scan(b, &nameBytes, fn) }

func scan(b []byte, class *[256]bool, fn func(id []byte)) {
	for i := 0; i < len(b); {
		if !class[b[i]] {
			i++
			continue
		}
		j := i
		for j < len(b) && class[b[j]] {
			j++
		}
		if b[i] < '0' || b[i] > '9' {
			fn(b[i:j])
		}
		i = j
	}
}

// CamelBreak reports a word boundary before id[i]: "parseConfig" breaks
// before "C", "HTTPServer" before "S", "utf8Reader" before "R"; digits stay
// with the letters before them ("sha256", "utf8").
func CamelBreak(id []byte, i int) bool {
	prev, cur := id[i-1], id[i]
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if isUpper(cur) && (isLower(prev) || isDigit(prev)) {
		return true
	}
	if isUpper(prev) && isUpper(cur) && i+1 < len(id) && isLower(id[i+1]) {
		return true
	}
	return false
}

// ScanWords is [ScanIdents] with the numbers that name something: runs
// of minNumber to maxNumber digits (status codes, error codes, ports),
// not a part of a dotted number (a version, a decimal), not after '#'
// (an issue or pull request) and not after a '0x' or a letter (those
// runs are identifiers or hex, and ScanIdents has them or skips them).
func ScanWords(b []byte, fn func(id []byte)) {
	for i := 0; i < len(b); {
		if !IsIdentByte(b[i]) {
			i++
			continue
		}
		j := i
		digits := true
		for j < len(b) && IsIdentByte(b[j]) {
			digits = digits && b[j] >= '0' && b[j] <= '9'
			j++
		}
		switch {
		case b[i] < '0' || b[i] > '9':
			fn(b[i:j])
		case digits && j-i >= minNumber && j-i <= maxNumber && !dotted(b, i, j) && (i == 0 || b[i-1] != '#'):
			fn(b[i:j])
		}
		i = j
	}
}

// dotted reports a digit run b[i:j] next to a '.' and a digit: 1.26.0, 3.14.
func dotted(b []byte, i, j int) bool {
	digit := func(k int) bool { return k >= 0 && k < len(b) && b[k] >= '0' && b[k] <= '9' }
	return i >= 2 && b[i-1] == '.' && digit(i-2) || j+1 < len(b) && b[j] == '.' && digit(j+1)
}

// Numbers that are words: from minNumber to maxNumber digits.
const (
	minNumber = 3
	maxNumber = 6
)
