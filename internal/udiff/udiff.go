// Package udiff reads the hunk header of a unified diff, "@@ -a,b +c,d @@",
// for the readers of git's diffs (package eval's changed lines, package
// tree's line histories). Its input is untrusted (a repository's diff,
// a pasted patch): a header that is not exactly of the form is refused,
// never half read.
package udiff

import "strings"

// Range is one side of a hunk: Lines lines from line Start (1-based; for
// an empty side, Lines 0, the line before the hunk, 0 at the top).
type Range struct{ Start, Lines int }

// HunkHeader reads a hunk header line "@@ -a[,b] +c[,d] @@..." (a count
// left out is 1; anything may follow the closing "@@", git writes the
// enclosing function there). ok is false, and the ranges zero, unless
// the line starts exactly so with decimal numbers that fit in an int.
func HunkHeader(line string) (old, new Range, ok bool) {
	s, found := strings.CutPrefix(line, "@@ -")
	if !found {
		return Range{}, Range{}, false
	}
	if old, s, ok = side(s); !ok {
		return Range{}, Range{}, false
	}
	if s, found = strings.CutPrefix(s, " +"); !found {
		return Range{}, Range{}, false
	}
	if new, s, ok = side(s); !ok || !strings.HasPrefix(s, " @@") {
		return Range{}, Range{}, false
	}
	return old, new, true
}

// side reads "l[,n]" at the front of s and returns the rest.
func side(s string) (Range, string, bool) {
	start, s, ok := number(s)
	if !ok {
		return Range{}, "", false
	}
	r := Range{Start: start, Lines: 1}
	if rest, found := strings.CutPrefix(s, ","); found {
		if r.Lines, s, ok = number(rest); !ok {
			return Range{}, "", false
		}
	}
	return r, s, true
}

// maxNumber bounds a header's number: ten decimal digits below any
// int's overflow (a diff's line counts are far smaller).
const maxNumber = 1<<31 - 1

// number reads one or more decimal digits at the front of s.
func number(s string) (int, string, bool) {
	n, i := 0, 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > maxNumber {
			return 0, "", false
		}
	}
	return n, s[i:], i > 0
}
