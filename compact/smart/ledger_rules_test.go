package smart

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

func TestMergeRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"1-200"}, "1-200"},
		{[]string{"150-240", "88", "1-200"}, "1-240"},
		{[]string{"300", "12-40"}, "12-40, 300"},
		{[]string{"12-40", "41-50", "88", "120-133", "125-130"}, "12-50, 88, 120-133"},
		{[]string{"1--1", "5-9"}, "5-9, 1--1"},
		{[]string{"9-5"}, "9-5"},
	} {
		if got := mergeRanges(tc.in); got != tc.want {
			t.Errorf("mergeRanges(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCountedUserMessages(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{nil, nil},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"fix it", "No tool calls found.", "No tool calls found.", "then this", "No tool calls found."}, []string{"fix it", "No tool calls found. (3 times)", "then this"}},
	} {
		if got := countedBy(tc.in, firstCounts(tc.in), func(e string) string { return cutText(e, ledgerUserChars) }); !slices.Equal(got, tc.want) {
			t.Errorf("countedBy(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Locations are listed by file, each once, line numbers in order: files
// read or changed after their locations were seen first, then the latest
// search's hits, then the rest, latest first in each group.
func TestLocationsRanked(t *testing.T) {
	type loc struct {
		sig    string
		at     int
		search bool
	}
	for _, tc := range []struct {
		name          string
		locs          []loc
		read, changed map[string]int // path: the item that read or changed it
		calls         map[string]int // a call's arguments: its item
		want          []string
	}{
		{
			name: "latest first, numbers in order, each once",
			locs: []loc{{"a.py:40", 1, false}, {"a.py:3", 1, false}, {"b.py:9", 3, false}, {"a.py:3", 2, false}},
			want: []string{"b.py:9", "a.py:3,40"},
		},
		{
			name: "a file read later comes first",
			locs: []loc{{"pkg/a.py:3", 1, false}, {"pkg/b.py:9", 2, false}, {"pkg/c.py:1", 3, false}},
			read: map[string]int{"/testbed/pkg/a.py": 4},
			want: []string{"pkg/a.py:3", "pkg/c.py:1", "pkg/b.py:9"},
		},
		{
			name:    "a read before the locations does not count",
			locs:    []loc{{"a.py:3", 5, false}, {"b.py:9", 2, false}},
			changed: map[string]int{"a.py": 4},
			want:    []string{"a.py:3", "b.py:9"},
		},
		{
			name: "the latest search's hits before the rest",
			locs: []loc{{"a.py:3", 1, true}, {"b.py:9", 2, false}},
			want: []string{"a.py:3", "b.py:9"},
		},
		{
			name:  "a file a later call names otherwise (grep, pytest) comes first",
			locs:  []loc{{"tests/a_test.py:3", 1, false}, {"pkg/b.py:9", 2, false}, {"pkg/c.py:1", 3, false}},
			calls: map[string]int{`{"command":"grep -n setUp tests/a_test.py"}`: 4, `{"command":"python -m pytest pkg/c.py::test_x"}`: 2},
			want:  []string{"tests/a_test.py:3", "pkg/c.py:1", "pkg/b.py:9"},
		},
		{
			name: "a location used before its file's later locations: the file in both groups",
			locs: []loc{{"a.py:40", 1, false}, {"a.py:3", 1, false}, {"b.py:9", 4, false}, {"a.py:77", 5, false}, {"c.py:2", 6, false}},
			read: map[string]int{"/testbed/a.py": 3},
			want: []string{"a.py:3,40", "c.py:2", "a.py:77", "b.py:9"},
		},
		{
			name:    "touched before search",
			locs:    []loc{{"a.py:3", 3, true}, {"b.py:9", 1, false}},
			changed: map[string]int{"b.py": 2},
			want:    []string{"b.py:9", "a.py:3"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l locationList
			for _, x := range tc.locs {
				l.add(x.sig, x.at, x.search)
			}
			var read, changed fileList
			for p, at := range tc.read {
				read.at = at
				read.add(p, "")
			}
			for p, at := range tc.changed {
				changed.at = at
				changed.add(p, "")
			}
			var calls []namedCall
			for text, at := range tc.calls {
				calls = append(calls, namedCall{at: at, text: text})
			}
			if got, _ := l.ranked(&read, &changed, calls); !slices.Equal(got, tc.want) {
				t.Errorf("ranked = %q, want %q", got, tc.want)
			}
		})
	}
}

// ledgerRound is one bash call and its output.
func ledgerRound(id, cmd, out string) []convo.Msg {
	return []convo.Msg{convo.Assistant("", convo.Call{ID: id, Name: "bash", Args: fmt.Sprintf(`{"command":%q}`, cmd)}), convo.Tool(id, "bash", out, false)}
}

// The ledger's sections from a session's evicted rounds: open errors
// before fixed ones, each once (a failing test its failure line names
// not again); a file view's error-looking lines are
// not errors; read ranges merged per file; locations by file; a
// repeated user message once with its count.
func TestLedgerSections(t *testing.T) {
	pytestFail := "<returncode>1</returncode>\n<output>\nshop/test_cart.py:41: AssertionError\nFAILED shop/test_cart.py::test_discount - AssertionError: assert 90 == 85\n</output>"
	pytestPass := "<returncode>0</returncode>\n<output>\n1 passed in 0.12s\n</output>"
	msgs := []convo.Msg{convo.System("You are a coding agent with a shell."), convo.User("Fix the cart discount in shop/cart.py.")}
	msgs = append(msgs, ledgerRound("c0", "python -m pytest shop/test_cart.py", pytestFail)...)
	msgs = append(msgs, ledgerRound("c1", "cat shop/rules.py", "<returncode>0</returncode>\n<output>\ndef check(x):\n    raise ValueError(\"bad discount rule\")\n</output>")...)
	msgs = append(msgs, ledgerRound("c2", "grep -rn discount shop/", "<returncode>0</returncode>\n<output>\nshop/cart.py:12:    discount = 1\nshop/cart.py:40:    apply(discount)\nshop/util.py:7:def discount():\n</output>")...)
	msgs = append(msgs, ledgerRound("c3", "sed -n '1,50p' shop/cart.py", "<returncode>0</returncode>\n<output>\n"+numbered(50, 1)+"</output>")...)
	msgs = append(msgs, ledgerRound("c4", "sed -n '40,80p' shop/cart.py", "<returncode>0</returncode>\n<output>\n"+numbered(41, 40)+"</output>")...)
	msgs = append(msgs, convo.User("No tool calls found in the response."), convo.User("No tool calls found in the response."))
	msgs = append(msgs, ledgerRound("c5", "python -m pytest shop/test_cart.py", pytestPass)...)
	msgs = append(msgs, ledgerRound("c6", "python shop/tax.py", taxFailing)...)
	l := evictedLedger(t, msgs, "shop/mod", "Now also round the tax half up.", 64000)
	// section is a section's entries: from its title's line to the next
	// line that is not an entry.
	section := func(title string) string {
		i := strings.Index(l, "\n"+title)
		if i < 0 {
			return ""
		}
		lines := strings.Split(l[i+1:], "\n")
		out := []string{lines[0][strings.IndexByte(lines[0], ':')+1:]}
		for _, ln := range lines[1:] {
			if !strings.HasPrefix(ln, "- ") {
				break
			}
			out = append(out, ln)
		}
		return strings.Join(out, "\n")
	}
	for _, tc := range []struct {
		section, want string
		present       bool
	}{
		{"Open errors", "- ZeroDivisionError: division by zero", true},
		{"Fixed since", "- FAILED shop/test_cart.py::test_discount - AssertionError: assert 90 == 85", true},
		// The FAILED line names the test: it is not listed twice.
		{"Fixed since", "- failing test shop/test_cart.py::test_discount", false},
		{"Open errors", "test_discount", false},
		{"Open errors", "bad discount rule", false},
		{"Fixed since", "bad discount rule", false},
		{"Files read", "- shop/cart.py: 1-80", true},
		{"Locations", "shop/cart.py:12,40", true},
		{"Locations", "shop/util.py:7", true},
		{"User messages", "- No tool calls found in the response. (2 times)", true},
		{"Commands", "- `python -m pytest shop/test_cart.py` -> 1", true},
		{"Commands", "- `python shop/tax.py` -> 1", true},
	} {
		if got := strings.Contains(section(tc.section), tc.want); got != tc.present {
			t.Errorf("section %q holds %q: %v, want %v; ledger:\n%s", tc.section, tc.want, got, tc.present, l)
		}
	}
	if strings.Index(l, "\nOpen errors") > strings.Index(l, "\nFixed since") {
		t.Errorf("open errors are not listed before the fixed ones:\n%s", l)
	}
}

// The user's messages take at most half of the ledger's bound when open
// errors follow them: a session of many long user messages still shows
// the error its last evicted run left open.
func TestLedgerUserMessagesLeaveRoomForErrors(t *testing.T) {
	msgs := []convo.Msg{convo.System("You are a coding agent with a shell.")}
	for i := range 12 {
		msgs = append(msgs, convo.User(fmt.Sprintf("Request %d: ", i)+strings.Repeat(fmt.Sprintf("the tax of order %d must round half up; ", i), 20)))
		msgs = append(msgs, ledgerRound(fmt.Sprintf("u%d", i), fmt.Sprintf("nl -ba shop/mod%d.py", i), "<returncode>0</returncode>\n<output>\n"+numbered(60, 1)+"</output>")...)
	}
	msgs = append(msgs, ledgerRound("c6", "python shop/tax.py", taxFailing)...)
	l := evictedLedger(t, msgs, "shop/other", "Now run the tax script again.", 24000)
	if !strings.Contains(l, "Request 0: the tax of order 0") {
		t.Errorf("the first user message is not in the ledger:\n%s", l)
	}
	if !strings.Contains(l, "ZeroDivisionError: division by zero") {
		t.Errorf("the open error is not in the ledger (the user's messages took the bound):\n%s", l)
	}
}

// taxFailing is the output of a script that fails with a traceback.
const taxFailing = "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"/repo/shop/tax.py\", line 8, in <module>\nZeroDivisionError: division by zero\n</output>"

// evictedLedger appends 60 reads of 200 lines (files prefix0.py ...) and
// a last user message to msgs, so the rounds before them are evicted at
// window, and returns the forwarded request's ledger.
func evictedLedger(t *testing.T, msgs []convo.Msg, prefix, last string, window int) string {
	t.Helper()
	for i := range 60 {
		msgs = append(msgs, ledgerRound(fmt.Sprintf("f%d", i), fmt.Sprintf("nl -ba %s%d.py", prefix, i), "<returncode>0</returncode>\n<output>\n"+numbered(200, 1)+"</output>")...)
	}
	msgs = append(msgs, convo.User(last))
	in, res := stepped(t, newStore(t), request.FormatChat, msgs, window)
	checkEvicted(t, in, res)
	l, _ := ledgerOf(t, request.FormatChat, res.Body)
	if l == "" {
		t.Fatalf("no ledger; reasons %v", res.Report.PolicyReasons)
	}
	return l
}

// A user message cut in the ledger keeps its error lines the cut would
// hide (a harness's "YOUR RESPONSE WILL FAIL" reminder, a traceback in a
// task), within the bytes it may take; a short one is whole.
func TestCutKeepsErrorLines(t *testing.T) {
	long := "Please fix the parser. " + strings.Repeat("Some context about the parser. ", 40) + "\nValueError: bad token at 3\nMore words after it."
	lines := signal.Analyze(long).Signals
	if !slices.Contains(lines, "ValueError: bad token at 3") {
		t.Fatalf("the classifier does not see the error line: %q", lines)
	}
	for _, tc := range []struct {
		name, text string
		most       int
		want       []string
		wantNot    []string
	}{
		{"short", "Fix the parser.", 600, []string{"Fix the parser."}, []string{"[…cut"}},
		{"long", long, 600, []string{"Please fix the parser.", "[…cut:", ledgerKeptNote + "\n  ValueError: bad token at 3"}, []string{"More words after it."}},
		{"no room for the lines", long, 140, []string{"Please fix the parser.", "[…cut:"}, []string{"ValueError"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cutKeeping(tc.text, tc.most, lines)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("holds %q:\n%s", w, got)
				}
			}
			if len(got) > tc.most+80 {
				t.Errorf("%d bytes, cut at %d", len(got), tc.most)
			}
		})
	}
}

// The ledger's bound: 1,800 tokens where the usable window holds them
// within 20%; a usable window shrunk by an estimator's margin (Anthropic
// at 16k: about 8,600 tokens) gets 20% of it, not 15%; never under 4%.
func TestLedgerBound(t *testing.T) {
	for _, tc := range []struct{ usable, want int }{
		{1000, 200},
		{8600, 1720},
		{9000, 1800},
		{11680, 1800},
		{100000, 4000},
		{180000, 7200},
	} {
		if got := ledgerBound(tc.usable); got != tc.want {
			t.Errorf("ledgerBound(%d) = %d, want %d", tc.usable, got, tc.want)
		}
	}
}
