// Package editdist measures how far apart two names are, for "did you
// mean" suggestions (config keys, params fields, commands, flags, model
// names): one distance and one choice of the nearest name, each caller
// giving only how far it lets a typo go.
package editdist

import (
	"cmp"

	"github.com/ctxd/ctxd/internal/vsort"
)

// Distance is the Levenshtein distance of a and b, by bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Within says how many edits a candidate may be from the mistyped name and
// still be offered. It is asked per candidate, so a rule may depend on it
// (a candidate the name is a prefix of may lie one edit further).
type Within func(candidate string) int

// Edits is the rule "at most n edits from any candidate".
func Edits(n int) Within { return func(string) int { return n } }

// Nearest is the name among names that name most likely meant: the one
// fewest edits away among those within reach ("" when none is). Ties go to
// the name that sorts first, so the answer never depends on the order
// names come in (a map's, a struct's).
func Nearest(name string, names []string, within Within) string {
	if r := Ranked(name, names, within); len(r) > 0 {
		return r[0]
	}
	return ""
}

// Ranked is every name within reach of name, nearest first and, at equal
// distance, in sorted order; a name listed twice is offered once.
func Ranked(name string, names []string, within Within) []string {
	type near struct {
		name string
		d    int
	}
	var nears []near
	for _, n := range names {
		if d := Distance(name, n); d <= within(n) {
			nears = append(nears, near{n, d})
		}
	}
	vsort.Func(nears, func(a, b near) int {
		return cmp.Or(a.d-b.d, cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, len(nears))
	for i, n := range nears {
		if i == 0 || n.name != nears[i-1].name {
			out = append(out, n.name)
		}
	}
	return out
}
