package query

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/internal/vsort"
)

// Location is a place in a file that a stack trace or error text points
// at.
type Location struct {
	// Path is the file as written in the trace (absolute, relative, or a
	// Java class path such as "com/example/Foo.java" built from the frame).
	Path string
	// Line and Col are 1-based; 0 when the trace does not give them.
	Line, Col int
	// Func is the function or method of the frame, when the trace names it.
	Func string
}

// Frame patterns, most specific first. Each has named groups path, line
// and optionally col and fn; may is a condition every line it matches on
// meets (cheaper than the expression: most lines of a long request meet
// none). Each matches within one line (Go's ^ and $ are a line's), save
// where across says it may not: Node's " [as name]" and Ruby's function
// name may run over a newline.
var traceRes = []tracePattern{
	// Python: File "app/db.py", line 12, in connect
	{re: regexp.MustCompile(`File "(?P<path>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<fn>[\w<>.]+))?`),
		may: func(l string) bool { return strings.Contains(l, `File "`) }},
	// Java / Kotlin / Scala: at com.example.Foo.bar(Foo.java:42)
	{re: regexp.MustCompile(`at (?P<fn>[\w$.<>/]+)\((?P<path>[\w$-]+\.(?:java|kt|scala|groovy)):(?P<line>\d+)\)`),
		may: func(l string) bool {
			return strings.Contains(l, "at ") && (strings.Contains(l, ".java:") || strings.Contains(l, ".kt:") || strings.Contains(l, ".scala:") || strings.Contains(l, ".groovy:"))
		}},
	// Node: at fn (/app/x.js:10:5)  or  at /app/x.js:10:5  or  at file:///app/x.mjs:1:2
	{re: regexp.MustCompile(`at (?:async )?(?:(?P<fn>[^\s(]+(?: \[as [^\]]+\])?) \()?(?:file://)?(?P<path>[^\s():]+\.[A-Za-z]{1,5}):(?P<line>\d+)(?::(?P<col>\d+))?\)?`),
		may:    func(l string) bool { return strings.Contains(l, "at ") && extColonDigit(l, 5, false) },
		across: func(text string) bool { return openAcrossLines(text, " [as ", "]") }},
	// Ruby: app/models/user.rb:12:in `save'
	{re: regexp.MustCompile("(?P<path>[^\\s:'\"`(]+\\.rb):(?P<line>\\d+):in [`'](?P<fn>[^'`]+)'"),
		may: func(l string) bool { return strings.Contains(l, ".rb:") },
		across: func(text string) bool {
			return openAcrossLines(text, ":in `", "'`") || openAcrossLines(text, ":in '", "'`")
		}},
	// Go: \t/home/u/app/x.go:123 +0x1d  (the function is on the line before)
	{re: regexp.MustCompile(`(?m)^[ \t]+(?P<path>[^\s:]+\.(?:go|s)):(?P<line>\d+)(?: \+0x[0-9a-f]+)?[ \t\r]*$`),
		may: goFrameLine},
	// Rust: --> src/main.rs:10:5  /  panicked at src/main.rs:10:5  /  at ./src/lib.rs:3:9
	{re: regexp.MustCompile(`(?:-->|panicked at|\bat) (?P<path>[^\s:]+\.rs):(?P<line>\d+)(?::(?P<col>\d+))?`),
		may: func(l string) bool { return strings.Contains(l, ".rs:") }},
	// Generic: path/to/file.ext:line:col or file.ext:line (compilers,
	// linters, test runners), and "file.ext, line N".
	{re: regexp.MustCompile(`(?P<path>(?:[A-Za-z]:)?[\w@~.+\-/\\]*[\w\-]\.[A-Za-z][\w]{0,7}):(?P<line>\d+)(?::(?P<col>\d+))?`),
		may:  func(l string) bool { return extColonDigit(l, 8, true) },
		find: genericFrames},
	{re: regexp.MustCompile(`(?P<path>[\w@~.+\-/\\]*[\w\-]\.[A-Za-z][\w]{0,7}),? line (?P<line>\d+)`),
		may: func(l string) bool { return strings.Contains(l, " line ") }},
}

