package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
)

// TestPresenceLineOfAFocusedFile: a Python file of 120 methods whose one
// focused method alone is smaller than its outline and too large for the
// presence slot shows, in that slot, its outline cut to the focused
// method's line. On main the engine left the outline out of the views
// (a focus-only view was no larger) and the fitter had nothing to cut
// but the source: the file's header or its imports.
func TestPresenceLineOfAFocusedFile(t *testing.T) {
	var src strings.Builder
	src.WriteString("import typing\nimport contextlib\n\n\nclass Client:\n")
	for i := range 120 {
		fmt.Fprintf(&src, "    def method_%d(self, request: Request, *, timeout: float = 5.0) -> Response:\n        return self.send(request, timeout=%d)\n\n", i, i)
	}
	line := strings.Count(src.String(), "\n") + 1
	src.WriteString("    def send_with_redirects(self, request: Request) -> Response:\n")
	for i := range 40 {
		fmt.Fprintf(&src, "        response_%d = self._transport.handle_request(request, attempt=%d)\n", i, i)
	}
	src.WriteString("        return response_0\n")
	c := ctxd.Chunk{Source: "httpx/_client.py", ChunkType: ctxd.ChunkFile, Content: src.String(), Score: 500,
		Facts: ctxd.Facts{FocusLines: []int{line}}}
	e := newEngine(t, t.TempDir())
	vs := e.views(t.Context(), &c)
	if len(vs) < 2 || vs[len(vs)-1].Level != ctxd.ViewOutline {
		t.Fatalf("views %v: want the outline last", levels(vs))
	}
	if prev := vs[len(vs)-2]; prev.Level != ctxd.ViewFocusOnly || len(prev.Text) >= len(vs[len(vs)-1].Text) {
		t.Fatalf("views %v: the fixture wants a focus-only view smaller than the outline", levels(vs))
	}
	counter, err := tokens.Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	render := func(c ctxd.Chunk) string { return prompt.Section(c, ctxd.FormatMarkdown) }
	for _, budget := range []int{150, 250} {
		got, err := compress.Fit(t.Context(), []ctxd.Chunk{c}, compress.Options{Budget: budget, Counter: counter, Render: render, Views: e.views})
		if err != nil {
			t.Fatal(err)
		}
		if got.TokensUsed > budget || len(got.Chunks) != 1 {
			t.Fatalf("budget %d: %d chunks, %d tokens", budget, len(got.Chunks), got.TokensUsed)
		}
		ch := got.Chunks[0]
		if ch.Truncation != ctxd.ViewOutline || !strings.Contains(ch.Content, fmt.Sprintf("%d: def send_with_redirects(", line)) {
			t.Errorf("budget %d: at %q, want the outline line of send_with_redirects:\n%s", budget, ch.Truncation, ch.Content)
		}
	}
}

func levels(vs []compress.View) []ctxd.View {
	var ls []ctxd.View
	for _, v := range vs {
		ls = append(ls, v.Level)
	}
	return ls
}
