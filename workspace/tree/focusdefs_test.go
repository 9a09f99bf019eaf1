package tree

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/query"
)

func TestDefTermsFocus(t *testing.T) {
	src := strings.Join([]string{
		"func parseConfig(path string) (*Config, error) {", // 1
		"\tb := readFile(path)",
		"\treturn decode(b)",
		"}",
		"func retryRequest(n int) error {", // 5
		"\tfor i := 0; i < n; i++ {",
		"\t\tif err := send(); err == nil { return nil } // timeout backoff",
		"\t}",
		"\treturn errTimeout",
		"}",
		"func backoffDelay(attempt int) time.Duration {", // 11
		"\treturn time.Second << attempt // retry timeout",
		"}",
		"func closeIdle() {", // 14
		"\tfor _, c := range conns { c.Close() }",
		"}",
	}, "\n")
	defs := []DefSpan{{1, 4}, {5, 10}, {11, 13}, {14, 16}}
	for _, tc := range []struct {
		name    string
		request string
		limit   int
		want    []int
	}{
		{"name and body", "requests are retried without a backoff after a timeout", 3, []int{1, 2}},
		{"limit", "requests are retried without a backoff after a timeout", 1, []int{1}},
		{"name terms", "stop closing idle ones", 3, []int{3}},
		// The definition named after the one term; the one that has it
		// once in a comment of a longer body scores under half of it.
		{"one term request", "backoff", 3, []int{2}},
		{"two terms needed", "the config file path and the idle pool", 3, []int{0}},
		{"stopwords only", "please explain how this works", 3, nil},
		{"no match", "kubernetes ingress", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewDefTerms([]byte(src), defs).Focus(query.Parse(tc.request), tc.limit); !slices.Equal(got, tc.want) {
				t.Errorf("Focus(%q) = %v, want %v", tc.request, got, tc.want)
			}
		})
	}
	// Definitions without a body, past the end or empty input are safe.
	if got := NewDefTerms([]byte(src), []DefSpan{{3, 3}, {40, 50}, {0, 2}}).Focus(query.Parse("retry timeout"), 3); len(got) > 1 {
		t.Errorf("odd spans: %v", got)
	}
	if got := NewDefTerms(nil, defs).Focus(query.Parse("retry timeout"), 3); got != nil {
		t.Errorf("empty content: %v", got)
	}
}

// TestDefTermsFocusDensity: a short definition whose body is about the
// request's words (each several times) ranks above a longer one that
// touches more of them once, in comments (net/http's redirectBehavior
// against makeHeadersCopier for "why does http.Client not follow a 307
// redirect for a POST request with a body that has no GetBody?").
func TestDefTermsFocusDensity(t *testing.T) {
	long := []string{"func copyHeaders(req *Request) func(*Request) {", // 1
		"	// Copy the headers so a client can follow a POST redirect."}
	for i := range 30 {
		long = append(long, fmt.Sprintf("	h%d := req.Header.Clone() // request %d", i, i))
	}
	long = append(long, "	return nil", "}")
	short := []string{
		"func redirectBehavior(method string, req *Request) (redirect bool) {",
		"	switch code {",
		"	case 307, 308:",
		"		redirect = true",
		"		if req.GetBody == nil && req.body != nil {",
		"			redirect = false // no GetBody: the body cannot be sent again",
		"		}",
		"	}",
		"	return redirect",
		"}",
	}
	other := []string{"func closeIdle() {", "	for _, c := range conns { c.Close() }", "}"}
	src := strings.Join(slices.Concat(long, short, other), "\n")
	a, b := len(long), len(long)+len(short)
	defs := []DefSpan{{1, a}, {a + 1, b}, {b + 1, b + len(other)}}
	for _, tc := range []struct {
		request string
		want    int
	}{
		{"why does http.Client not follow a 307 redirect for a POST request with a body that has no GetBody?", 1},
		{"copy the request headers for a client", 0},
	} {
		if got := NewDefTerms([]byte(src), defs).Focus(query.Parse(tc.request), 3); len(got) == 0 || got[0] != tc.want {
			t.Errorf("Focus(%q) = %v, want %d first", tc.request, got, tc.want)
		}
	}
}

