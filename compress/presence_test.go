package compress

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFitPresenceOutlineBehindFocus: a file whose smallest view is its
// focused function alone (smaller than its outline of 120 methods, so the
// engine's ladder has no room for the outline) and too large for the
// presence slot is shown as its outline cut to the focused function's
// line, not as a head and a tail of its source: on main the outline was
// not offered (engine's orderViews left it out), and the file fell to a
// middle cut or its header.
func TestFitPresenceOutlineBehindFocus(t *testing.T) {
	c := counter(t)
	var outline strings.Builder
	for i := range 120 {
		fmt.Fprintf(&outline, "%d: def method_%d(self, request: Request, *, timeout: float = 5.0) -> Response\n", 10+5*i, i)
	}
	fmt.Fprintf(&outline, "%d: def send(self, request: Request) -> Response\n", 700)
	focus := "    def send(self, request: Request) -> Response:\n" + lines("        body", 60)
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		return []View{
			{Level: ctxd.ViewFocusOnly, Text: focus, Elided: []ctxd.LineRange{{Start: 1, End: 699}, {Start: 762, End: 800}}},
			{Level: ctxd.ViewOutline, Text: outline.String(), Elided: []ctxd.LineRange{{Start: 1, End: 800}}},
		}
	}
	for _, budget := range []int{150, 200, 300} {
		src := ctxd.Chunk{Source: "httpx/_client.py", ChunkType: ctxd.ChunkFile, Content: lines("src", 800), Score: 500, Facts: ctxd.Facts{FocusLines: []int{700}}}
		shown := fitShown(t, []ctxd.Chunk{src}, Options{Budget: budget, Counter: c, Render: render, Views: views})
		ch, ok := shown[src.Source]
		if !ok {
			t.Errorf("budget %d: absent", budget)
			continue
		}
		if n := c.Count(render(ch)); n != ch.Tokens {
			t.Errorf("budget %d: rendered %d tokens, Tokens %d", budget, n, ch.Tokens)
		}
		if ch.Truncation != ctxd.ViewOutline || !strings.Contains(ch.Content, "700: def send(") {
			t.Errorf("budget %d: at %q, want the outline line of send:\n%s", budget, ch.Truncation, ch.Content)
		}
	}
}

// TestFitCutsALongSignature: a file whose only outline lines are
// signatures longer than the presence slot shows the one the request
// names cut at a token boundary and marked, not its source's head (on
// main no whole outline line fitted and the file fell to a head and a
// tail of its source, here its imports: the header alone).
func TestFitCutsALongSignature(t *testing.T) {
	c := counter(t)
	long := func(name string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "def %s(method: str, url: URL | str", name)
		for _, p := range []string{"params", "content", "data", "files", "json", "headers", "cookies", "auth", "proxy", "timeout", "follow_redirects", "verify", "trust_env"} {
			fmt.Fprintf(&b, ", %s: %sTypes | None = None", p, strings.ToUpper(p[:1])+p[1:])
		}
		b.WriteString(") -> Response")
		return b.String()
	}
	outline := "23: " + long("request") + "\n120: " + long("stream") + "\n"
	src := "from __future__ import annotations\n\nimport typing\nimport contextlib\n\n" + long("request") + ":\n" + lines("    body", 300)
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		return []View{{Level: ctxd.ViewOutline, Text: outline, Elided: []ctxd.LineRange{{Start: 1, End: 306}}}}
	}
	tests := []struct {
		name   string
		facts  ctxd.Facts
		want   string
		budget int
	}{
		{"named", ctxd.Facts{MentionedSymbols: []string{"stream"}}, "120: def stream(method: str", 200},
		{"named, small", ctxd.Facts{MentionedSymbols: []string{"stream"}}, "120: def stream(", 150},
		{"nothing named: the first", ctxd.Facts{}, "23: def request(method: str", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := c.Count(outline); n < 2*presenceLine || n < tt.budget {
				t.Fatalf("the outline is %d tokens: not too long for the test", n)
			}
			ch0 := ctxd.Chunk{Source: "httpx/_api.py", ChunkType: ctxd.ChunkFile, Content: src, Score: 500, Facts: tt.facts}
			shown := fitShown(t, []ctxd.Chunk{ch0}, Options{Budget: tt.budget, Counter: c, Render: render, Views: views})
			ch, ok := shown[ch0.Source]
			if !ok {
				t.Fatal("absent")
			}
			if n := c.Count(render(ch)); n != ch.Tokens {
				t.Errorf("rendered %d tokens, Tokens %d", n, ch.Tokens)
			}
			if ch.Truncation != ctxd.ViewOutline || !strings.Contains(ch.Content, tt.want) || !strings.Contains(ch.Content, lineCut+"\n") {
				t.Errorf("at %q, want %q cut and marked:\n%s", ch.Truncation, tt.want, ch.Content)
			}
		})
	}
}

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
