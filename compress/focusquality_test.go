package compress

import (
	"math"
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
	tenth := defaults.ViewBase + defaults.ViewShown/10
	tests := []struct {
		name string
		c    *ctxd.Chunk
		want float64
	}{
		{"best one of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 20, End: 100}), tenth},
		{"two of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 60, End: 100}), tenth + defaults.FocusMore/2},
		{"all three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 20, End: 40}), tenth + defaults.FocusMore},
		{"focus view, all three", view(ctxd.ViewFocus, focus), tenth + defaults.FocusMore},
		{"no focus lines", view(ctxd.ViewFocusOnly, nil, ctxd.LineRange{Start: 20, End: 40}), tenth},
		{"one focus line", view(ctxd.ViewFocusOnly, []int{10}), tenth},
		// bodies and signatures keep the focus lines' functions whole too.
		{"signatures keep the focused functions", view(ctxd.ViewSignatures, focus), tenth + defaults.FocusMore},
		// The named definitions alone: none of the focus lines' functions.
		{"none of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 1, End: 100}), tenth - defaults.FocusMore},
		{"none of one", view(ctxd.ViewFocusOnly, []int{10}, ctxd.LineRange{Start: 1, End: 20}), tenth - defaults.FocusMore},
		{"focus view, none", view(ctxd.ViewFocus, focus, ctxd.LineRange{Start: 5, End: 95}), tenth - defaults.FocusMore},
		{"the outline is presence", view(ctxd.ViewOutline, focus), defaults.Outline},
		{"whole", &ctxd.Chunk{Tokens: 1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := defaults.qualityAt(tt.c, 0); got < tt.want-1e-9 || got > tt.want+1e-9 {
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
		return defaults.qualityAt(&ctxd.Chunk{Truncated: true, Truncation: level, Tokens: tokens, OriginalTokens: 1000}, 0)
	}
	order := []float64{at(ctxd.ViewOutline, 50), at(ctxd.ViewFocusOnly, 120), at(ctxd.ViewFocus, 200), at(ctxd.ViewSignatures, 350), at(ctxd.ViewBodies, 600), at(ctxd.ViewBodies, 990), defaults.qualityAt(&ctxd.Chunk{Tokens: 1000}, 0)}
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
	tenth := defaults.ViewBase + defaults.ViewShown/10
	alone := view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 51, End: 100})
	whole := view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 60, End: 100})
	tests := []struct {
		name string
		c    *ctxd.Chunk
		want float64
	}{
		{"second's first line alone (a match line)", alone, tenth},
		{"second whole", whole, tenth + defaults.FocusMore/2},
		{"a match line that is no focus line changes nothing", view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 60, End: 69}, ctxd.LineRange{Start: 71, End: 100}), tenth + defaults.FocusMore/2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := defaults.qualityAt(tt.c, 0); got < tt.want-1e-9 || got > tt.want+1e-9 {
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

// TestGlobalShown: a view showing the request's best definition across
// files (Global 1) whole is worth more than one showing a weaker one, and
// both more than the same view without global scores; many weak
// definitions are worth the best of them; the whole file gains as its
// best view; a definition whose
// first line shows but whose body is elided (signatures) adds nothing; a
// whole file stays 1, and no view reaches it.
func TestGlobalShown(t *testing.T) {
	defs := func(g ...float64) []ctxd.DefScore {
		var ds []ctxd.DefScore
		for k, x := range g {
			ds = append(ds, ctxd.DefScore{Line: 10 + 40*k, Score: 5, Global: x})
		}
		return ds
	}
	view := func(ds []ctxd.DefScore, elided ...ctxd.LineRange) *ctxd.Chunk {
		c := &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewFocusOnly, Elided: elided, Tokens: 100, OriginalTokens: 1000}
		for _, d := range ds {
			c.Facts.FocusLines = append(c.Facts.FocusLines, d.Line)
		}
		c.Facts.FocusDefs = ds
		return c
	}
	rest := ctxd.LineRange{Start: 20, End: 200} // the first function alone
	plain := defaults.qualityAt(view(defs(0, 0), rest), 0)
	best := defaults.qualityAt(view(defs(1, 0.2), rest), 0)
	weak := defaults.qualityAt(view(defs(0.3, 1), rest), 0)
	if want := plain + defaults.GlobalMore*defaults.GlobalOdds; math.Abs(best-want) > 1e-9 {
		t.Errorf("the best definition shown: %.3f, want %.3f", best, want)
	}
	if !(best > weak && weak > plain) {
		t.Errorf("best %.3f, weak %.3f, none %.3f: want best > weak > none", best, weak, plain)
	}
	// The best definition shown counts, not their number: a step adding
	// a stronger definition gains, one adding as weak ones does not.
	both := defaults.qualityAt(view(defs(0.5, 1)), 0)
	whole := defaults.qualityAt(&ctxd.Chunk{Tokens: 1000, Facts: ctxd.Facts{FocusDefs: defs(0.5, 1)}}, 0)
	if one := defaults.qualityAt(view(defs(0.5, 1), rest), 0); both <= one || both >= whole {
		t.Errorf("both shown %.3f, the weaker alone %.3f, whole %.3f: want weaker < both < whole", both, one, whole)
	}
	if want := 1 + defaults.GlobalMore*defaults.GlobalOdds; math.Abs(whole-want) > 1e-9 {
		t.Errorf("whole: %.3f, want %.3f (every definition shown)", whole, want)
	}
	many := view(defs(0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4))
	if g := defaults.globalShown(many); math.Abs(g-defaults.GlobalOdds*0.4) > 1e-9 {
		t.Errorf("eight definitions at 0.4: %.3f, want %.3f (the best alone)", g, defaults.GlobalOdds*0.4)
	}
	if sig := defaults.qualityAt(view(defs(1), ctxd.LineRange{Start: 11, End: 30}), 0); sig != defaults.qualityAt(view(defs(0), ctxd.LineRange{Start: 11, End: 30}), 0) {
		t.Errorf("a body elided gains %.3f", sig)
	}
	if q := defaults.qualityAt(&ctxd.Chunk{Tokens: 1000}, 0); q != 1 {
		t.Errorf("whole without global scores: %.3f", q)
	}
}
