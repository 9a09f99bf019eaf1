package compress

import (
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/tokens"
)

// fillerOnly reports whether a head-and-tail cut of source shows nothing
// but filler: its head only imports, package clauses, comments, blank lines
// and closing brackets, its tail at most one line (the file's last) beyond
// those. Such a cut of 60 tokens says no more than the file's header does
// (httpx/_config.py cut to "from __future__ import annotations", "import
// os", "import typing" and "DEFAULT_MAX_REDIRECTS = 20").
func fillerOnly(cut string) bool {
	lines := strings.Split(strings.TrimSuffix(cut, "\n"), "\n")
	m := -1
	for i, l := range lines {
		if tokens.IsMarker(l) {
			m = i
			break
		}
	}
	if m < 0 {
		return false
	}
	for _, l := range lines[:m] {
		if !isFiller(l) {
			return false
		}
	}
	code := 0
	for _, l := range lines[m+1:] {
		if !isFiller(l) {
			code++
		}
	}
	return code <= 1
}

// fillerPrefixes begin lines that name what a file uses, not what it does.
var fillerPrefixes = []string{
	"import ", "import(", "from ", "package ", "use ", "using ", "#include", "require(", "require ",
	"export * from", "} from ", "\"use strict\"", "'use strict'", "extern crate ",
	"#", "//", "/*", "*", "<!--", "-->",
}

// isFiller reports whether the source line l is filler (see fillerOnly):
// blank, an import or package clause, a comment, a closing bracket, a
// quoted import path or a name alone (the body of a multi-line import).
func isFiller(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return true
	}
	for _, p := range fillerPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if strings.Contains(t, "= require(") {
		return true
	}
	if strings.Trim(t, ")]};,(") == "" {
		return true
	}
	// An import path ("fmt", alias "x/y") or a name alone, comma ended:
	// the inside of an import block.
	t = strings.TrimSuffix(t, ",")
	if f := strings.Fields(t); len(f) <= 3 {
		last := f[len(f)-1]
		if len(last) >= 2 && (last[0] == '"' || last[0] == '\'') && last[len(last)-1] == last[0] {
			return len(f) <= 2
		}
		if len(f) == 1 || len(f) == 3 && f[1] == "as" {
			return isName(f[0]) && (len(f) == 1 || isName(f[2]))
		}
	}
	return false
}

func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// headerOnly is c cut to its header: the path and a count of its lines,
// the whole content elided.
func headerOnly(c ctxd.Chunk) ctxd.Chunk {
	n := byteview.CountLines(c.Content)
	c.Content = tokens.Marker(n, utf8.RuneCountInString(c.Content))
	c.Elided = []ctxd.LineRange{{Start: 1, End: n}}
	return c
}
