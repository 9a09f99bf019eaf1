// Package query reads a user's request once: the task it asks for, the
// code it names (identifiers, qualified names, paths, stack frames) and
// the words it is ranked by. The pipeline's stages ask a [Query]; none
// reads the request text again (query_test.go checks that the request
// fields are read only here and where the prompt is rendered).
package query

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
)

// Query is a request, read.
type Query struct {
	// Task is the task type the request's wording and stack traces point
	// at; Detected is false when no cue matched (Task is then implement).
	Task     ctxd.TaskType
	Detected bool
	// AsksChange: a clause of the request asks for a change (an
	// imperative: "make it accept X", "fix", "add"; or a statement of what
	// the code should do). The task is then never analyze, and the
	// prompt's instructions do not forbid code.
	AsksChange bool
	// Words are the request's identifier runs, stopwords dropped (see
	// [Words]): the lexical ranking's query.
	Words []string
	// FocusWords are Words with the numbers that name something (status
	// and error codes: see [ScanWords]): what picks a file's functions.
	FocusWords []string
	// Idents are the words that look like code (camelCase, snake_case,
	// calls, members, backquoted; see requestIdents), in order.
	Idents []string
	// Qualified are the qualified names the request writes
	// (Server.Shutdown, requests.utils.get_netrc_auth), file names left
	// out; Qualifiers are their non-final parts (Server, requests, utils).
	Qualified  []string
	Qualifiers map[string]bool
	// Paths are the words that may name a file: runs of path characters
	// with a slash or a dot-extension, backslashes made slashes, quotes,
	// brackets and a leading "./" trimmed; URLs left out. A dotfile with
	// an extension keeps its dot (".eslintrc.js"); a bare one (".env") is
	// none: FileNames has both.
	Paths []string
	// FileNames are the request's words as the file names they may be,
	// dotfiles and bare names kept (.env, config/.npmrc, id_rsa,
	// secrets/.env.local): the words between spaces, quotes, brackets,
	// commas, semicolons, pipes and '=', backslashes made slashes, a
	// sentence's closing punctuation, a location's line and column
	// (":12:5") and a leading "./" trimmed; URLs left out; each once. A
	// caller keeps the ones its rule or its file tree names (the secret
	// files a request names, lang.IsSecret).
	FileNames []string
	// Frames are the file locations of the stack traces and error text
	// in the request, in order (see [ParseStackTrace]); InnermostLast
	// is set for a Python traceback, whose innermost frame comes last.
	Frames        []Location
	InnermostLast bool
	// AboutTests: the request is about tests (test files are not ranked
	// down). Explain: it asks how something works (docs may rise).
	// AboutUses: it is about a name's uses (a rename, callers, a
	// signature).
	AboutTests, Explain, AboutUses bool
	// AsksUses: it asks where a name is used ("where is X used", "who
	// calls X", "find the callers of X"), whatever the task: the answer
	// is the using lines.
	AsksUses bool
	// HowTo: it asks how to use the project ("how do I make an option
	// required", "how to set a default", "is there a way to"), not for a
	// change: the documentation sections that answer it are part of the
	// context (docs rise as for Explain, and a Markdown document shows
	// its best-matching sections whole).
	HowTo bool
	// Lang is the locale tag of the language the request is written in or
	// names ([lang.TextLocale]: "zh", "pt-br"), "" for English: the version
	// of a translated docs page kept. Translations: the request is about
	// translations or locales ("translate", "i18n", "locales"), so every
	// version of a page counts.
	Lang         string
	Translations bool
}

// translations matches the words of a request about translations.
var translations = regexp.MustCompile(`(?i)\b(translat\w*|i18n|l10n|locali[sz]\w*|locales?)\b`)

// withoutNumbers returns the words of focus ([ScanWords]'s) that
// [ScanIdents] finds: those that do not start with a digit. Those words
// are [Words], in the same order, the stopwords the same.
func withoutNumbers(focus []string) []string {
	n := 0
	for _, w := range focus {
		if w[0] < '0' || w[0] > '9' {
			n++
		}
	}
	var out []string
	if n > 0 {
		out = make([]string, 0, n)
	}
	for _, w := range focus {
		if w[0] < '0' || w[0] > '9' {
			out = append(out, w)
		}
	}
	return out
}

