package tokens

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
)

// truncateCounters are the counters TruncateMiddle is checked with: both
// exact encodings and an estimator (whose counts are not additive).
func truncateCounters(t testing.TB) []Counter {
	t.Helper()
	cl, _ := Get(Cl100kBase)
	o, _ := Get(O200kBase)
	est, _ := ForModel("claude-sonnet-4.5", 0)
	return []Counter{cl, o, est}
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

func TestTruncateMiddle(t *testing.T) {
	text := numberedLines(200)
	tests := []struct {
		name      string
		text      string
		max       int
		unchanged bool
		wantEmpty bool
		head      string // the result starts with it
		tail      string // the result ends with it
		marker    bool
	}{
		{name: "fits", text: "hello world", max: 10, unchanged: true},
		{name: "empty", text: "", max: 10, unchanged: true},
		{name: "zero budget", text: "hello world", max: 0, wantEmpty: true},
		{name: "negative budget", text: "hello world", max: -5, wantEmpty: true},
		{name: "zero budget empty text", text: "", max: 0, unchanged: true},
		{name: "lines", text: text, max: 300, head: "line 1: the quick", tail: "line 200: the quick brown fox jumps over the lazy dog\n", marker: true},
		{name: "tiny budget: head only", text: text, max: 5, head: "line 1"},
		{name: "one long line", text: strings.Repeat("abcdefghij ", 20000), max: 500, head: "abcdefghij", tail: "abcdefghij ", marker: true},
		{name: "cjk", text: strings.Repeat("日本語のテキストです。", 3000), max: 400, head: "日本語", tail: "です。", marker: true},
		{name: "emoji", text: strings.Repeat("👋🌍🎉", 5000), max: 300, head: "👋", tail: "🎉", marker: true},
	}
	for _, c := range truncateCounters(t) {
		for _, tt := range tests {
			t.Run(c.Encoding()+"/"+tt.name, func(t *testing.T) {
				got := truncateMiddle(c, tt.text, tt.max)
				checkTruncation(t, c, tt.text, got, tt.max)
				switch {
				case tt.unchanged && got != tt.text:
					t.Errorf("got %q, want the text unchanged", got)
				case tt.wantEmpty && got != "":
					t.Errorf("got %q, want \"\"", got)
				}
				if !strings.HasPrefix(got, tt.head) {
					t.Errorf("result does not start with %q: %.80q", tt.head, got)
				}
				if !strings.HasSuffix(got, tt.tail) {
					t.Errorf("result does not end with %q: …%q", tt.tail, got[max(0, len(got)-80):])
				}
				if tt.marker && !strings.Contains(got, " chars elided] ...\n") {
					t.Errorf("no marker in %.200q", got)
				}
				if tt.marker && c.Count(got) < tt.max*8/10 {
					t.Errorf("result uses %d of %d tokens; want most of the budget", c.Count(got), tt.max)
				}
			})
		}
	}
}

// checkTruncation asserts the properties every result has.
func checkTruncation(t *testing.T, c Counter, in, out string, max int) {
	t.Helper()
	if n := c.Count(out); n > max && out != "" {
		t.Fatalf("result counts %d tokens, budget %d", n, max)
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("valid UTF-8 in, invalid out: %q", out)
	}
}

func TestMiddleLinesAndRatio(t *testing.T) {
	c, _ := Get(Cl100kBase)
	text := numberedLines(1000)
	tests := []struct {
		name       string
		ratio      float64
		minHeadPct float64 // share of kept lines that come from the head
		maxHeadPct float64
	}{
		{"default 60/40", 0, 0.5, 0.7},
		{"more tail", 0.7, 0.2, 0.4},
		{"out of range ratio means default", 3, 0.5, 0.7},
		{"NaN ratio means default", math.NaN(), 0.5, 0.7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Middle(c, text, 1000, MiddleOptions{TailRatio: tt.ratio})
			if !r.Truncated || r.Tokens != c.Count(r.Text) || r.Tokens > 1000 {
				t.Fatalf("Truncated=%v Tokens=%d (count %d)", r.Truncated, r.Tokens, c.Count(r.Text))
			}
			head, tail, ok := strings.Cut(r.Text, "... [")
			if !ok {
				t.Fatalf("no marker: %q", r.Text)
			}
			hl, tl := strings.Count(head, "\n"), strings.Count(tail, "\n")-1
			share := float64(hl) / float64(hl+tl)
			if share < tt.minHeadPct || share > tt.maxHeadPct {
				t.Errorf("head keeps %d lines, tail %d: head share %.2f, want %.2f..%.2f", hl, tl, share, tt.minHeadPct, tt.maxHeadPct)
			}
			// Line-aligned: the elided range is exactly the missing lines.
			want := ctxd.LineRange{Start: hl + 1, End: 1000 - tl}
			if r.Elided != want {
				t.Errorf("Elided = %+v, want %+v", r.Elided, want)
			}
			marker := fmt.Sprintf("... [%d lines, ", want.End-want.Start+1)
			if !strings.Contains(r.Text, marker) {
				t.Errorf("marker does not say %q: %q", marker, r.Text[len(head):len(head)+60])
			}
			if r.ElidedChars != utf8.RuneCountInString(text)-utf8.RuneCountInString(head)-utf8.RuneCountInString(tail[strings.IndexByte(tail, '\n')+1:]) {
				t.Errorf("ElidedChars = %d does not match the removed text", r.ElidedChars)
			}
		})
	}
}

func TestTruncateMiddleRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "\n", "\t", "é", "日", "🎉", "{", "}", "0", "9", "\r\n", "    "}
	cs := truncateCounters(t)
	for i := range 300 {
		var b strings.Builder
		for range rng.IntN(2000) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		text := b.String()
		max := rng.IntN(400) - 10
		c := cs[i%len(cs)]
		got := truncateMiddle(c, text, max)
		checkTruncation(t, c, text, got, max)
		if c.Count(text) <= max && got != text {
			t.Fatalf("text fits %d but was changed", max)
		}
	}
}

// TestTruncateMiddleLarge checks the cost on 1 MB inputs stays far below
// re-counting the text per step.
func TestTruncateMiddleLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("tokenizes several MB")
	}
	c, _ := Get(Cl100kBase)
	var js strings.Builder
	for i := 0; js.Len() < 1<<20; i++ {
		fmt.Fprintf(&js, "function f%d(a,b){return a.x%d+b[%q]||null};", i, i, fmt.Sprint("k", i))
	}
	inputs := map[string]string{
		"lines":         strings.Repeat("some log output line with a number 12345 and more words\n", (1<<20)/57),
		"minified line": js.String(),
		"run of a":      strings.Repeat("a", 1<<20),
	}
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			for _, max := range []int{100, 20000} {
				t0 := time.Now()
				got := truncateMiddle(c, text, max)
				took := time.Since(t0)
				checkTruncation(t, c, text, got, max)
				if n := c.Count(got); n < max*9/10 {
					t.Errorf("max %d: result uses only %d tokens", max, n)
				}
				t.Logf("max %d: %v", max, took)
			}
		})
	}
}

func FuzzTruncateMiddle(f *testing.F) {
	f.Add("hello world", 1, 0.0)
	f.Add(numberedLines(30), 40, 0.4)
	f.Add(strings.Repeat("日本語", 100), 20, 0.9)
	f.Add("a\xffb\n\xe2\x82", 2, 0.5)
	f.Add(strings.Repeat("\n", 300), 3, 0.1)
	f.Add(strings.Repeat(" ", 500)+"x", 2, 0.0)
	f.Add("", 0, 0.0)
	cs := truncateCounters(f)
	f.Fuzz(func(t *testing.T, text string, max int, ratio float64) {
		for _, c := range cs {
			r := Middle(c, text, max, MiddleOptions{TailRatio: ratio})
			checkTruncation(t, c, text, r.Text, max)
			if r.Tokens != c.Count(r.Text) {
				t.Fatalf("Tokens = %d, count %d", r.Tokens, c.Count(r.Text))
			}
			if !r.Truncated && r.Text != text {
				t.Fatalf("not truncated but changed")
			}
			checkElided(t, text, r)
		}
	})
}

var markerRE = regexp.MustCompile(`\.\.\. \[(\d+) lines?, (\d+) chars elided\] \.\.\.\n`)

