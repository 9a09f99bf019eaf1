package symbols

import (
	"regexp"
	"strings"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/lang"
)

// Match is a definition that a request identifier names.
type Match struct {
	// Query is the identifier as the request wrote it.
	Query string
	Def   index.Def
	// How is "qualified" (Type.method matched name and parent), "exact"
	// (the name as written) or "variant" (the same name in another case
	// style: merge_environment_settings ~ mergeEnvironmentSettings).
	How string
}

// Matches returns the definitions of e that the identifiers name, the
// strongest way each definition matched, in e's order. An identifier may
// be qualified ("Server.Shutdown", "Session::merge", "pkg/Func"): then
// only a definition with that name and that parent matches it, or, for a
// top-level definition, a name whose qualifier is a package or module
// (the caller cannot tell which: both count).
func Matches(e *index.Symbols, ids []string) []Match {
	if e == nil || len(ids) == 0 {
		return nil
	}
	type query struct {
		raw, qual, name, fold string
	}
	qs := make([]query, 0, len(ids))
	for _, id := range ids {
		qual, name := SplitQualified(id)
		if name == "" {
			continue
		}
		qs = append(qs, query{raw: id, qual: qual, name: name, fold: Fold(name)})
	}
	var out []Match
	for _, d := range e.Defs {
		best, rank := Match{}, 0
		for _, q := range qs {
			r := 0
			switch {
			case q.qual != "" && d.Name == q.name && d.Parent == q.qual:
				r = 3
			case q.qual != "" && d.Parent != "":
				// A qualified request names another type's member.
			case d.Name == q.name:
				r = 2
			case len(q.fold) >= 4 && Fold(d.Name) == q.fold:
				r = 1
			}
			if r > rank {
				best, rank = Match{Query: q.raw, Def: d, How: [...]string{"", "variant", "exact", "qualified"}[r]}, r
			}
		}
		if rank > 0 {
			out = append(out, best)
		}
	}
	return out
}

// SplitQualified splits "A.b", "a::b", "a#b" or "a/b" into qualifier (its
// last part: "x.Server.Shutdown" → "Server") and name.
func SplitQualified(s string) (qual, name string) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "()"))
	i := strings.LastIndexAny(s, ".:/#")
	if i < 0 {
		return "", s
	}
	qual, name = strings.TrimRight(s[:i], ":"), s[i+1:]
	if j := strings.LastIndexAny(qual, ".:/#"); j >= 0 {
		qual = qual[j+1:]
	}
	return qual, name
}

// qualifiedRE finds dotted and scoped names: Server.Shutdown,
// requests.Session.merge_environment_settings, Store::open, Foo#bar.
var qualifiedRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)+`)

// Qualified returns the qualified names a request writes ("rename
// Session.merge_environment_settings" gives
// Session.merge_environment_settings), leaving out what reads as a file
// name (server.go, index.test.ts).
func Qualified(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range qualifiedRE.FindAllString(text, -1) {
		if seen[s] || lang.Of(s) != "" {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}
