package compress

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ctxd/ctxd"
)

// defaults are the values the tests of the fitter's terms compare with.
var defaults = DefaultValues()

// TestFitValuesConcurrently: two fits with different values run at once
// give what each gives alone (run with -race: the values are the fit's
// own, not package state a search writes while a fit reads it).
func TestFitValuesConcurrently(t *testing.T) {
	c := counter(t)
	cs := []ctxd.Chunk{
		{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: lines("a", 300), Score: 3000},
		{Source: "b.go", ChunkType: ctxd.ChunkFile, Content: lines("b", 120), Score: 2500},
		{Source: "c.go", ChunkType: ctxd.ChunkFile, Content: lines("c", 30), Score: 400},
	}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		n := strings.Count(ch.Content, "\n")
		p := ch.Source[:1]
		return []View{
			{Level: ctxd.ViewSignatures, Text: lines(p, n/4), Elided: []ctxd.LineRange{{Start: n/4 + 1, End: n}}},
			{Level: ctxd.ViewOutline, Text: "func " + p + "()\n", Elided: []ctxd.LineRange{{Start: 1, End: n}}},
		}
	}
	// Outlines worth nearly a whole file: the upgrade pass has little
	// reason to show any file whole.
	other := DefaultValues()
	other.Whole, other.Outline = 0.3, 0.25
	fit := func(v *Values) string {
		got, err := Fit(t.Context(), cs, Options{Budget: 2500, Counter: c, Render: render, Views: views, Values: v})
		if err != nil {
			t.Error(err)
			return ""
		}
		var b strings.Builder
		for _, ch := range got.Chunks {
			fmt.Fprintf(&b, "%s %q %d; ", ch.Source, ch.Truncation, ch.Tokens)
		}
		return b.String()
	}
	def := defaults
	alone := map[*Values]string{nil: fit(nil), &def: fit(&def), &other: fit(&other)}
	if alone[nil] != alone[&def] {
		t.Fatalf("nil values fit %s, DefaultValues %s", alone[nil], alone[&def])
	}
	if alone[nil] == alone[&other] {
		t.Fatalf("both values fit %s: the case does not tell them apart", alone[nil])
	}
	t.Logf("default: %s\nother: %s", alone[nil], alone[&other])
	var wg sync.WaitGroup
	for k := range 8 {
		v := []*Values{nil, &other}[k%2]
		wg.Go(func() {
			if got := fit(v); got != alone[v] {
				t.Errorf("fit %d at once with others: %s, alone %s", k, got, alone[v])
			}
		})
	}
	wg.Wait()
}
