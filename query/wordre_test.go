package query

import (
	"slices"
	"strings"
	"testing"
)

// wordREs are the package's expressions read at their first words.
func wordREs() []wordRE {
	out := []wordRE{insteadRE, expectedRE, statusRE, behaviourInsteadRE, explainRE, usesRE, asksUsesRE}
	for _, c := range cueTable {
		out = append(out, c.re)
	}
	return out
}

// sameAsRegexp fails when a hand reading or a wordRE of the package
// answers otherwise on text than the expression it stands for.
func sameAsRegexp(t *testing.T, text string) {
	t.Helper()
	idx := indexWords(text)
	for _, w := range wordREs() {
		for _, n := range []int{1, 3, 5} {
			if got, want := w.count(text, idx, n), len(w.re.FindAllStringIndex(text, n)); got != want {
				t.Fatalf("%s on %.80q, n %d: %d matches, the expression %d", w.re, text, n, got, want)
			}
		}
		if got, want := w.matchString(text, idx), w.re.MatchString(text); got != want {
			t.Fatalf("%s on %.80q: match %v, the expression %v", w.re, text, got, want)
		}
	}
	if got, want := traceLines(text), len(traceLine.FindAllStringIndex(text, 2)); got != want {
		t.Fatalf("traceLines(%.80q) = %d, the expression %d", text, got, want)
	}
	m, ok := broken(text)
	if want := brokenRE.FindStringIndex(text); ok != (want != nil) || ok && m != text[want[0]:want[1]] {
		t.Fatalf("broken(%.80q) = %q %v, the expression %v", text, m, ok, want)
	}
	for rest := text; ; {
		start, end := clauseEnd(rest)
		want := clauseRE.FindStringIndex(rest)
		if want == nil {
			if start != -1 {
				t.Fatalf("clauseEnd(%.80q) = %d, %d, the expression none", rest, start, end)
			}
			break
		}
		if start != want[0] || end != want[1] {
			t.Fatalf("clauseEnd(%.80q) = %d, %d, the expression %v", rest, start, end, want)
		}
		clause := strings.TrimSpace(rest[:start])
		if got, want := politeEnd(clause), len(politeRE.FindString(clause)); got != want {
			t.Fatalf("politeEnd(%.80q) = %d, the expression %d", clause, got, want)
		}
		rest = rest[end:]
	}
	if got, want := qualifiedNames(text), qualifiedRE.FindAllString(text, -1); !slices.Equal(got, want) {
		t.Fatalf("qualifiedNames(%.80q) = %q, the expression %q", text, got, want)
	}
	if got, want := genericFrames(text), traceRes[6].re.FindAllStringSubmatchIndex(text, -1); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("genericFrames(%.80q) = %v, the expression %v", text, got, want)
	}
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && pathBytes[text[j]] {
			j++
		}
		if j == i {
			i++
			continue
		}
		got := pathTokens(text[i:j])
		want := pathTokenRe.FindAllStringIndex(text[i:j], -1)
		if !slices.EqualFunc(got, want, func(a [2]int, b []int) bool { return a[0] == b[0] && a[1] == b[1] }) {
			t.Fatalf("pathTokens(%.80q) = %v, the expression %v", text[i:j], got, want)
		}
		i = j
	}
	first := leadingWord(text)
	if got, want := imperativeVerbs[first], imperativeRE.MatchString(text); got != want {
		t.Fatalf("imperative %.80q: %v, the expression %v", text, got, want)
	}
	if got, want := questionWords[first], questionRE.MatchString(text); got != want {
		t.Fatalf("question %.80q: %v, the expression %v", text, got, want)
	}
	if got, want := modal(text), modalRE.MatchString(text); got != want {
		t.Fatalf("modal %.80q: %v, the expression %v", text, got, want)
	}
}