func TestDefTermsEncoding(t *testing.T) {
	src, err := os.ReadFile("lexical.go")
	if err != nil {
		t.Fatal(err)
	}
	var defs []DefSpan
	lines := strings.Count(string(src), "\n")
	for l := 1; l+20 < lines; l += 17 {
		defs = append(defs, DefSpan{l, l + 20})
	}
	defs = append(defs, DefSpan{5, 5}, DefSpan{lines + 10, lines + 20})
	for _, tc := range []struct {
		name string
		dt   *DefTerms
	}{
		{"file", NewDefTerms(src, defs)},
		{"no definitions", NewDefTerms(src, nil)},
		{"empty content", NewDefTerms(nil, defs)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc := tc.dt.AppendBinary(nil)
			got, err := DecodeDefTerms(enc)
			if err != nil {
				t.Fatal(err)
			}
			if again := got.AppendBinary(nil); !bytes.Equal(again, enc) {
				t.Fatal("decoded terms encode differently")
			}
			if got.Len() != tc.dt.Len() {
				t.Fatalf("Len %d, want %d", got.Len(), tc.dt.Len())
			}
			for _, req := range []string{"term counter bag sort words", "scan identifiers and hash terms", "kubernetes"} {
				if a, b := got.Focus(query.Parse(req), 3), tc.dt.Focus(query.Parse(req), 3); !slices.Equal(a, b) {
					t.Errorf("Focus(%q) decoded %v, want %v", req, a, b)
				}
			}
			// Every truncation and a flipped version byte are refused.
			for n := range len(enc) {
				if _, err := DecodeDefTerms(enc[:n]); err == nil {
					t.Fatalf("a truncation to %d of %d bytes decoded", n, len(enc))
				}
			}
			bad := slices.Clone(enc)
			bad[0]++
			if _, err := DecodeDefTerms(bad); err == nil {
				t.Error("another version decoded")
			}
		})
	}
}

func TestDefTermsFocusAmong(t *testing.T) {
	src := strings.Join([]string{
		"func retryRequest(n int) error {", // 1
		"\treturn sendWithTimeout(n) // retry",
		"}",
		"func TestRetryTimeout(t *testing.T) {", // 4
		"\tretryRequest(3) // timeout retry timeout",
		"}",
		"func backoffRetry() {", // 7
		"\tsleep() // timeout",
		"}",
	}, "\n")
	defs := []DefSpan{{1, 3}, {4, 6}, {7, 9}}
	dt := NewDefTerms([]byte(src), defs)
	// Among a subset, the result equals the terms of that subset alone
	// (document frequencies among the subset), in the full set's indexes.
	among := []int{0, 2}
	sub := NewDefTerms([]byte(src), []DefSpan{defs[0], defs[2]})
	for _, req := range []string{"retry timeout", "timeout", "retry request send"} {
		got := dt.FocusAmong(query.Parse(req), 3, among)
		var want []int
		for _, k := range sub.Focus(query.Parse(req), 3) {
			want = append(want, among[k])
		}
		if !slices.Equal(got, want) {
			t.Errorf("FocusAmong(%q) = %v, want %v", req, got, want)
		}
		if !slices.Equal(dt.FocusAmong(query.Parse(req), 3, nil), dt.Focus(query.Parse(req), 3)) {
			t.Errorf("FocusAmong(nil) differs from Focus for %q", req)
		}
	}
	if got := dt.FocusAmong(query.Parse("retry timeout"), 3, []int{}); got != nil {
		t.Errorf("among none: %v", got)
	}
	if got := dt.FocusAmong(query.Parse("retry timeout"), 3, []int{-1, 7}); got != nil {
		t.Errorf("among out of range: %v", got)
	}
}

