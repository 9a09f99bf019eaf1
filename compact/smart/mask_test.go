package smart

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
)

// A masked output keeps its critical lines inline: every error and
// failing-test line and every file:line location of a long output stays
// verbatim in the view (within its caps), beside a reference to the
// whole.
func TestMaskedViewKeepsCriticalLines(t *testing.T) {
	filler := func(n int) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "collecting item %d of the suite, nothing to see here\n", i)
		}
		return sb.String()
	}
	var grep strings.Builder
	for i := range 120 {
		fmt.Fprintf(&grep, "pkg/mod%d/file_%d.py:%d:    value = compute(%d)\n", i%7, i, 10+i, i)
	}
	var many strings.Builder // many hits in few files: listed by file
	for i := range 300 {
		fmt.Fprintf(&many, "django/db/models/sql/query%d.py:%d:        return resolve(keyword=%d)\n", i%3, 100+7*i, i)
	}
	tests := []struct {
		name string
		text string
		// most is the largest share of the text's bytes the view may
		// take (a list of grep hits keeps every location).
		most float64
	}{
		{"pytest failure in the middle", filler(200) + "tests/test_cart.py:41: in test_total\n    assert total == 85\nE   AssertionError: assert 90 == 85\nFAILED tests/test_cart.py::test_total - AssertionError\n" + filler(200), 0.1},
		{"go test", filler(150) + "--- FAIL: TestCart (0.00s)\n    cart_test.go:12: got 90, want 85\npanic: runtime error: index out of range [3] with length 3\nFAIL\tshop/cart\t0.012s\n" + filler(150), 0.1},
		{"grep hits", grep.String(), 0.6},
		{"grep hits in few files", many.String(), 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash := request.HashText(tt.text)
			v, ok := maskedView(tt.text, hash, 2, 2, "masked", false, request.Retrieval{})
			if !ok {
				t.Fatal("no view")
			}
			if float64(len(v)) > tt.most*float64(len(tt.text)) {
				t.Errorf("view of %d bytes for %d: masking saves little", len(v), len(tt.text))
			}
			if ms := request.ParseMarkers(v); len(ms) != 1 || !strings.HasPrefix(hash, ms[0].Hash) {
				t.Errorf("want one reference to %s, got %+v", hash[:16], ms)
			}
			listed := map[string]bool{} // "a.py:3,17" lists a.py:3 and a.py:17
			for _, m := range regexp.MustCompile(`(\S+):([0-9]+(?:,[0-9]+)+)`).FindAllStringSubmatch(v, -1) {
				for _, n := range strings.Split(m[2], ",") {
					listed[m[1]+":"+n] = true
				}
			}
			a := signal.Analyze(tt.text)
			for _, sig := range append(a.Signals, a.Tests...) {
				if !strings.Contains(v, sig) && !listed[sig] {
					t.Errorf("signal %q not in the view:\n%s", sig, v)
				}
			}
		})
	}
}

// Only the first masked output of a request carries the retrieval hint;
// the others carry the short marker.
func TestMaskedHintOnce(t *testing.T) {
	o := New(Options{Store: newStore(t)})
	in := body(request.FormatChat, history(12))
	rt := request.Retrieval{Command: true, URL: "http://127.0.0.1:8787/ctxd/artifacts"}
	res := optimize(t, o, in, Call{Session: "s", ContextWindow: 1 << 20, MaskHorizon: 2, MaskStep: 1, Retrieval: rt})
	masked, hinted := 0, 0
	for _, m := range regexp.MustCompile(`\[ctxd:ref [^\]]*\(masked[^\]]*\]`).FindAllString(string(res.Body), -1) {
		masked++
		if strings.Contains(m, "or run: ctxd rehydrate") {
			hinted++
		}
	}
	if masked < 2 || hinted != 1 {
		t.Errorf("%d masked outputs, %d with the retrieval hint; want at least 2 and exactly 1", masked, hinted)
	}
}

// A masked view lists its locations by file ("a.py:3,17"): the path
// once, then its line numbers, files in first-seen order; a list over
// maskLocationsBytes counts the rest.
func TestMaskedViewListsLocationsByFile(t *testing.T) {
	grep := func(hits, files int) string {
		var sb strings.Builder
		for i := range hits {
			fmt.Fprintf(&sb, "pkg/file_%d.py:%d:    value = compute(%d)\n", i%files, 10+i, i)
		}
		return sb.String()
	}
	for _, tt := range []struct {
		name string
		text string
		want string // a run of the list ("" none)
		more bool   // the rest counted
	}{
		// file_2.py holds hits 2, 102, 202 (lines 12, 112, 212).
		{"every hit", grep(300, 100), "locations: pkg/file_2.py:12,112,212 pkg/file_3.py:13,113,213 ", false},
		{"over the bound", grep(4000, 1000), "locations: pkg/file_2.py:12,", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := maskedView(tt.text, request.HashText(tt.text), 2, 2, "masked", false, request.Retrieval{})
			if !ok {
				t.Fatal("no view")
			}
			if !strings.Contains(v, tt.want) {
				t.Errorf("locations not listed by file:\n%.600s", v)
			}
			if m := regexp.MustCompile(`\(and (\d+) more\)`).FindStringSubmatch(v); (m != nil) != tt.more {
				t.Errorf("rest counted %v, want %v:\n%.300s", m != nil, tt.more, v[max(len(v)-300, 0):])
			}
			if len(v) > maskLocationsBytes+1000 {
				t.Errorf("view of %d bytes: the list is not bounded", len(v))
			}
		})
	}
}

// A quiet masked view (a file read that reports no failure) keeps no
// critical lines: the FAILED comment on line 70 is the file's source; the
// same text as a command's output keeps it.
func TestQuietMaskedRead(t *testing.T) {
	text := nlFile("cart", 150, 70)
	hash := request.HashText(text)
	const line = "# FAILED tests/test_cart.py::test_total"
	for _, quiet := range []bool{false, true} {
		v, ok := maskedView(text, hash, 2, 0, "masked", quiet, request.Retrieval{})
		if !ok {
			t.Fatal("no view")
		}
		if strings.Contains(v, line) == quiet {
			t.Errorf("quiet %v: critical line kept %v:\n%s", quiet, !quiet, v)
		}
		if quiet && len(v) > 400 {
			t.Errorf("quiet view of %d bytes:\n%s", len(v), v)
		}
	}
}