// TestReadByHandAsRegexp: the expressions read at their first words and
// the ones read by hand (clauses, polite prefixes, brokenRE, trace lines,
// verbs) answer as the expressions over the whole text, on long logs of
// every trace shape and at the edges (a match at a line's ends, CRLF, no
// newline, one long line).
func TestReadByHandAsRegexp(t *testing.T) {
	ci := "--- FAIL: TestServe (0.01s)\n    server_test.go:41: got 500, want 200 from config/.npmrc at /home/ci/build/pkg/server.go:88\n"
	py := "Traceback (most recent call last):\n  File \"app/db.py\", line 12, in connect\n    raise ValueError(\"bad\")\nValueError: bad\n"
	js := "TypeError: x is undefined\n    at render (/app/src/view.js:10:5)\n    at file:///app/x.mjs:1:2\n"
	java := "Exception in thread \"main\" java.lang.NullPointerException\n\tat com.example.Foo.bar(Foo.java:42)\n"
	rs := "thread 'main' panicked at src/main.rs:10:5:\nerror[E0308]: mismatched types\n --> src/lib.rs:3:9\n"
	prose := "Why does the router return 404 instead of 405? Expected 405 but got 404; please fix the failing test and add tests for it, then refactor and move parse into util.go. It does not work and never did; explain how it is split. The client gives 502 rather than retrying. Where is parse used? who calls it, and what's wrong"
	for _, tc := range []struct{ name, text string }{
		{"empty", ""},
		{"ci log", strings.Repeat(ci, 100)},
		{"traces", strings.Repeat(py+js+java+rs, 20)},
		{"crlf", strings.ReplaceAll(strings.Repeat(py+js+prose+"\n", 20), "\n", "\r\n")},
		{"prose", prose},
		{"prose on lines", strings.ReplaceAll(prose, " ", "\n")},
		{"one long line", strings.Repeat(strings.ReplaceAll(ci+py, "\n", " "), 50)},
		{"edges", "fix\nfix\n\nfail\nfails\nfailed test\n\nmove x\nto y\nmove a to b\n \nand then\t\nthen x ,. , ..\n"},
		{"no newline at the end", "the test fails"},
		{"generic frames", "C:/a.go:1 xC:/b.py:2:3 a.b:1 ab.c:x a.b.c:12:34:56 -.x:1 foo.toolongext:3 x/.y:4 @a.b:5 :1 a.b:\nc.d:7"},
		{"paths", "a/b c.py x/y.toolongextension a.b.c/d.e ./x .env ..foo.py a//b /a/b @x/y.js ~/.npmrc a.b/c/ x.Y1 -/.a a/b.c/d\\e.f"},
		{"qualified", "a.b c::d e#f $g.$h x:::y 9a.b a.1 _.x Server.Shutdown() requests.utils.get_netrc_auth a..b a.b.c.d#e::f"},
		{"negations", "it doesn't\nwork, don't\tnot, isnt ok, cannot, won't, wont x, is not\n\nsupported, does  not  matter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sameAsRegexp(t, tc.text)
			sameAsRegexp(t, strings.ToLower(tc.text))
		})
	}
}

// TestFirstWords: each expression's first words, as newWordRE finds
// them.
func TestFirstWords(t *testing.T) {
	for _, tc := range []struct {
		re   wordRE
		want []string
	}{
		{explainRE, []string{"how", "explain", "what", "why", "walk", "overview", "documentation", "docs"}},
		{asksUsesRE, []string{"callers", "usages", "who", "what", "call", "callsites", "references", "where"}},
		{newWordRE(`\bdoesn'?t work\b`), []string{"doesn", "doesnt"}},
		{newWordRE(`\bcrash(es|ed|ing)?\b`), []string{"crashes", "crashed", "crashing", "crash"}},
	} {
		got := slices.Clone(tc.re.first)
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: first words %q, want %q", tc.re.re, got, want)
		}
	}
}

// FuzzReadByHand: on any text the hand readings answer as the
// expressions.
func FuzzReadByHand(f *testing.F) {
	for _, s := range []string{"fix the failing test\n", "File \"a.py\", line 3, in f\n", "at f (/a.js:1:2)\nmove a\nto b", "expected 1\nbut got 2", "returns 404 instead of 405", "a.go:1 x\n  at f(b.js:2:3)", "don't \n and then: x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sameAsRegexp(t, text)
	})
}