// TestScanWords: numbers of 3 to 6 digits are words, except in versions,
// decimals and issue references; identifiers are as scanIdents has them.
func TestScanWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a 307 redirect", []string{"a", "307", "redirect"}},
		{"case 307, 308:", []string{"case", "307", "308"}},
		{"port 8080 or 65535", []string{"port", "8080", "or", "65535"}},
		{"ids 1 and 42 and 1234567", []string{"ids", "and", "and"}},
		{"go 1.26.0 and 3.141", []string{"go", "and"}},
		{"fix (#1234) and v2", []string{"fix", "and", "v2"}},
		{"0x1f 0644 E1234", []string{"0644", "E1234"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got []string
			query.ScanWords([]byte(tt.in), func(id []byte) { got = append(got, string(id)) })
			if !slices.Equal(got, tt.want) {
				t.Errorf("query.ScanWords(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestFocusNumbers: a status code the request names picks the function
// that holds it over one that only shares the request's other words.
func TestFocusNumbers(t *testing.T) {
	src := strings.Join([]string{
		"func copyHeaders(req *Request) {", // 1
		"\t// on a redirect, the body is not copied: only the headers",
		"\tfor k, v := range req.Header { set(k, v) }",
		"}",
		"func redirectBehavior(method string, resp *Response) (string, bool) {", // 5
		"\tswitch resp.StatusCode {",
		"\tcase 307, 308:",
		"\t\treturn method, true",
		"\t}",
		"\treturn \"GET\", false",
		"}",
	}, "\n")
	dt := NewDefTerms([]byte(src), []DefSpan{{1, 4}, {5, 11}})
	tests := []struct {
		request string
		want    []int
	}{
		{"why does a 307 redirect keep the body", []int{1}},
		{"why does a redirect keep the body", []int{0}},
	}
	for _, tt := range tests {
		if got := dt.Focus(query.Parse(tt.request), 1); !slices.Equal(got, tt.want) {
			t.Errorf("Focus(%q) = %v, want %v", tt.request, got, tt.want)
		}
	}
}

func FuzzDecodeDefTerms(f *testing.F) {
	f.Add(NewDefTerms([]byte("func a() {\n\tb(c)\n}\nfunc d() {\n\te()\n}\n"), []DefSpan{{1, 3}, {4, 6}}).AppendBinary(nil))
	f.Add([]byte{defTermsVersion, 0})
	f.Add([]byte{defTermsVersion, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		dt, err := DecodeDefTerms(b)
		if err != nil {
			return
		}
		// A decoded value encodes to the same bytes (the encoding is
		// canonical) and answers queries.
		if again := dt.AppendBinary(nil); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs: %x vs %x", again, b)
		}
		dt.Focus(query.Parse("a b c"), 3)
	})
}

// threeDefs is a file of three functions (threeDefSpans), for the
// ranking tests: idle, queue and config each in one name; pool in a
// parameter and in another body; conns in one body.
var threeDefs = strings.Join([]string{
	"func parseConfig(path string) (*Config, error) {", // 1
	"\treturn decode(readFile(path))",
	"}",
	"func closeIdle(pool *Pool) {", // 4
	"\tfor _, c := range conns { c.Close() }",
	"}",
	"func drainQueue(q *Queue) {", // 7
	"\tfor q.Len() > 0 { q.Pop() } // pool",
	"}",
}, "\n")

var threeDefSpans = []DefSpan{{1, 3}, {4, 6}, {7, 9}}

// TestDefTermsRankNamed: with the definitions' names, one request term is
// enough for a definition whose name holds it when no other definition
// holds it (get_netrc_auth for "Fix empty netrc entry usage"); in a body
// only, in a parameter, or held by another definition too, it is not.
func TestDefTermsRankNamed(t *testing.T) {
	src, defs := threeDefs, threeDefSpans
	names := []string{"parseConfig", "closeIdle", "drainQueue"}
	named := func(i int, t uint32) bool { return slices.Contains(TermsOf(names[i:i+1]), t) }
	dt := NewDefTerms([]byte(src), defs)
	for _, tc := range []struct {
		name, request string
		want          []int
	}{
		{"named by one rare term", "the idle one leaks a socket", []int{1}},
		{"one term of a body", "the conns leak a socket", nil},
		{"named, its parameter's type too", "the queue leaks a socket", []int{2}},
		{"a parameter is no name", "a wrong path leaks a socket", nil},
		{"held by two definitions", "a pool leaks a socket", nil},
		{"beside two terms", "the config file path and the idle ones", []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, s := range dt.RankBy(NewFocusQuery(query.Parse(tc.request)), nil, named) {
				got = append(got, s.Index)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("RankBy(%q) = %v, want %v", tc.request, got, tc.want)
			}
			if without := dt.RankAmong(query.Parse(tc.request), nil); len(without) == len(tc.want) && len(tc.want) > 0 && tc.name != "beside two terms" {
				t.Errorf("RankAmong(%q) without names ranks %d definitions: the case tests nothing", tc.request, len(without))
			}
		})
	}
}

// TestDefTermsRankAny: RankAny ranks the definitions holding one request
// term, which RankBy leaves out (engine's ladder of a file no definition
// of which holds two of the request's words), scored alike.
func TestDefTermsRankAny(t *testing.T) {
	dt := NewDefTerms([]byte(threeDefs), threeDefSpans)
	for _, tc := range []struct {
		request string
		want    []int
	}{
		{"the conns leak a socket", []int{1}},
		{"a pool leaks a socket", []int{1, 2}},
		{"the idle conns leak from the queue", []int{1, 2}},
	} {
		fq := NewFocusQuery(query.Parse(tc.request))
		var got []int
		for _, s := range dt.RankAny(fq, nil) {
			got = append(got, s.Index)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("RankAny(%q) = %v, want %v", tc.request, got, tc.want)
		}
		if two := dt.RankBy(fq, nil, nil); len(two) >= len(tc.want) {
			t.Errorf("RankBy(%q) ranks %d definitions: the case tests nothing", tc.request, len(two))
		}
	}
	// A term more than anyMaxDefs definitions hold ranks none of them.
	var common []string
	var spans []DefSpan
	for i := range anyMaxDefs + 1 {
		common = append(common, fmt.Sprintf("func close%d(c *Conn) {", i), "\tc.socket.Close()", "}")
		spans = append(spans, DefSpan{3*i + 1, 3*i + 3})
	}
	if got := NewDefTerms([]byte(strings.Join(common, "\n")), spans).RankAny(NewFocusQuery(query.Parse("a socket leaks")), nil); len(got) != 0 {
		t.Errorf("RankAny ranks %d definitions of a term all %d hold", len(got), len(spans))
	}
}

// TestDefStatsAcross: two files' definitions scored together (hglob's
// TestRankAcross). A term's weight is its IDF over both files'
// definitions, so the second file's settle scores other than in its file
// alone (there "ledger", "refund" and "currency" are in its only ranked
// definition), above the first file's third. One file's statistics score
// as RankBy.
func TestDefStatsAcross(t *testing.T) {
	var a strings.Builder
	for i := range 6 {
		fmt.Fprintf(&a, "func entry%d(l *Ledger) {\n\tl.entry(%d) // ledger entry\n}\n", i, i)
	}
	a.WriteString("func refundEntry(l *Ledger) {\n\tl.refund(l.currency) // ledger entry refund\n}\n")
	b := "func settle(l *Ledger) {\n\tl.refund(l.currency) // refund in the currency\n}\nfunc close(x int) {\n\treturn\n}\n"
	var spansA []DefSpan
	for i := range 7 {
		spansA = append(spansA, DefSpan{Start: 3*i + 1, End: 3*i + 3})
	}
	spansB := []DefSpan{{Start: 1, End: 3}, {Start: 4, End: 6}}
	dtA, dtB := NewDefTerms([]byte(a.String()), spansA), NewDefTerms([]byte(b), spansB)
	fq := NewFocusQuery(query.Parse("the ledger entry refund in the wrong currency"))
	all := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	st := NewDefStats(fq)
	st.Add(dtA, all(7))
	st.Add(dtB, all(2))
	ownA := dtA.RankBy(fq, nil, nil)
	if len(ownA) < 3 || ownA[0].Index != 6 {
		t.Fatalf("the first file's own ranking: %v", ownA)
	}
	settle, _ := st.Score(dtB, 0)
	third, _ := st.Score(dtA, ownA[2].Index)
	if settle <= third {
		t.Errorf("the second file's settle scores %.2f across, not above the first file's third (%.2f)", settle, third)
	}
	if best, ok := st.Score(dtA, 6); !ok || best <= settle {
		t.Errorf("refundEntry scores %.2f across, want above settle's %.2f", best, settle)
	}
	alone := dtB.RankBy(fq, nil, nil)
	if len(alone) != 1 || math.Abs(alone[0].Score-settle) < 0.01 {
		t.Errorf("settle scores %v alone and %.2f across: want the IDF over both files", alone, settle)
	}
	if s, ok := st.Score(dtB, 1); s != 0 || ok {
		t.Errorf("close holds no request word: %v %v", s, ok)
	}
	if s, ok := st.Score(dtB, 5); s != 0 || ok {
		t.Errorf("close (no request word) or an index the file has not scored above 0")
	}
	// One file's statistics score as RankBy.
	one := NewDefStats(fq)
	one.Add(dtA, all(7))
	for _, r := range ownA {
		if s, ok := one.Score(dtA, r.Index); s != r.Score || !ok {
			t.Errorf("definition %d: Score %v, RankBy %v", r.Index, s, r.Score)
		}
	}
}

// TestDefTermsRankNamedFew: RankNamed ranks a definition whose name holds
// a request term when at most nameMaxDefs names hold it, however many bodies do;
// a term more names hold ranks none; a definition that only calls the
// named one is not ranked for it.
func TestDefTermsRankNamedFew(t *testing.T) {
	var lines []string
	var spans []DefSpan
	var names []string
	add := func(name string, body ...string) {
		spans = append(spans, DefSpan{len(lines) + 1, len(lines) + len(body) + 2})
		lines = append(lines, "func "+name+"(r *Response) {")
		lines = append(lines, body...)
		lines = append(lines, "}")
		names = append(names, name)
	}
	for i := range 5 {
		add(fmt.Sprintf("read%d", i), "\tr.contentSeen = true // content")
	}
	add("iterContent", "\tchunk := r.read(size) // content chunk size")
	add("content", "\treturn r.body") // 6
	add("getHeader", "\treturn r.h")  // 7
	for i := range nameMaxDefs {
		add(fmt.Sprintf("getPart%d", i), "\treturn nil")
	}
	dt := NewDefTerms([]byte(strings.Join(lines, "\n")), spans)
	named := func(i int, term uint32) bool { return slices.Contains(TermsOf(names[i:i+1]), term) }
	for _, tc := range []struct {
		request string
		want    []int
	}{
		{"default chunk size for .content much bigger", []int{5, 6}}, // iterContent is named by content too
		{"get the parts again", nil},                                 // four names hold "get"
		{"nothing matches here", nil},
	} {
		fq := NewFocusQuery(query.Parse(tc.request))
		var got []int
		for _, s := range dt.RankNamed(fq, nil, named) {
			got = append(got, s.Index)
			if s.Score <= 0 || s.Best <= 0 {
				t.Errorf("RankNamed(%q): definition %d scores %v of %v", tc.request, s.Index, s.Score, s.Best)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("RankNamed(%q) = %v, want %v", tc.request, got, tc.want)
		}
	}
	// RankBy does not rank it: content holds one request term, which
	// many bodies hold.
	for _, s := range dt.RankBy(NewFocusQuery(query.Parse("default chunk size for .content much bigger")), nil, named) {
		if s.Index == 6 {
			t.Errorf("RankBy ranks content: the case tests nothing")
		}
	}
}
