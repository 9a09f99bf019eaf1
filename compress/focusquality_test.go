package compress

import (
	"testing"

	"github.com/ctxd/ctxd"
)

// TestViewQuality: a view is worth the fitted chance that it shows every
// changed line of an answer file (qualityFit) over the presence every view
// carries (outlineQuality): whole 1, the outline its presence alone, a
// structural view more the more of its file it shows and less when its
// file has no focus lines, a focus view's share taken of at most
// focusWhole tokens, a view hiding the uses a request asks about at most
// half.
func TestViewQuality(t *testing.T) {
	view := func(level ctxd.View, tokens int, focusLines []int) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: level, Tokens: tokens, OriginalTokens: 1000, Facts: ctxd.Facts{FocusLines: focusLines}}
	}
	focus := []int{10}
	if q := qualityAt(&ctxd.Chunk{Tokens: 1000}, 0); q != 1 {
		t.Errorf("whole %.3f, want 1", q)
	}
	if q := qualityAt(nil, 0); q != 0 {
		t.Errorf("none %.3f, want 0", q)
	}
	if q := qualityAt(view(ctxd.ViewOutline, 50, focus), 0); q != outlineQuality {
		t.Errorf("outline %.4f, want its presence %.4f", q, outlineQuality)
	}
	for _, level := range []ctxd.View{ctxd.ViewBodies, ctxd.ViewSignatures, ctxd.ViewFocus, ctxd.ViewFocusOnly} {
		prev := outlineQuality
		for _, tokens := range []int{50, 200, 500, 800, 1000} {
			q := qualityAt(view(level, tokens, focus), 0)
			if q <= prev || q >= 1 {
				t.Errorf("%s at %d of 1000 tokens: %.3f, want above %.3f and below the file whole", level, tokens, q, prev)
			}
			prev = q
			if without := qualityAt(view(level, tokens, nil), 0); without >= q || without <= outlineQuality {
				t.Errorf("%s at %d tokens without focus lines %.3f, not between the outline and %.3f with them", level, tokens, without, q)
			}
		}
	}
	// Measured: a focus-only view of a tenth of its file showed every
	// changed line for 44% of answer files, a bodies view of nine tenths
	// for 88%.
	if q := qualityAt(view(ctxd.ViewFocusOnly, 100, focus), 0); q < outlineQuality+(1-outlineQuality)*0.40 || q > outlineQuality+(1-outlineQuality)*0.48 {
		t.Errorf("focus-only, a tenth: %.3f, want the presence and the measured 0.44 or so of the rest", q)
	}
	if q := qualityAt(view(ctxd.ViewBodies, 900, focus), 0); q < outlineQuality+(1-outlineQuality)*0.85 || q > outlineQuality+(1-outlineQuality)*0.95 {
		t.Errorf("bodies, nine tenths: %.3f, want the presence and the measured 0.88 or so of the rest", q)
	}
	if capped, free := qualityAt(view(ctxd.ViewFocus, 100, focus), 200), qualityAt(view(ctxd.ViewFocus, 100, focus), 0); capped <= free {
		t.Errorf("focus view of a file larger than focusWhole: %.3f, not above %.3f", capped, free)
	}
	refs := view(ctxd.ViewFocusOnly, 100, focus)
	refs.Facts.RefLines = []int{500}
	refs.Elided = []ctxd.LineRange{{Start: 400, End: 600}}
	if q, full := qualityAt(refs, 0), qualityAt(view(ctxd.ViewFocusOnly, 100, focus), 0); q > full/2+1e-9 {
		t.Errorf("hiding every use asked about: %.3f, want at most half of %.3f", q, full)
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
// only when the line after it is shown too: an upgrade to the view with
// that function whole is not refused as one hiding it, and one from the
// view with it whole to its first line alone is (BENCHMARKS.md
// "h25small": requests' iter_content, cli's command.go).
func TestFocusLineShownAlone(t *testing.T) {
	facts := ctxd.Facts{FocusLines: []int{10, 50, 90}, MatchLines: []int{50, 70}}
	view := func(elided ...ctxd.LineRange) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewFocusOnly, Elided: elided, Tokens: 100, OriginalTokens: 1000, Facts: facts}
	}
	alone := view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 51, End: 100})
	whole := view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 60, End: 100})
	if focusLineShown(alone, 50) || !focusLineShown(whole, 50) {
		t.Errorf("second shown: its first line alone %v, whole %v; want false, true", focusLineShown(alone, 50), focusLineShown(whole, 50))
	}
	if !focusLineShown(view(ctxd.LineRange{Start: 20, End: 49}, ctxd.LineRange{Start: 60, End: 69}, ctxd.LineRange{Start: 71, End: 100}), 50) {
		t.Error("a match line that is no focus line, elided after it: the second not shown")
	}
	if dropsFocus(alone, view(ctxd.LineRange{Start: 20, End: 100})) {
		t.Error("second's first line alone -> best alone: refused, as if the second were shown")
	}
	if !dropsFocus(whole, alone) {
		t.Error("second whole -> its first line alone: not refused")
	}
}
