package compress

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFitCutsALongSignature: a file whose only outline lines are
// signatures longer than the presence slot shows the one the request
// names (else the first) cut at a token boundary and marked, not its
// source's head (on main no whole outline line fitted and the file fell
// to a head and a tail of its source, here its imports: the header
// alone).
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
