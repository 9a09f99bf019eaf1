package query

import (
	"regexp"
	"strings"

	"github.com/ctxd/ctxd/lang"
)

// SplitQualified splits "A.b", "a::b", "a#b" or "a/b" into qualifier (its
// last part: "x.Server.Shutdown" → "Server", "net/http.Get" → "http") and
// name. It is the one splitter of qualified names: the request's and the
// symbol index's; a symbol request (ctxd symbol, ctx/findSymbol) splits
// through engine's splitSymbol, which keeps a JavaScript private name's #
// and calls it for the rest.
func SplitQualified(s string) (qual, name string) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		s = strings.TrimSpace(s[:i]) // f() and f(x, y) name f
	}
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
// requests.Session.merge_environment_settings, Store::open, Foo#bar; their
// parts are code names ($ included: $scope.apply), see IsNameByte.
var qualifiedRE = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|#)[A-Za-z_$][A-Za-z0-9_$]*)+`)

// qualified returns the qualified names a request writes ("rename
// Session.merge_environment_settings" gives
// Session.merge_environment_settings), leaving out what reads as a file
// name (server.go, index.test.ts).
//
// Every match of qualifiedRE is made of name bytes and separators and
// looks at nothing around it, so it runs on each run of them that holds
// a separator before a name's first byte.
func qualified(text string) []string {
	var out []string
	seen := map[string]bool{}
	eachRun(text, &qualifiedBytes, func(run string, _ int) {
		if !mayBeQualified(run) {
			return
		}
		for _, s := range qualifiedNames(run) {
			if seen[s] || lang.Of(s) != "" {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
	})
	return out
}

// qualifiedNames is qualifiedRE.FindAllString(run, -1) read by hand: a
// name (a letter, '_' or '$', then name bytes), then as many separators
// ('.', "::", '#') each before a name as follow; a name no separator
// follows starts no match, nor does any byte inside it.
func qualifiedNames(run string) []string {
	start := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_' || c == '$' }
	part := func(c byte) bool { return start(c) || c >= '0' && c <= '9' }
	name := func(i int) int { // the end of the name at i
		for i < len(run) && part(run[i]) {
			i++
		}
		return i
	}
	var out []string
	for i := 0; i < len(run); {
		if !start(run[i]) {
			i++
			continue
		}
		end, parts := name(i), 0
		for {
			sep := 0
			switch {
			case end < len(run) && (run[end] == '.' || run[end] == '#'):
				sep = 1
			case strings.HasPrefix(run[end:], "::"):
				sep = 2
			}
			if sep == 0 || end+sep >= len(run) || !start(run[end+sep]) {
				break
			}
			end, parts = name(end+sep), parts+1
		}
		if parts > 0 {
			out = append(out, run[i:end])
		}
		i = end
	}
	return out
}

// qualifiedBytes are the bytes of qualifiedRE's matches.
var qualifiedBytes = wordBytesAnd("$.:#")

// mayBeQualified reports a run that holds a '.', ':' or '#' before an
// ASCII letter, '_' or '$': what a match of qualifiedRE needs.
func mayBeQualified(run string) bool {
	for k := 0; k+1 < len(run); k++ {
		if c := run[k]; c == '.' || c == ':' || c == '#' {
			if n := run[k+1]; n|0x20 >= 'a' && n|0x20 <= 'z' || n == '_' || n == '$' {
				return true
			}
		}
	}
	return false
}

// qualifiers returns the non-final parts of qualified names: requests and
// utils of requests.utils.get_netrc_auth, Request of Request.hooks.
func qualifiers(names []string) map[string]bool {
	quals := map[string]bool{}
	for _, q := range names {
		parts := strings.FieldsFunc(q, func(r rune) bool { return r == '.' || r == ':' || r == '#' })
		for _, p := range parts[:max(len(parts)-1, 0)] {
			quals[p] = true
		}
	}
	return quals
}