// tracePattern is a frame pattern and a condition on the lines it may
// match on.
type tracePattern struct {
	re  *regexp.Regexp
	may func(line string) bool
	// across reports a text where the pattern may match over a newline
	// (nil: never); it then runs over the whole text.
	across func(text string) bool
	// find, when set, is re.FindAllStringSubmatchIndex(line, -1) read by
	// hand.
	find func(line string) [][]int
}

// genericFrames is the generic pattern's FindAllStringSubmatchIndex read
// by hand: at each place, a drive ("C:") or none, then the path bytes up
// to the first byte that is not one, which must be ':' before a digit,
// the path ending in a word byte or '-', '.', a letter and up to 7 word
// bytes; then the line's digits, and ':' and the column's or none. When
// the place that starts a run of path bytes starts no match, no place
// inside the run does, but its last byte as a drive.
func genericFrames(t string) [][]int {
	pathByte := func(i int) bool { return i < len(t) && pathBytes[t[i]] }
	letter := func(i int) bool { return i < len(t) && t[i]|0x20 >= 'a' && t[i]|0x20 <= 'z' }
	digit := func(i int) bool { return i < len(t) && t[i] >= '0' && t[i] <= '9' }
	digitsEnd := func(i int) int {
		for digit(i) {
			i++
		}
		return i
	}
	// body returns the end of a path whose bytes after its drive start
	// at q, -1 when there is none.
	body := func(q int) int {
		c := q
		for pathByte(c) {
			c++
		}
		if c >= len(t) || t[c] != ':' || !digit(c+1) {
			return -1
		}
		for m := 1; m <= 8 && c-m-2 >= q; m++ {
			if letter(c-m) && t[c-m-1] == '.' && (isWordByte(t[c-m-2]) || t[c-m-2] == '-') {
				return c
			}
			if !isWordByte(t[c-m]) {
				break
			}
		}
		return -1
	}
	at := func(s int) int { // the path's end for a match at s, -1 none
		if letter(s) && s+1 < len(t) && t[s+1] == ':' {
			if c := body(s + 2); c >= 0 {
				return c
			}
		}
		return body(s)
	}
	var out [][]int
	for s := 0; s < len(t); {
		c := at(s)
		if c < 0 {
			e := s
			for pathByte(e) {
				e++
			}
			if e-1 > s && letter(e-1) && e < len(t) && t[e] == ':' {
				if c = body(e + 1); c >= 0 {
					s = e - 1
				}
			}
			if c < 0 {
				s = max(e, s+1)
				continue
			}
		}
		le := digitsEnd(c + 1)
		m := []int{s, le, s, c, c + 1, le, -1, -1}
		if le < len(t) && t[le] == ':' && digit(le+1) {
			ce := digitsEnd(le + 1)
			m[1], m[6], m[7] = ce, le+1, ce
		}
		out = append(out, m)
		s = m[1]
	}
	return out
}

// goFrameLine reports a line that may be a Go frame's: white space, a
// path of no white space or ':', ':' and digits, a " +0x" offset or not,
// and white space.
func goFrameLine(l string) bool {
	if l == "" || l[0] != ' ' && l[0] != '\t' {
		return false
	}
	l = strings.TrimRight(l, " \t\r")
	if i := strings.LastIndex(l, " +0x"); i >= 0 && strings.Trim(l[i+4:], "0123456789abcdef") == "" && i+4 < len(l) {
		l = l[:i]
	}
	i := strings.LastIndexByte(l, ':')
	if i < 0 || i+1 == len(l) || strings.Trim(l[i+1:], "0123456789") != "" {
		return false
	}
	path := strings.TrimLeft(l[:i], " \t")
	return (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".s")) && !strings.ContainsAny(path, " \t\n\f\r:")
}

