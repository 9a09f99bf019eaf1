package compress

import (
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFitGrowsACut: tokens left after every pass go to the head-and-tail
// cuts (files with no structural view too large to show whole), the
// better file's first: on main the presence cut (a sixth of the budget)
// stayed as it was and the rest of the budget went unused.
func TestFitGrowsACut(t *testing.T) {
	c := counter(t)
	a := ctxd.Chunk{Source: "notes/a.txt", ChunkType: ctxd.ChunkFile, Content: lines("alpha line of the notes", 400), Score: 3000}
	b := ctxd.Chunk{Source: "notes/b.txt", ChunkType: ctxd.ChunkFile, Content: lines("beta line of the notes", 400), Score: 1000}
	for _, budget := range []int{300, 600, 1200} {
		got, err := Fit(t.Context(), []ctxd.Chunk{a, b}, Options{Budget: budget, Counter: c, Render: render})
		if err != nil {
			t.Fatal(err)
		}
		if got.TokensUsed > budget || got.TokensUsed < budget*95/100 {
			t.Errorf("budget %d: used %d, want the budget spent to within 5%%", budget, got.TokensUsed)
		}
		if len(got.Chunks) != 2 {
			t.Fatalf("budget %d: %d chunks", budget, len(got.Chunks))
		}
		ga, gb := got.Chunks[0], got.Chunks[1]
		for _, ch := range got.Chunks {
			if n := c.Count(render(ch)); n != ch.Tokens || ch.Truncation != ctxd.ViewMiddle {
				t.Errorf("budget %d: %s at %q, rendered %d tokens, Tokens %d", budget, ch.Source, ch.Truncation, n, ch.Tokens)
			}
		}
		if ga.Tokens <= gb.Tokens {
			t.Errorf("budget %d: a.txt %d tokens, b.txt %d: the better file grows first", budget, ga.Tokens, gb.Tokens)
		}
	}
}
