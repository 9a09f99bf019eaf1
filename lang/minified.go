package lang

import "bytes"

// Minified text (a bundled .min.js, a one-line JSON blob, a lock file
// on one line) is useless in a prompt and expensive everywhere: a 900 KB
// line cost 0.4 s and ~120 MB per request in tree-sitter, tokenizing and
// scanning. Such a file is recognised once, when it is indexed (the flag
// persists with its content hash), indexed from its head only, and
// gathered as a one-line stub that says why (docs/security.md).
const (
	// minifiedMinBytes: smaller texts are cheap whatever their shape.
	minifiedMinBytes = 16 << 10
	// minifiedLineBytes: a line this long makes a text minified.
	minifiedLineBytes = 8 << 10
	// minifiedAvgLine: so does an average line this long.
	minifiedAvgLine = 1000
)

// Minified reports whether b is minified or has very long lines: at least
// 16 KiB with a line of 8 KiB or more, or lines of 1,000 bytes on average.
func Minified(b []byte) bool {
	if len(b) < minifiedMinBytes {
		return false
	}
	lines := 0
	for rest := b; len(rest) > 0; lines++ {
		n := bytes.IndexByte(rest, '\n')
		if n < 0 {
			n = len(rest)
		}
		if n >= minifiedLineBytes {
			return true
		}
		rest = rest[min(n+1, len(rest)):]
	}
	return len(b)/max(lines, 1) >= minifiedAvgLine
}
