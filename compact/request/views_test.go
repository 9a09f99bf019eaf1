package request

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// inside reports whether s's bytes lie in b's array.
func inside(s string, b []byte) bool {
	if s == "" || len(b) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&b[0]))
	return p >= lo && p < lo+uintptr(len(b))
}

// TestTextsAreViews: a text without escapes is a view of the body, not a
// copy (issue 28); one with escapes or invalid UTF-8 is decoded into its
// own memory; what a request keeps beyond itself (the model, a role not
// in the tables) does not point into the body.
func TestTextsAreViews(t *testing.T) {
	body := []byte(`{"model":"gpt-4o","messages":[` +
		`{"role":"user","content":"plain text"},` +
		`{"role":"assistant","content":"line one\nline two"},` +
		`{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"one block"}]},` +
		`{"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},` +
		`{"role":"user","content":"bad ` + "\xff" + ` byte"},` +
		`{"role":"critic","content":"odd role"}]}`)
	r, err := Parse(body, FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		item int
		text string
		view bool
	}{
		{0, "plain text", true},
		{1, "line one\nline two", false},
		{2, "one block", true},
		{3, "a\nb", false},
		{4, "bad \ufffd byte", false},
		{5, "odd role", true},
	}
	for _, tt := range tests {
		s := r.Items[tt.item].Segments[0].Text
		if s != tt.text {
			t.Errorf("item %d: text %q, want %q", tt.item, s, tt.text)
		}
		if got := inside(s, body); got != tt.view {
			t.Errorf("item %d (%q): a view of the body %v, want %v", tt.item, s, got, tt.view)
		}
	}
	if inside(r.Model, body) {
		t.Error("the model name is a view of the body; the proxy keeps it as a map key")
	}
	if role := r.Items[5].Role(); role != "critic" || inside(role, body) {
		t.Errorf("role %q (a view of the body: %v); the estimator's cache keeps it", role, inside(role, body))
	}
}

// TestCacheDetaches: the analysis a Cache keeps of a text that is a view
// of a body holds no string of that body.
func TestCacheDetaches(t *testing.T) {
	text := strings.Repeat("ok\n", 100) + "main.go:12: undefined: x\nFAIL pkg/x TestThing\n+++ b/main.go\n"
	buf := []byte(text)
	view := unsafe.String(&buf[0], len(buf))
	c := NewCache()
	in := c.Info(c.Key(view), view)
	if len(in.Signals) == 0 {
		t.Fatal("no signals found; the test needs some")
	}
	for _, l := range [][]string{in.Signals, in.Tests, in.Paths} {
		for _, s := range l {
			if inside(s, buf) {
				t.Errorf("kept %q points into the text's buffer", s)
			}
		}
	}
}

// TestSignals: Cache.Signals is Cache.Analysis's Signals, and allocates
// no analysis for a tiny text (the ledger asks for each evicted message).
func TestSignals(t *testing.T) {
	c := NewCache()
	tests := []string{
		"",
		"message 12 says a few words",
		"see main.go:12 and FAIL: TestX",
		strings.Repeat("ok\n", 100) + "main.go:12: undefined: x\nFAIL pkg/x TestThing\n",
	}
	for _, text := range tests {
		k := c.Key(text)
		got, want := c.Signals(k, text), c.Analysis(k, text).Signals
		if !slices.Equal(got, want) {
			t.Errorf("Signals(%.20q) = %q, want %q", text, got, want)
		}
	}
	text := "message 12 says a few words"
	k := c.Key(text)
	signals := testing.AllocsPerRun(100, func() { c.Signals(k, text) })
	analysis := testing.AllocsPerRun(100, func() { c.Analysis(k, text) })
	if signals >= analysis {
		t.Errorf("Signals allocates %.0f times, Analysis %.0f: want fewer", signals, analysis)
	}
	t.Logf("allocations: Signals %.0f, Analysis %.0f", signals, analysis)
}