// extColonDigit reports a file extension before a ':' and an ASCII
// digit: '.', an ASCII letter, and up to max-1 more letters (word bytes
// when word is set).
func extColonDigit(l string, max int, word bool) bool {
	for i := strings.IndexByte(l, ':'); i >= 0 && i+1 < len(l); {
		if l[i+1] >= '0' && l[i+1] <= '9' {
			for m := 1; m <= max && i-m-1 >= 0; m++ {
				c := l[i-m]
				if c|0x20 >= 'a' && c|0x20 <= 'z' && l[i-m-1] == '.' {
					return true
				}
				if !(c|0x20 >= 'a' && c|0x20 <= 'z' || word && isWordByte(c)) {
					break
				}
			}
		}
		k := strings.IndexByte(l[i+1:], ':')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// openAcrossLines reports text where an occurrence of open is followed
// by a newline before the first of the bytes of closing, or by none of
// them.
func openAcrossLines(text, open, closing string) bool {
	for i := strings.Index(text, open); i >= 0; {
		rest := text[i+len(open):]
		end := strings.IndexAny(rest, closing)
		if end < 0 || strings.IndexByte(rest[:end], '\n') >= 0 {
			return true
		}
		k := strings.Index(text[i+1:], open)
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

// appendMatches appends re's matches on text, at offset in the whole
// text.
func appendMatches(out [][]int, re *regexp.Regexp, text string, offset int) [][]int {
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		for j := range m {
			if m[j] >= 0 {
				m[j] += offset
			}
		}
		out = append(out, m)
	}
	return out
}

// traceMatches returns each pattern's matches on text (as
// FindAllStringSubmatchIndex over the whole text): each pattern runs on
// the lines that meet its condition.
func traceMatches(text string) [][][]int {
	out := make([][][]int, len(traceRes))
	whole := make([]bool, len(traceRes))
	for i, p := range traceRes {
		if p.across != nil && p.across(text) {
			whole[i] = true
			out[i] = p.re.FindAllStringSubmatchIndex(text, -1)
		}
	}
	for start := 0; start <= len(text); {
		end := len(text)
		if k := strings.IndexByte(text[start:], '\n'); k >= 0 {
			end = start + k
		}
		line := text[start:end]
		for i, p := range traceRes {
			if whole[i] || !p.may(line) {
				continue
			}
			if p.find == nil {
				out[i] = appendMatches(out[i], p.re, line, start)
				continue
			}
			for _, m := range p.find(line) {
				for j := range m {
					if m[j] >= 0 {
						m[j] += start
					}
				}
				out[i] = append(out[i], m)
			}
		}
		start = end + 1
	}
	return out
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
func ParseStackTrace(text string) []Location {
	if len(text) > 1<<20 {
		text = text[:1<<20]
	}
	// taken are the spans the patterns before matched, sorted and
	// disjoint (a match that overlaps one is left out), so their ends are
	// sorted too: the first that ends after a is the only one [a, b) may
	// overlap. A pattern's own matches do not overlap one another: they
	// join taken after its last, in one merge.
	var taken, added []span
	overlaps := func(a, b int) bool {
		i, _ := slices.BinarySearchFunc(taken, a, func(s span, a int) int { return cmp.Compare(s.end, a+1) })
		return i < len(taken) && taken[i].start < b
	}
	type found struct {
		pos int
		loc Location
	}
	var all []found
	matches := traceMatches(text)
	for ri, re := range traceRes {
		names := re.re.SubexpNames()
		added = added[:0]
		for _, m := range matches[ri] {
			if overlaps(m[0], m[1]) {
				continue
			}
			var loc Location
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
			added = append(added, span{m[0], m[1]})
			all = append(all, found{m[0], loc})
		}
		if len(added) > 0 {
			taken = mergeSpans(taken, added)
		}
	}
	// Order by position in the text (stable: one pattern's finds at one
	// place keep their order).
	vsort.StableFunc(all, func(a, b found) int { return cmp.Compare(a.pos, b.pos) })
	var out []Location
	seen := map[Location]bool{}
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

// span is a match's place in the text.
type span struct{ start, end int }

// mergeSpans returns the spans of a and b, each sorted by start, in one
// sorted slice.
func mergeSpans(a, b []span) []span {
	out := make([]span, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].start <= b[0].start {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
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
