package tokens

import (
	"unicode"
	"unicode/utf8"
)

// This file splits text into the pieces tiktoken's patterns would match,
// without a regexp engine. The patterns (bpe.go: cl100kPattern,
// o200kPattern) are ordered alternations run by a backtracking matcher;
// each function below decides, at one position, which alternative
// matches first and where it ends, as the matcher would. FuzzPretokenize
// checks the result against regexp2 running the patterns themselves.
//
// Character classes, as regexp2 defines them: \s is unicode.IsSpace,
// \p{X} the unicode package's category tables.

// Character class bits.
const (
	clsL  = 1 << iota // \p{L}
	clsN              // \p{N}
	clsS              // \s
	clsNL             // \r or \n
	clsU              // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k's "upper" letters)
	clsW              // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k's "lower" letters)
)

// asciiClass holds the classes of the ASCII characters.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = classOfSlow(r)
	}
	return t
}()

func classOfSlow(r rune) uint8 {
	var c uint8
	if unicode.IsLetter(r) {
		c |= clsL
	}
	if unicode.IsNumber(r) {
		c |= clsN
	}
	if unicode.IsSpace(r) {
		c |= clsS
	}
	if r == '\r' || r == '\n' {
		c |= clsNL
	}
	isM := unicode.Is(unicode.M, r)
	if isM || unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
		c |= clsU
	}
	if isM || unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
		c |= clsW
	}
	return c
}

// scanner reads classes of text's runes by byte offset.
type scanner struct {
	text string
}

// at returns the class and size of the rune at byte offset i; size 0 at
// the end of the text.
func (s scanner) at(i int) (uint8, int) {
	if i >= len(s.text) {
		return 0, 0
	}
	if b := s.text[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s.text[i:])
	return classOfSlow(r), n
}

// run returns the end of the longest run from i of runes whose class has
// one of the bits of want.
func (s scanner) run(i int, want uint8) int {
	for {
		c, n := s.at(i)
		if n == 0 || c&want == 0 {
			return i
		}
		i += n
	}
}

// contraction returns the end of a contraction ('s 't 're 've 'm 'll 'd,
// case-insensitive as regexp2 folds: s also matches ſ) at i, or i.
func (s scanner) contraction(i int) int {
	t := s.text[i:]
	if len(t) < 2 || t[0] != '\'' {
		return i
	}
	lower := func(b byte) byte { return b | 0x20 }
	switch c := lower(t[1]); {
	case c == 's' || c == 't' || c == 'm' || c == 'd':
		if t[1] < utf8.RuneSelf {
			return i + 2
		}
	case c == 'r' || c == 'v':
		if len(t) >= 3 && t[1] < utf8.RuneSelf && lower(t[2]) == 'e' && t[2] < utf8.RuneSelf {
			return i + 3
		}
	case c == 'l':
		if len(t) >= 3 && t[1] < utf8.RuneSelf && lower(t[2]) == 'l' && t[2] < utf8.RuneSelf {
			return i + 3
		}
	}
	if len(t) >= 3 && t[1:3] == "ſ" { // U+017F folds to s
		return i + 3
	}
	return i
}

// whitespace matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where text[i] is
// whitespace, and returns the end.
func (s scanner) whitespace(i int) int {
	// The maximal whitespace run, and where its last newline ends.
	end, lastNL := i, -1
	for {
		c, n := s.at(end)
		if n == 0 || c&clsS == 0 {
			break
		}
		if c&clsNL != 0 {
			lastNL = end + n
		}
		end += n
	}
	if lastNL >= 0 {
		return lastNL // \s*[\r\n]+: up to the run's last newline
	}
	if end == len(s.text) {
		return end // \s+(?!\S) at the end of the text
	}
	// \s+(?!\S) gives back the last whitespace character, so the next
	// piece can start with it (" word"); \s+ takes a lone one.
	_, lastSize := utf8.DecodeLastRuneInString(s.text[i:end])
	if end-lastSize > i {
		return end - lastSize
	}
	return end
}

