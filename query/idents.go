package query

import (
	"strings"
	"unicode/utf8"
)

// requestIdents returns the identifier-like words of a request that look
// like code, to look for verbatim in files as MentionedSymbols: camelCase,
// snake_case, words with digits after letters, capitalized words that
// do not start a sentence ("make Amount print" names Amount; "German
// customers ..." at the start does not), calls ("render()"), members
// ("res.links") and words in backquotes.
func requestIdents(q string) []string {
	var out []string
	seen := map[string]bool{}
	b := q // its words are substrings: no copies
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
		s := id
		if len(s) < 3 || s[0] >= '0' && s[0] <= '9' {
			continue
		}
		code := strings.ContainsRune(s, '_')
		for k := 1; k < len(id) && !code; k++ {
			if camelBreak(id, k) || id[k] >= '0' && id[k] <= '9' && id[k-1] >= 'a' && id[k-1] <= 'z' {
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
		if code && !literalWords[s] && !seen[s] && utf8.ValidString(s) {
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
func sentenceStart(b string, i int) bool {
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
