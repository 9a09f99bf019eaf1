package compress

import (
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusQuality: a focus view is worth more the more of its focus
// lines' functions it shows, so the upgrade pass grows the best function
// alone into the best three; a view without focus lines keeps its level's
// quality.
func TestFocusQuality(t *testing.T) {
	focus := []int{10, 50, 90}
	view := func(level ctxd.View, focusLines []int, elided ...ctxd.LineRange) *ctxd.Chunk {
		return &ctxd.Chunk{Truncated: true, Truncation: level, Elided: elided, Facts: ctxd.Facts{FocusLines: focusLines}}
	}
	tests := []struct {
		name string
		c    *ctxd.Chunk
		want float64
	}{
		{"best one of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 20, End: 100}), quality[ctxd.ViewFocusOnly]},
		{"two of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 60, End: 100}), quality[ctxd.ViewFocusOnly] + focusMore/2},
		{"all three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 20, End: 40}), quality[ctxd.ViewFocusOnly] + focusMore},
		{"focus view, all three", view(ctxd.ViewFocus, focus), quality[ctxd.ViewFocus] + focusMore},
		{"no focus lines", view(ctxd.ViewFocusOnly, nil, ctxd.LineRange{Start: 20, End: 40}), quality[ctxd.ViewFocusOnly]},
		{"one focus line", view(ctxd.ViewFocusOnly, []int{10}), quality[ctxd.ViewFocusOnly]},
		{"signatures ignore focus lines", view(ctxd.ViewSignatures, focus), quality[ctxd.ViewSignatures]},
		// The named definitions alone: none of the focus lines' functions.
		{"none of three", view(ctxd.ViewFocusOnly, focus, ctxd.LineRange{Start: 1, End: 100}), quality[ctxd.ViewFocusOnly] - focusMore},
		{"none of one", view(ctxd.ViewFocusOnly, []int{10}, ctxd.LineRange{Start: 1, End: 20}), quality[ctxd.ViewFocusOnly] - focusMore},
		{"focus view, none", view(ctxd.ViewFocus, focus, ctxd.LineRange{Start: 5, End: 95}), quality[ctxd.ViewFocus] - focusMore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := qualityOf(tt.c); got < tt.want-1e-9 || got > tt.want+1e-9 {
				t.Errorf("quality %.3f, want %.3f", got, tt.want)
			}
		})
	}
}