// punctuation matches " ?[^\s\p{L}\p{N}]+" followed by a run of the
// bytes in tail, at i; it returns i when it does not match.
func (s scanner) punctuation(i int, tail string) int {
	j := i
	if s.text[j] == ' ' {
		j++
	}
	c, n := s.at(j)
	if n == 0 || c&(clsS|clsL|clsN) != 0 {
		return i
	}
	j = s.runNot(j, clsS|clsL|clsN)
	for j < len(s.text) && indexByte(tail, s.text[j]) {
		j++
	}
	return j
}

func indexByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// runNot returns the end of the longest run from i of runes with none of
// the bits of avoid.
func (s scanner) runNot(i int, avoid uint8) int {
	for {
		c, n := s.at(i)
		if n == 0 || c&avoid != 0 {
			return i
		}
		i += n
	}
}

// digits matches \p{N}{1,3} at i (text[i] is a number).
func (s scanner) digits(i int) int {
	for k := 0; k < 3; k++ {
		c, n := s.at(i)
		if n == 0 || c&clsN == 0 {
			break
		}
		i += n
	}
	return i
}

// isPrefix reports whether a class fits [^\r\n\p{L}\p{N}].
func isPrefix(c uint8) bool { return c&(clsNL|clsL|clsN) == 0 }

// splitCl100k calls f with each piece of cl100k_base's pattern:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitCl100k(text string, f func(string)) { splitBy(scanner.cl100kAt, text, f) }

// splitBy calls f with each piece of text, pieceAt giving the end of the
// piece at a byte offset.
func splitBy(pieceAt func(scanner, int) int, text string, f func(string)) {
	s := scanner{text}
	for i := 0; i < len(text); {
		end := pieceAt(s, i)
		f(text[i:end])
		i = end
	}
}

