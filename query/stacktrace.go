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
		runs: &genericBytes},
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
	// runs, when set, holds every byte of the pattern's matches, which
	// look at nothing around them: the pattern then runs on each run of
	// these bytes that meets may, not on the whole line.
	runs *[256]bool
}

// genericBytes are the bytes of the generic pattern's matches.
var genericBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c)) || strings.IndexByte("@~.+-/\\:", byte(c)) >= 0
	}
	return t
}()

// goFrameLine reports a line that may be a Go frame's: white space, then
// after the last ':' digits, a " +0x" offset or not, and white space.
func goFrameLine(l string) bool {
	if l == "" || l[0] != ' ' && l[0] != '\t' {
		return false
	}
	l = strings.TrimRight(l, " \t\r")
	if i := strings.LastIndex(l, " +0x"); i >= 0 && strings.Trim(l[i+4:], "0123456789abcdef") == "" && i+4 < len(l) {
		l = l[:i]
	}
	i := strings.LastIndexByte(l, ':')
	return i >= 0 && i+1 < len(l) && strings.Trim(l[i+1:], "0123456789") == "" &&
		(strings.HasSuffix(l[:i], ".go") || strings.HasSuffix(l[:i], ".s"))
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
			if p.runs == nil {
				out[i] = appendMatches(out[i], p.re, line, start)
				continue
			}
			for a := 0; a < len(line); {
				if !p.runs[line[a]] {
					a++
					continue
				}
				b := a + 1
				for b < len(line) && p.runs[line[b]] {
					b++
				}
				if p.may(line[a:b]) {
					out[i] = appendMatches(out[i], p.re, line[a:b], start+a)
				}
				a = b
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
		loc Location
	}
	var all []found
	matches := traceMatches(text)
	for ri, re := range traceRes {
		names := re.re.SubexpNames()
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
			k, _ := slices.BinarySearchFunc(taken, m[0], func(s span, start int) int { return cmp.Compare(s.start, start) })
			taken = slices.Insert(taken, k, span{m[0], m[1]})
			all = append(all, found{m[0], loc})
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
