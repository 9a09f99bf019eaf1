// Package ident finds identifiers in text by bytes: the one definition of
// an identifier byte that the engine's reference lines and the fitter's
// outline cut share.
package ident

import "strings"

// Byte reports bytes that belong to identifiers: letters, digits, '_',
// '$', and every byte of a multi-byte UTF-8 sequence (so a name in
// another script stays whole).
func Byte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Index returns the first index of name in s as a whole identifier (no
// identifier byte on either side), -1 when there is none.
func Index(s, name string) int {
	if name == "" {
		return -1
	}
	for from := 0; ; {
		i := strings.Index(s[from:], name)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(name)
		if (i == 0 || !Byte(s[i-1])) && (end == len(s) || !Byte(s[end])) {
			return i
		}
		from = i + 1
	}
}