// checkElided checks that a cut's marker, Elided and ElidedChars describe
// the text it removed (Middle computes them from the head and the tail
// alone): for a result with one marker, and a text without one; and for
// a head kept without a marker, that they describe the rest.
func checkElided(t *testing.T, text string, r MiddleResult) {
	t.Helper()
	ms := markerRE.FindAllStringSubmatchIndex(r.Text, -1)
	if r.Truncated && !strings.Contains(r.Text, "elided] ...") && strings.HasPrefix(text, r.Text) {
		rest := text[len(r.Text):]
		start := strings.Count(r.Text, "\n") + 1
		end := start + strings.Count(strings.TrimSuffix(rest, "\n"), "\n")
		if r.ElidedChars != utf8.RuneCountInString(rest) || r.Elided != (ctxd.LineRange{Start: start, End: end}) {
			t.Fatalf("head %q of %q: Elided %+v and ElidedChars %d, want lines %d-%d and %d chars", r.Text, text, r.Elided, r.ElidedChars, start, end, utf8.RuneCountInString(rest))
		}
		return
	}
	if !r.Truncated || len(ms) != 1 || strings.Contains(text, "elided] ...") {
		return
	}
	m := ms[0]
	tail := r.Text[m[1]:]
	// The marker's leading newline is dropped after a head that ends a
	// line: the newline before it is the head's or the marker's.
	for _, head := range []string{r.Text[:m[0]], strings.TrimSuffix(r.Text[:m[0]], "\n")} {
		if len(head)+len(tail) >= len(text) || !strings.HasPrefix(text, head) || !strings.HasSuffix(text, tail) {
			continue
		}
		mid := text[len(head) : len(text)-len(tail)]
		lines, end := strings.Count(mid, "\n"), strings.Count(head, "\n")+1+strings.Count(mid, "\n")
		if strings.HasSuffix(mid, "\n") {
			end--
		} else {
			lines++
		}
		start := strings.Count(head, "\n") + 1
		chars := utf8.RuneCountInString(mid)
		if r.ElidedChars == chars && r.Elided == (ctxd.LineRange{Start: start, End: max(end, start)}) &&
			r.Text[m[2]:m[3]] == fmt.Sprint(lines) && r.Text[m[4]:m[5]] == fmt.Sprint(chars) {
			return
		}
	}
	t.Fatalf("the marker %q, Elided %+v and ElidedChars %d do not describe the removed text of %q", r.Text[m[0]:m[1]], r.Elided, r.ElidedChars, r.Text)
}

// TestMiddleWholeLines checks that with WholeLines every cut falls between
// lines: each line of the result is the marker or a whole line of the
// input, in order, the marker stands alone on its line, the result never
// exceeds the budget, and Shown counts the input lines kept. Without the
// option, small budgets cut inside a line (the starlette outline of 64
// tokens kept a half line at each end).
func TestMiddleWholeLines(t *testing.T) {
	src := "import os\nimport sys\nfrom typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union\n\n\n" +
		"class Convertor:\n    regex = \"\"\n\n    def convert(self, value: str) -> Any:\n        raise NotImplementedError()  # pragma: no cover\n\n" +
		"    def to_string(self, value: Any) -> str:\n        raise NotImplementedError()  # pragma: no cover\n\n\n" +
		"CONVERTOR_TYPES: Dict[str, Convertor] = {\"str\": StringConvertor(), \"path\": PathConvertor(), \"int\": IntegerConvertor(), \"float\": FloatConvertor(), \"uuid\": UUIDConvertor()}\n"
	long := strings.Repeat("x = compute(alpha, beta, gamma, delta) + other_value * 3; ", 40)
	texts := map[string]string{
		"python":     src,
		"numbered":   numberedLines(60),
		"long lines": long + "\n" + numberedLines(5) + long + "\n" + long,
		"no newline": strings.TrimSuffix(numberedLines(30), "\n"),
	}
	markerRe := regexp.MustCompile(`^\.\.\. \[\d+ lines?, \d+ chars elided\] \.\.\.$`)
	for ci, c := range truncateCounters(t) {
		for name, text := range texts {
			inLines := strings.Split(text, "\n")
			for _, max := range []int{0, 1, 5, 12, 20, 33, 47, 64, 90, 150, 400} {
				r := Middle(c, text, max, MiddleOptions{WholeLines: true})
				if r.Tokens > max || c.Count(r.Text) > max {
					t.Errorf("%d/%s max %d: %d tokens", ci, name, max, c.Count(r.Text))
				}
				j, shown := 0, 0
				for _, l := range strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n") {
					if l == "" && r.Text == "" {
						break
					}
					if markerRe.MatchString(l) {
						continue
					}
					for j < len(inLines) && inLines[j] != l {
						j++
					}
					if j == len(inLines) {
						t.Fatalf("%d/%s max %d: line %q is not a whole input line in order:\n%s", ci, name, max, l, r.Text)
					}
					j++
					shown++
				}
				if r.Truncated && r.Shown != shown {
					t.Errorf("%d/%s max %d: Shown %d, counted %d", ci, name, max, r.Shown, shown)
				}
			}
		}
	}
}

// TestIsMarker: the line Marker writes is a marker, whatever its counts;
// code that merely mentions elision is not.
func TestIsMarker(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{strings.TrimSuffix(Marker(1, 7), "\n"), true},
		{strings.TrimSuffix(Marker(120, 4428), "\n"), true},
		{`log.Print("... [3 lines, 9 chars elided] ...")`, false},
		{"... [", false},
		{"", false},
	} {
		if got := IsMarker(tt.line); got != tt.want {
			t.Errorf("IsMarker(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