// aboutTranslations is translations.MatchString(request), the expression
// run only when the lower-cased request holds one of its words' first
// letters: each of their letters folds to itself and its upper case
// alone, save 's', which folds to 'ſ' too (then it runs anyway).
func aboutTranslations(request, lower string) bool {
	if strings.Contains(request, "ſ") {
		return translations.MatchString(request)
	}
	for _, w := range []string{"translat", "i18n", "l10n", "locali", "locale"} {
		if strings.Contains(lower, w) {
			return translations.MatchString(request)
		}
	}
	return false
}

// Parse reads a request. It never fails: a request without code, paths
// or cues gives an empty Query (task implement, not detected).
func Parse(request string) *Query {
	text := wordText(request)
	lower := strings.ToLower(request)
	idx := indexWords(lower)
	focus := words(text, true)
	ws := withoutNumbers(focus)
	q := &Query{
		Words:         ws,
		FocusWords:    focus,
		Idents:        requestIdents(text),
		Qualified:     qualified(text),
		Paths:         paths(request),
		FileNames:     fileNames(text),
		Frames:        ParseStackTrace(request),
		InnermostLast: strings.Contains(request, "Traceback (most recent call last)"),
		AboutTests:    aboutTests(ws),
		Explain:       explainRE.matchString(lower, idx),
		AboutUses:     usesRE.matchString(lower, idx),
		AsksUses:      asksUsesRE.matchString(lower, idx),
		Lang:          lang.TextLocale(request),
		Translations:  aboutTranslations(request, lower),
	}
	q.Qualifiers = qualifiers(q.Qualified)
	q.AsksChange = asksChange(lower)
	q.Task, q.Detected = detectTask(request, lower, idx, q.AsksChange)
	q.HowTo = !q.AsksChange && len(q.Frames) == 0 && howToRE.matchString(lower, idx) && !bugReportRE.matchString(lower, idx)
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

// Names returns the names the request writes, for the symbol index: its
// code identifiers, then its qualified names.
func (q *Query) Names() []string {
	return slices.Concat(q.Idents, q.Qualified)
}

// ResolveTask returns the task type to use and where it came from: the
// explicit type when given, else the detected one, else the default.
func (q *Query) ResolveTask(explicit ctxd.TaskType) (ctxd.TaskType, string) {
	switch {
	case explicit != "":
		return explicit, ctxd.SourceExplicit
	case q.Detected:
		return q.Task, ctxd.SourceDetected
	}
	return ctxd.TaskImplement, ctxd.SourceDefault
}

// pathTokenRe finds words of a request that may name a file: runs of path
// characters with a slash or a dot-extension.
var pathTokenRe = regexp.MustCompile(`[\w@~.+\-/\\]*[\w/\\]\.[A-Za-z][\w]{0,9}\b|[\w.\-]+(?:/[\w.\-]+)+`)

// paths returns the words of text that may name a file (see Query.Paths).
//
// Every match of pathTokenRe is made of path bytes and ends where one
// does (\b after a word byte, and every word byte is one), so it runs
// on each run of them that holds a '/' or a '.' before a letter.
func paths(text string) []string {
	var out []string
	eachRun(text, &pathBytes, func(run string, i int) {
		if mayBePath(run) {
			for _, loc := range pathTokens(run) {
				out = appendPath(out, text, loc[0]+i, loc[1]+i)
			}
		}
	})
	return out
}

// eachRun calls f with each longest run of text's bytes that in holds,
// and the offset it starts at.
func eachRun(text string, in *[256]bool, f func(run string, at int)) {
	for i := 0; i < len(text); {
		if !in[text[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && in[text[j]] {
			j++
		}
		f(text[i:j], i)
		i = j
	}
}

// wordBytesAnd is a table of the word bytes and those of extra.
func wordBytesAnd(extra string) (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c)) || strings.IndexByte(extra, byte(c)) >= 0
	}
	return t
}

