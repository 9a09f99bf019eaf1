package symbols

import (
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/query"
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
	type wanted struct {
		raw, qual, name, fold string
	}
	qs := make([]wanted, 0, len(ids))
	for _, id := range ids {
		qual, name := query.SplitQualified(id)
		if name == "" {
			continue
		}
		qs = append(qs, wanted{raw: id, qual: qual, name: name, fold: Fold(name)})
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