func (s scanner) cl100kAt(i int) int {
	if e := s.contraction(i); e > i {
		return e
	}
	c, n := s.at(i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c&clsL != 0 {
		return s.run(i, clsL)
	}
	if isPrefix(c) {
		if c2, n2 := s.at(i + n); n2 > 0 && c2&clsL != 0 {
			return s.run(i+n, clsL)
		}
	}
	return s.rest(i, c, n, "\r\n")
}

// rest matches the alternatives both patterns end with, at i, where the
// character c of n bytes starts no word: \p{N}{1,3}, then
// " ?[^\s\p{L}\p{N}]+" followed by a run of trail's bytes (cl100k's
// [\r\n]*, o200k's [\r\n/]*), then whitespace.
func (s scanner) rest(i int, c uint8, n int, trail string) int {
	if c&clsN != 0 {
		return s.digits(i)
	}
	if e := s.punctuation(i, trail); e > i {
		return e
	}
	if c&clsS != 0 {
		return s.whitespace(i)
	}
	// Unreachable: every character is a letter, a number, whitespace or
	// matched by [^\s\p{L}\p{N}]. Take one rune rather than loop.
	return i + n
}

// splitO200k calls f with each piece of o200k_base's pattern:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|…)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|…)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitO200k(text string, f func(string)) { splitBy(scanner.o200kAt, text, f) }

func (s scanner) o200kAt(i int) int {
	if e := s.o200kASCII(i); e > i {
		return e
	}
	c, n := s.at(i)
	// The word alternatives: the optional prefix is tried taken, then
	// not taken, for the first alternative, then the same for the second.
	// Not taken, the match starts at i, where only a mark (in the prefix
	// class and in both letter classes) can begin it.
	prefixed := isPrefix(c)
	if prefixed {
		if e := s.o200kLower(i + n); e > i+n {
			return s.contraction(e)
		}
	}
	if e := s.o200kLower(i); e > i {
		return s.contraction(e)
	}
	if prefixed {
		if e := s.o200kUpper(i + n); e > i+n {
			return s.contraction(e)
		}
	}
	if e := s.o200kUpper(i); e > i {
		return s.contraction(e)
	}
	return s.rest(i, c, n, "\r\n/")
}

// o200kLower matches [U]*[W]+ at st (U and W as clsU, clsW) and returns
// its end, or st. A backtracking matcher takes the longest U run, then
// gives characters back until a W can start: the run's end when a W
// follows it, else just after the last character of the run that is also
// in W (Lm, Lo and M are in both).
func (s scanner) o200kLower(st int) int {
	e := s.run(st, clsU)
	if c, n := s.at(e); n > 0 && c&clsW != 0 {
		return s.run(e, clsW)
	}
	last := -1
	for j := st; j < e; {
		c, n := s.at(j)
		if c&clsW != 0 {
			last = j + n
		}
		j += n
	}
	if last < 0 {
		return st
	}
	return last
}

// o200kUpper matches [U]+[W]* at st and returns its end, or st.
func (s scanner) o200kUpper(st int) int {
	e := s.run(st, clsU)
	if e == st {
		return st
	}
	return s.run(e, clsW)
}

// ASCII letters, for o200kASCII.
var asciiUpper, asciiLower = func() (up, low [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		up[c], low[c+'a'-'A'] = true, true
	}
	return up, low
}()

// o200kASCII is o200kAt for a piece whose characters, and the one after
// it, are ASCII: most pieces of code and English. It returns the piece's
// end, or i when a rune at or after i may change the match (the general
// matcher decides then). In ASCII the first word alternative, [U]*[W]+,
// matches when lowercase letters follow the uppercase run; the second,
// [U]+[W]*, when they do not and the run is not empty; no uppercase
// letter is in W, so the general matcher's giving back never applies.
func (s scanner) o200kASCII(i int) int {
	t := s.text
	c := t[i]
	if c >= utf8.RuneSelf {
		return i
	}
	cls := asciiClass[c]
	j := i
	if isPrefix(cls) {
		j++ // the prefix is taken when a word follows
	}
	if j < len(t) && t[j] >= utf8.RuneSelf {
		return i // a letter or a mark may start the word
	}
	u := j
	for u < len(t) && asciiUpper[t[u]] {
		u++
	}
	e := u
	for e < len(t) && asciiLower[t[e]] {
		e++
	}
	if e > j {
		if e < len(t) && t[e] >= utf8.RuneSelf {
			return i // a rune that may continue the word
		}
		return s.contraction(e)
	}
	switch {
	case cls&clsN != 0: // \p{N}{1,3}
		e = i + 1
		for e < len(t) && e < i+3 && t[e] >= '0' && t[e] <= '9' {
			e++
		}
		if e < len(t) && e < i+3 && t[e] >= utf8.RuneSelf {
			return i // a number rune may continue the run
		}
		return e
	case cls&clsS == 0 || c == ' ' && i+1 < len(t) && t[i+1] < utf8.RuneSelf && asciiClass[t[i+1]]&(clsS|clsL|clsN) == 0:
		// " ?[^\s\p{L}\p{N}]+[\r\n/]*": a space is taken as its prefix
		// when punctuation follows.
		e = i
		if c == ' ' {
			e++
		}
		for e < len(t) && t[e] < utf8.RuneSelf && asciiClass[t[e]]&(clsS|clsL|clsN) == 0 {
			e++
		}
		if e < len(t) && t[e] >= utf8.RuneSelf {
			return i // other punctuation may continue the run
		}
		for e < len(t) && (t[e] == '\r' || t[e] == '\n' || t[e] == '/') {
			e++
		}
		return e
	}
	// Whitespace: the ASCII run must end in ASCII (or the text), since a
	// Unicode space would lengthen it.
	e = i
	for e < len(t) && t[e] < utf8.RuneSelf && asciiClass[t[e]]&clsS != 0 {
		e++
	}
	if e < len(t) && t[e] >= utf8.RuneSelf {
		return i
	}
	return s.whitespace(i)
}
