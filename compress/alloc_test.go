package compress

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFitAllocatesByTotalValue: a.go (ranked first, a large file) has a
// signatures step of about 570 tokens whose value per token is the
// highest; b.go, the file the task changes (its line 40 in the ladder, 30 whole), is either a
// focus ladder (its best function alone, then both) or a small file
// shown whole; c.go a small file. The greedy order took a.go's step as
// soon as it fit, so at the larger budget b.go's changed line was hidden
// though it was shown at the smaller one (more budget showed less), and
// though b.go's larger view with what the rest of the tokens buy is
// worth more than a.go's step. The allocation by total value shows the
// line at every budget in the table, within it.
func TestFitAllocatesByTotalValue(t *testing.T) {
	c := counter(t)
	for _, tc := range []struct {
		name    string
		ladder  bool    // b.go a focus ladder, not a small file
		scoreB  float64 // b.go's score
		budgets []int
		line    string // the changed line
	}{
		{"focus ladder", true, 2500, []int{750, 800, 850}, "b line 40:"},
		{"small file whole", false, 900, []int{600, 950, 1000}, "b line 30:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: lines("a", 300), Score: 3000}
			b := ctxd.Chunk{Source: "b.go", ChunkType: ctxd.ChunkFile, Content: lines("b", 30), Score: tc.scoreB}
			if tc.ladder {
				b.Content = lines("b", 200)
				b.Facts.FocusLines = []int{1, 21}
			}
			cc := ctxd.Chunk{Source: "c.go", ChunkType: ctxd.ChunkFile, Content: lines("c", 30), Score: 400}
			if !tc.ladder {
				cc.Score = 880
			}
			views := func(_ context.Context, ch *ctxd.Chunk) []View {
				n := strings.Count(ch.Content, "\n")
				var vs []View
				switch {
				case ch.Source == "a.go":
					vs = append(vs, View{Level: ctxd.ViewSignatures, Text: lines("a", 38), Elided: []ctxd.LineRange{{Start: 39, End: n}}})
				case ch.Source == "b.go" && tc.ladder:
					// The ladder: the best function (lines 1-20), then
					// both (1-45).
					vs = append(vs,
						View{Level: ctxd.ViewFocusOnly, Text: lines("b", 45), Elided: []ctxd.LineRange{{Start: 46, End: n}}},
						View{Level: ctxd.ViewFocusOnly, Text: lines("b", 20), Elided: []ctxd.LineRange{{Start: 21, End: n}}})
				}
				return append(vs, View{Level: ctxd.ViewOutline, Text: "func " + ch.Source[:1] + "()\n", Elided: []ctxd.LineRange{{Start: 1, End: n}}})
			}
			for _, budget := range tc.budgets {
				shown := fitShown(t, []ctxd.Chunk{a, b, cc}, Options{Budget: budget, Counter: c, Render: render, Views: views})
				if ch, ok := shown["b.go"]; !ok || !strings.Contains(ch.Content, tc.line) {
					t.Errorf("budget %d: b.go at %q (%d tokens), want %q shown; a.go at %q", budget, ch.Truncation, ch.Tokens, tc.line, shown["a.go"].Truncation)
				}
			}
			// The greedy order alone hides the line at one of these
			// budgets at least: the case needs allocate.
			hidden := 0
			for _, budget := range tc.budgets {
				shown := fitShown(t, []ctxd.Chunk{a, b, cc}, Options{Budget: budget, Counter: c, Render: render, Views: views, greedy: true})
				if ch, ok := shown["b.go"]; !ok || !strings.Contains(ch.Content, tc.line) {
					hidden++
				}
			}
			if hidden == 0 {
				t.Errorf("the greedy order alone shows %q at every budget %v: the case does not exercise allocate", tc.line, tc.budgets)
			}
		})
	}
}
