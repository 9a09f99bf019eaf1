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
	for ri, re := range traceRes {
		names := re.re.SubexpNames()
		for _, m := range re.findAllSubmatchIndex(text, -1) {
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
