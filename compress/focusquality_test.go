package compress

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusQuality: a view is worth its share of the file's tokens
// (viewQuality), and more the more of its focus lines' functions it shows,
// so the upgrade pass grows the best function alone into the best three; a
// view without focus lines is worth its share alone; the outline only its
// presence.
func TestFocusQuality(t *testing.T) {
	focus := []int{10, 50, 90}
	// A tenth of the file's tokens.
	view := func(level ctxd.View, focusLines []int, elided ...ctxd.LineRange) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: level, Elided: elided, Tokens: 100, OriginalTokens: 1000, Facts: ctxd.Facts{FocusLines: focusLines}}
	}
	tenth := viewBase + viewShown/10
	tests := []struct {
		name string
		c    *ctxd.Chunk
		want float64
	}{
		{"best one of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 20, End: 100}), tenth},
		{"two of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 60, End: 100}), tenth + focusMore/2},
		{"all three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 20, End: 40}), tenth + focusMore},
		{"focus view, all three", view(ctxd.ViewFocus, focus), tenth + focusMore},
		{"no focus lines", view(ctxd.ViewFocusOnly, nil, ctxd.LineRange{Start: 20, End: 40}), tenth},
		{"one focus line", view(ctxd.ViewFocusOnly, []int{10}), tenth},
		// bodies and signatures keep the focus lines' functions whole too.
		{"signatures keep the focused functions", view(ctxd.ViewSignatures, focus), tenth + focusMore},
		// The named definitions alone: none of the focus lines' functions.
		{"none of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 1, End: 100}), tenth - focusMore},
		{"none of one", view(ctxd.ViewFocusOnly, []int{10}, ctxd.LineRange{Start: 1, End: 20}), tenth - focusMore},
		{"focus view, none", view(ctxd.ViewFocus, focus, ctxd.LineRange{Start: 5, End: 95}), tenth - focusMore},
		{"the outline is presence", view(ctxd.ViewOutline, focus), outlineQuality},
		{"whole", &ctxd.Chunk{Tokens: 1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := qualityAt(tt.c, 0); got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("quality %.3f, want %.3f", got, tt.want)
			}
		})
	}
}

// TestQualityGrowsWithWhatIsShown: of two views of one file, the one that
// shows more of it is worth more, whatever their levels, and no view is
// worth the file whole: the upgrade pass then has a reason to show the
// file the task needs whole rather than stop at a bodies view.
func TestQualityGrowsWithWhatIsShown(t *testing.T) {
	at := func(level ctxd.View, tokens int) float64 {
		return qualityAt(&ctxd.Chunk{Truncated: true, Truncation: level, Tokens: tokens, OriginalTokens: 1000}, 0)
	}
	order := []float64{at(ctxd.ViewOutline, 50), at(ctxd.ViewFocusOnly, 120), at(ctxd.ViewFocus, 200), at(ctxd.ViewSignatures, 350), at(ctxd.ViewBodies, 600), at(ctxd.ViewBodies, 990), qualityAt(&ctxd.Chunk{Tokens: 1000}, 0)}
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Errorf("qualities %v do not grow at %d", order, i)
		}
	}
}

// TestFocusShownByScore: a focus view's focus lines weigh their
// definitions' scores (Facts.FocusDefs): the second of three functions,
// scored close to the best, is worth most of what the third adds little
// to; a line without a score weighs the least one.
func TestFocusShownByScore(t *testing.T) {
	focus := []int{10, 50, 90}
	defs := []ctxd.DefScore{{Line: 10, Score: 10}, {Line: 50, Score: 9}, {Line: 90, Score: 1}}
	view := func(defs []ctxd.DefScore, elided ...ctxd.LineRange) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewFocus, Elided: elided, Tokens: 100, OriginalTokens: 1000, Facts: ctxd.Facts{FocusLines: focus, FocusDefs: defs}}
	}
	tests := []struct {
		name string
		c    *ctxd.Chunk
		want float64
	}{
		{"best two", view(defs, ctxd.LineRange{Start: 60, End: 100}), 0.9},
		{"best and third", view(defs, ctxd.LineRange{Start: 40, End: 60}), 0.1},
		{"all", view(defs), 1},
		{"best alone", view(defs, ctxd.LineRange{Start: 40, End: 100}), 0},
		{"third unscored weighs the least", view(defs[:2], ctxd.LineRange{Start: 60, End: 100}), 9.0 / 18},
		{"no scores: by count", view(nil, ctxd.LineRange{Start: 60, End: 100}), 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := focusShown(tt.c); got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("focusShown %.3f, want %.3f", got, tt.want)
			}
		})
	}
}

