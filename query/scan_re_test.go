package query

import (
	"slices"
	"strings"
	"testing"
)

// lineREs are the package's line-read expressions: the task cues, the
// stack-trace frames and the bug-report phrases.
func lineREs() []lineRE {
	return []lineRE{insteadRE, expectedRE, statusRE, behaviourInsteadRE}
}

// sameAsRegexp fails when a lineRE's matches on text differ from its
// expression's over the whole text.
func sameAsRegexp(t *testing.T, text string) {
	t.Helper()
	for _, l := range lineREs() {
		for _, n := range []int{1, 3, 5} {
			if got, want := l.findAllIndex(text, n), l.re.FindAllStringIndex(text, n); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s on %.80q, n %d: %v, the expression %v", l.re, text, n, got, want)
			}
		}
		if got, want := l.findAllSubmatchIndex(text, -1), l.re.FindAllStringSubmatchIndex(text, -1); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%s on %.80q: submatches %v, the expression %v", l.re, text, got, want)
		}
		if got, want := l.matchString(text), l.re.MatchString(text); got != want {
			t.Fatalf("%s on %.80q: match %v, the expression %v", l.re, text, got, want)
		}
	}
}

// TestLineREAsRegexp: reading only the lines that hold a required
// literal finds what the expression finds over the whole text (so Parse's
// output is unchanged), on long logs of every trace shape and at the
// edges (a match at a line's ends, CRLF, no newline, one long line); and
// the task cues are read that way (each has its literals).
func TestLineREAsRegexp(t *testing.T) {
	ci := "--- FAIL: TestServe (0.01s)\n    server_test.go:41: got 500, want 200 from config/.npmrc at /home/ci/build/pkg/server.go:88\n"
	py := "Traceback (most recent call last):\n  File \"app/db.py\", line 12, in connect\n    raise ValueError(\"bad\")\nValueError: bad\n"
	js := "TypeError: x is undefined\n    at render (/app/src/view.js:10:5)\n    at file:///app/x.mjs:1:2\n"
	java := "Exception in thread \"main\" java.lang.NullPointerException\n\tat com.example.Foo.bar(Foo.java:42)\n"
	rs := "thread 'main' panicked at src/main.rs:10:5:\nerror[E0308]: mismatched types\n --> src/lib.rs:3:9\n"
	prose := "Why does the router return 404 instead of 405? Expected 405 but got 404; please fix the failing test and add tests for it, then refactor and move parse into util.go. It does not work and never did; explain how it is split. The client gives 502 rather than retrying"
	for _, tc := range []struct{ name, text string }{
		{"empty", ""},
		{"ci log", strings.Repeat(ci, 100)},
		{"traces", strings.Repeat(py+js+java+rs, 20)},
		{"crlf", strings.ReplaceAll(strings.Repeat(py+js+prose+"\n", 20), "\n", "\r\n")},
		{"prose", prose},
		{"prose on lines", strings.ReplaceAll(prose, " ", "\n")},
		{"one long line", strings.Repeat(strings.ReplaceAll(ci+py, "\n", " "), 50)},
		{"edges", "fix\nfix\n\nfail\nfails\nfailed test\n\nmove x\nto y\nmove a to b\n"},
		{"no newline at the end", "the test fails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sameAsRegexp(t, tc.text)
			sameAsRegexp(t, strings.ToLower(tc.text))
		})
	}
}

// FuzzLineRE: on any text a lineRE finds what its expression finds.
func FuzzLineRE(f *testing.F) {
	for _, s := range []string{"fix the failing test\n", "File \"a.py\", line 3, in f\n", "at f (/a.js:1:2)\nmove a\nto b", "expected 1\nbut got 2", "returns 404 instead of 405"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sameAsRegexp(t, text)
	})
}
