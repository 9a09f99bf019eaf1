package query

import (
	"bytes"
	"strings"
)

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

func scan[S string | []byte](b S, class *[256]bool, fn func(id S)) {
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
func CamelBreak(id []byte, i int) bool { return camelBreak(id, i) }

// camelBreak is CamelBreak over bytes or a string.
func camelBreak[S string | []byte](id S, i int) bool {
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
func ScanWords(b []byte, fn func(id []byte)) { scanWords(b, fn) }

// scanWords is ScanWords over bytes or a string (whose words are its
// substrings: no copy).
func scanWords[S string | []byte](b S, fn func(id S)) {
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
func dotted[S string | []byte](b S, i, j int) bool {
	digit := func(k int) bool { return k >= 0 && k < len(b) && b[k] >= '0' && b[k] <= '9' }
	return i >= 2 && b[i-1] == '.' && digit(i-2) || j+1 < len(b) && b[j] == '.' && digit(j+1)
}

// Numbers that are words: from minNumber to maxNumber digits.
const (
	minNumber = 3
	maxNumber = 6
)