// TestDropsFocus: an upgrade that shows more of a file but hides a
// function the current view shows is refused; the file whole never is.
func TestDropsFocus(t *testing.T) {
	facts := ctxd.Facts{FocusLines: []int{10, 50, 90}}
	at := func(elided ...ctxd.LineRange) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewFocus, Elided: elided, Facts: facts}
	}
	all := at(ctxd.LineRange{Start: 1, End: 9}, ctxd.LineRange{Start: 20, End: 49})
	two := at(ctxd.LineRange{Start: 60, End: 100})
	if !dropsFocus(all, two) {
		t.Error("all three -> best two: not refused")
	}
	if dropsFocus(two, all) {
		t.Error("best two -> all three: refused")
	}
	if dropsFocus(all, &ctxd.Chunk{Facts: facts}) {
		t.Error("-> whole: refused")
	}
	if middle := (&ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewMiddle, Elided: []ctxd.LineRange{{Start: 20, End: 80}}, Facts: facts}); dropsFocus(middle, two) {
		t.Error("head and tail -> best two: refused (a cut shows lines by chance)")
	}
	if dropsFocus(nil, two) {
		t.Error("absent -> best two: refused")
	}
}

// TestFitBuysTheLeadingFunction: a file far larger than the context,
// ranked fourth, whose best-ranked function far outscores the rest (30
// against 8 and 7: the request's words are in it) shows that function
// whole rather than its presence line, where a small file ranked below it
// would take the tokens; with three functions scored alike, the small
// file is shown whole as before. On the development set a best function
// scored twice the second held the change in 65% of answer files, one of
// a dozen scored alike in 12%. Without focusLead the step is worth its
// share of the file's tokens alone whatever the scores.
func TestFitBuysTheLeadingFunction(t *testing.T) {
	c := counter(t)
	const n = 2000
	tests := []struct {
		name   string
		scores []float64
		lead   bool // b.py's best function shown, else s0.txt whole
	}{
		{"one function leads", []float64{30, 8, 7}, true},
		{"three scored alike", []float64{10, 9.8, 9.6}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var defs []ctxd.DefScore
			for k, s := range tt.scores {
				defs = append(defs, ctxd.DefScore{Line: 1001 + 100*k, Score: s})
			}
			b := ctxd.Chunk{Source: "b.py", ChunkType: ctxd.ChunkFile, Content: lines("b", n), Score: 1000, Facts: ctxd.Facts{FocusLines: []int{1001, 1101, 1201}, FocusDefs: defs}}
			all := strings.SplitAfter(b.Content, "\n")
			body := func(from, to int) string { return strings.Join(all[from-1:to], "") }
			views := func(_ context.Context, ch *ctxd.Chunk) []View {
				if ch.Source != "b.py" {
					return nil
				}
				return []View{
					{Level: ctxd.ViewFocusOnly, Text: body(1001, 1040) + body(1101, 1140) + body(1201, 1240), Elided: []ctxd.LineRange{{Start: 1, End: 1000}, {Start: 1041, End: 1100}, {Start: 1141, End: 1200}, {Start: 1241, End: n}}},
					{Level: ctxd.ViewFocusOnly, Text: body(1001, 1040), Elided: []ctxd.LineRange{{Start: 1, End: 1000}, {Start: 1041, End: n}}},
					{Level: ctxd.ViewOutline, Text: "1001: def b1():\n1101: def b2():\n1201: def b3():\n", Elided: []ctxd.LineRange{{Start: 1, End: n}}},
				}
			}
			var cs []ctxd.Chunk
			for i := range 3 {
				cs = append(cs, ctxd.Chunk{Source: fmt.Sprintf("top%d.txt", i), ChunkType: ctxd.ChunkFile, Content: lines(fmt.Sprint("top", i), 60), Score: float64(1500 - 100*i)})
			}
			cs = append(cs, b)
			for i := range 3 {
				cs = append(cs, ctxd.Chunk{Source: fmt.Sprintf("s%d.txt", i), ChunkType: ctxd.ChunkFile, Content: lines(fmt.Sprint("s", i), 40), Score: float64(275 - 5*i)})
			}
			shown := fitShown(t, cs, Options{Budget: 4000, Counter: c, Render: render, Views: views})
			if got := strings.Contains(shown["b.py"].Content, "b line 1020:"); got != tt.lead {
				t.Errorf("b.py's best function shown %v, want %v (b.py at %q, %d tokens)", got, tt.lead, shown["b.py"].Shown(), shown["b.py"].Tokens)
			}
			if whole := !shown["s0.txt"].Truncated; whole == tt.lead {
				t.Errorf("s0.txt whole %v, want %v", whole, !tt.lead)
			}
		})
	}
}