// pathTokens is pathTokenRe.FindAllStringIndex(run, -1) on a run of path
// bytes, read by hand. The first form (path bytes, then a word byte or a
// slash, '.', a letter and up to 9 word bytes ending the word) matches
// at every place up to the last such extension, and up to its end (the
// longest, as the greedy expression takes it); after it only the second
// (runs of word bytes, '.' and '-' joined by slashes) may, and a run of
// those bytes that does not end before a slash and one of them starts no
// match anywhere inside it.
func pathTokens(run string) [][2]int {
	word := func(i int) bool { return i < len(run) && isWordByte(run[i]) }
	part := func(i int) bool { return i < len(run) && (isWordByte(run[i]) || run[i] == '.' || run[i] == '-') }
	last, lastEnd := -1, -1
	for p := len(run) - 3; p >= 0 && last < 0; p-- {
		c := run[p]
		if !(isWordByte(c) || c == '/' || c == '\\') || run[p+1] != '.' || run[p+2]|0x20 < 'a' || run[p+2]|0x20 > 'z' {
			continue
		}
		e := p + 3
		for word(e) {
			e++
		}
		if e-(p+3) <= 9 {
			last, lastEnd = p, e
		}
	}
	var out [][2]int
	for s := 0; s < len(run); {
		if s <= last {
			out = append(out, [2]int{s, lastEnd})
			s = lastEnd
			continue
		}
		if !part(s) {
			s++
			continue
		}
		a := s
		for part(a) {
			a++
		}
		end := -1
		for a < len(run) && run[a] == '/' && part(a+1) {
			a++
			for part(a) {
				a++
			}
			end = a
		}
		if end < 0 {
			s = a // no place inside the run starts a match
			continue
		}
		out = append(out, [2]int{s, end})
		s = end
	}
	return out
}

// pathBytes are the bytes of pathTokenRe's matches.
var pathBytes = wordBytesAnd("@~.+-/\\")

// mayBePath reports a run of path bytes that holds a '/' or a '.' before
// an ASCII letter: what a match of pathTokenRe needs.
func mayBePath(run string) bool {
	if strings.IndexByte(run, '/') >= 0 {
		return true
	}
	for k := strings.IndexByte(run, '.'); k >= 0 && k+1 < len(run); {
		if c := run[k+1] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
		n := strings.IndexByte(run[k+1:], '.')
		if n < 0 {
			break
		}
		k += 1 + n
	}
	return false
}

// appendPath appends the path text[start:end] matches, if it is one.
func appendPath(out []string, text string, start, end int) []string {
	tok := text[start:end]
	if start > 0 && text[start-1] == ':' && strings.HasPrefix(tok, "//") {
		return out // a URL's tail: https://example.com/.env
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
		return out
	}
	return append(out, tok)
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
		if i == len(w) || w[i] == '_' || w[i-1] == '_' || camelBreak(w, i) {
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
var explainRE = newWordRE(`\b(how (does|do|is|are)|explain|what (does|is)|why does|walk me through|overview|documentation|docs)\b`)

// howToRE matches a question about how to use the project rather than
// how it works: what a user asks of a README. Phrases that commit
// messages write ("usage of", "example for") are left out: a code
// task's context does not change.
var howToRE = newWordRE(`\b(how (do|can|could|should|would) (i|we|you|one)|how to|is (there|it possible) (a way )?to|what('s| is) the (option|flag|setting|parameter|config|way) (for|to)|(is there|do you have|show me|give me) an? examples?)\b`)

// bugReportRE matches what a bug report writes beside a how-to phrase: an
// issue template's "How to Reproduce", "expected behavior", and the
// reporter's "not sure how to" or a function that "does not know how to"
// (8 of SWE-bench Lite's 300 issues read as how-to questions without it,
// all bug reports). A request with a stack frame is one too (Parse).
var bugReportRE = newWordRE(`\b((how|steps) to reproduce|expected (behaviou?r|result|output)|actual (behaviou?r|result|output)|(not|never) (too |really |quite )?sure how to|(does not|doesn't|do not|don't|did not|didn't) (know|understand) how to|no idea how to)\b`)

// usesRE matches a request about a name's uses: a rename, its callers,
// its call sites, its usages, its signature (whole words, any inflection
// of rename).
var usesRE = newWordRE(`\b(renam(e|es|ed|ing)|callers?|call ?sites?|usages?|signatures?|every use|all uses|references to)\b`)

// asksUsesRE matches a question about where a name is used: its callers,
// usages, call sites, references, "who calls", "where is X used". The
// singulars and participles ("a caller", "not referenced") are left
// out: commit messages and bug reports write them about other things.
var asksUsesRE = newWordRE(`\b(callers|usages|(who|what) calls|call ?sites|references to)\b|\bwhere(\s+(is|are|do|does|else)|'s)\b[^.?!]{0,60}\bused\b`)