// TestFocusLead: what a focus view's shown definitions hold beyond their
// share of the scores: nothing for all or none of them or for one of
// several scored alike, most for the best alone far ahead of the rest.
func TestFocusLead(t *testing.T) {
	view := func(scores []float64, elided ...ctxd.LineRange) *ctxd.Chunk {
		var defs []ctxd.DefScore
		for k, s := range scores {
			defs = append(defs, ctxd.DefScore{Line: 10 + 20*k, Score: s})
		}
		return &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewFocusOnly, Elided: elided, Facts: ctxd.Facts{FocusDefs: defs}}
	}
	rest := ctxd.LineRange{Start: 20, End: 100} // all but the first
	tests := []struct {
		name     string
		c        *ctxd.Chunk
		min, max float64
	}{
		{"all shown", view([]float64{30, 8, 7}), 0, 0},
		{"none shown", view([]float64{30, 8, 7}, ctxd.LineRange{Start: 1, End: 100}), 0, 0},
		{"one of three alike", view([]float64{10, 10, 10}, rest), 0, 1e-9},
		{"one of one", view([]float64{10}, rest), 0, 0},
		{"best 2.5 times the second", view([]float64{2.5, 1}, rest), 0.22, 0.23},
		{"best far ahead of three", view([]float64{30, 8, 7}, rest), 0.3, 0.31},
		{"no scores", view(nil, rest), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := focusLead(tt.c); got < tt.min || got > tt.max {
				t.Errorf("focusLead %.4f, want %.2f-%.2f", got, tt.min, tt.max)
			}
		})
	}
}

// TestFocusLineShownAlone: a focus line that is also a match line (a
// definition's first line holding a request identifier, which every view
// but the outline shows alone, in place) counts as its function shown
// only when the line after it is shown too: a focus view showing such a
// line with its body elided is worth the best function alone, not two of
// three, and an upgrade to the view with that function whole is not
// refused as one hiding it (BENCHMARKS.md "h25small": requests'
// iter_content, cli's command.go).
func TestFocusLineShownAlone(t *testing.T) {
	facts := ctxd.Facts{FocusLines: []int{10, 50, 90}, MatchLines: []int{50, 70}}
	view := func(elided ...ctxd.LineRange) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewFocusOnly, Elided: elided, Tokens: 100, OriginalTokens: 1000, Facts: facts}
	}
	tenth := viewBase + viewShown/10
	alone := view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 51, End: 100})
	whole := view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 60, End: 100})
	tests := []struct {
		name string
		c    *ctxd.Chunk
		want float64
	}{
		{"second's first line alone (a match line)", alone, tenth},
		{"second whole", whole, tenth + focusMore/2},
		{"a match line that is no focus line changes nothing", view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 60, End: 69}, ctxd.LineRange{Start: 71, End: 100}), tenth + focusMore/2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := qualityAt(tt.c, 0); got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("quality %.3f, want %.3f", got, tt.want)
			}
		})
	}
	if dropsFocus(alone, view(ctxd.LineRange{Start: 20, End: 100})) {
		t.Error("second's first line alone -> best alone: refused, as if the second were shown")
	}
	if !dropsFocus(whole, alone) {
		t.Error("second whole -> its first line alone: not refused")
	}
}
