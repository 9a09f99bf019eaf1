package compress

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
)

func counter(t testing.TB) tokens.Counter {
	t.Helper()
	c, err := tokens.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func render(c ctxd.Chunk) string { return prompt.Section(c, ctxd.FormatMarkdown) }

func lines(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s line %d: the quick brown fox jumps over the lazy dog\n", prefix, i+1)
	}
	return b.String()
}

func TestFit(t *testing.T) {
	small := ctxd.Chunk{Source: "small.go", ChunkType: ctxd.ChunkFile, Content: "package a\n"}
	big := ctxd.Chunk{Source: "big.txt", ChunkType: ctxd.ChunkFile, Content: lines("big", 400)}
	mid := ctxd.Chunk{Source: "mid.txt", ChunkType: ctxd.ChunkFile, Content: lines("mid", 20)}
	// wide is over presenceWhole, so the presence pass looks at its views.
	wide := ctxd.Chunk{Source: "wide.go", ChunkType: ctxd.ChunkFile, Content: lines("wide", 40)}
	c := counter(t)
	smallCost := c.Count(render(small))
	midCost := c.Count(render(mid))

	tests := []struct {
		name       string
		chunks     []ctxd.Chunk
		budget     int
		views      ViewsFunc
		included   []string
		truncation map[string]ctxd.View
		skipped    []string
	}{
		{"everything fits", []ctxd.Chunk{small, mid}, 10000, nil, []string{"small.go", "mid.txt"}, nil, nil},
		{"big is cut in the middle", []ctxd.Chunk{small, big}, 600, nil, []string{"small.go", "big.txt"}, map[string]ctxd.View{"big.txt": ctxd.ViewMiddle}, nil},
		// The presence pass places both before the first is upgraded: mid
		// is cut so that small is there too.
		{"both present before upgrades", []ctxd.Chunk{mid, small}, midCost + 2, nil, []string{"mid.txt", "small.go"}, map[string]ctxd.View{"mid.txt": ctxd.ViewMiddle}, nil},
		{"too little room for a partial view", []ctxd.Chunk{mid, small}, 40, nil, []string{"small.go"}, nil, []string{"mid.txt"}},
		{"exact fit", []ctxd.Chunk{small}, smallCost, nil, []string{"small.go"}, nil, nil},
		{"zero budget", []ctxd.Chunk{small}, 0, nil, nil, nil, []string{"small.go"}},
		{
			"structural view preferred", []ctxd.Chunk{big}, 300,
			func(_ context.Context, c *ctxd.Chunk) []View {
				return []View{
					{Level: ctxd.ViewBodies, Text: lines("body", 200)},
					{Level: ctxd.ViewSignatures, Text: "func Big()\n", Elided: []ctxd.LineRange{{Start: 2, End: 400}}},
				}
			},
			[]string{"big.txt"}, map[string]ctxd.View{"big.txt": ctxd.ViewSignatures}, nil,
		},
		{
			// A "bodies" view of 491 tokens was chosen over the whole file
			// of 487: a view is never chosen when it is not smaller.
			"a view not smaller than whole is never chosen", []ctxd.Chunk{wide}, 5000,
			func(_ context.Context, c *ctxd.Chunk) []View {
				return []View{{Level: ctxd.ViewBodies, Text: c.Content + "{ /* ... 3 lines */ }\n"}}
			},
			[]string{"wide.go"}, map[string]ctxd.View{"wide.go": ""}, nil,
		},
		{
			"nor when it is as large", []ctxd.Chunk{wide}, 5000,
			func(_ context.Context, c *ctxd.Chunk) []View {
				return []View{
					{Level: ctxd.ViewBodies, Text: c.Content},
					{Level: ctxd.ViewSignatures, Text: c.Content + "more\n"},
				}
			},
			[]string{"wide.go"}, map[string]ctxd.View{"wide.go": ""}, nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Fit(t.Context(), tt.chunks, Options{Budget: tt.budget, Counter: c, Render: render, Views: tt.views})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			sum := 0
			for _, ch := range got.Chunks {
				names = append(names, ch.Source)
				sum += ch.Tokens
				if n := c.Count(render(ch)); n != ch.Tokens {
					t.Errorf("%s: Tokens %d, rendered count %d", ch.Source, ch.Tokens, n)
				}
				if want := tt.truncation[ch.Source]; want != ch.Truncation && !(want == "" && !ch.Truncated) {
					t.Errorf("%s: truncation %q, want %q", ch.Source, ch.Truncation, want)
				}
				if ch.Truncated && ch.OriginalTokens <= ch.Tokens {
					t.Errorf("%s: truncated to %d from %d", ch.Source, ch.Tokens, ch.OriginalTokens)
				}
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.included) && !(len(names) == 0 && len(tt.included) == 0) {
				t.Errorf("included %v, want %v", names, tt.included)
			}
			var skipped []string
			for _, s := range got.Skipped {
				skipped = append(skipped, s.Source)
				if s.Reason == "" {
					t.Errorf("%s skipped without a reason", s.Source)
				}
			}
			if fmt.Sprint(skipped) != fmt.Sprint(tt.skipped) && !(len(skipped) == 0 && len(tt.skipped) == 0) {
				t.Errorf("skipped %v, want %v", skipped, tt.skipped)
			}
			if sum != got.TokensUsed || got.TokensUsed > tt.budget {
				t.Errorf("tokens used %d (sum %d), budget %d", got.TokensUsed, sum, tt.budget)
			}
		})
	}
}

// TestFitDoesNotStarveTheTarget is the failure the allocator exists for:
// two large chunks ahead of the target used to take the whole budget (the
// greedy fitter included them nearly whole and skipped the target); now
// every one is present, the target at least at its signatures.
func TestFitDoesNotStarveTheTarget(t *testing.T) {
	c := counter(t)
	first := ctxd.Chunk{Source: "HISTORY.md", ChunkType: ctxd.ChunkFile, Content: lines("history", 160), Score: 900,
		ScoreBreakdown: []ctxd.ScoreTerm{{Term: ctxd.TermPriority, Value: 900}}}
	second := ctxd.Chunk{Source: "docs/guide.md", ChunkType: ctxd.ChunkFile, Content: lines("guide", 150), Score: 800}
	target := ctxd.Chunk{Source: "server.go", ChunkType: ctxd.ChunkFile, Content: lines("server", 230), Score: 700}
	extra := ctxd.Chunk{Source: "extra.go", ChunkType: ctxd.ChunkFile, Content: lines("extra", 400), Score: 10,
		ScoreBreakdown: []ctxd.ScoreTerm{{Term: ctxd.TermPriority, Value: 10, Reason: "low"}}}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		switch ch.Source {
		case "server.go":
			return []View{
				{Level: ctxd.ViewBodies, Text: lines("server body", 120)},
				{Level: ctxd.ViewSignatures, Text: "func (s *Server) Shutdown(ctx context.Context) error\nfunc (s *Server) Serve() error\n"},
				{Level: ctxd.ViewOutline, Text: "   \n"}, // empty: never included
			}
		case "extra.go":
			return []View{{Level: ctxd.ViewOutline, Text: "\n\n"}}
		}
		return nil
	}
	const budget = 4000
	got, err := Fit(t.Context(), []ctxd.Chunk{first, second, target, extra}, Options{Budget: budget, Counter: c, Render: render, Views: views})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]ctxd.Chunk{}
	for _, ch := range got.Chunks {
		in[ch.Source] = ch
		if strings.TrimSpace(ch.Content) == "" {
			t.Errorf("%s included with an empty view (%s)", ch.Source, ch.Truncation)
		}
	}
	tg, ok := in["server.go"]
	if !ok {
		t.Fatalf("target missing; skipped %+v", got.Skipped)
	}
	// The target is present at a structural view (its signatures), not
	// cut blindly, though the documents ranked above it take the rest by
	// value per token.
	if tg.Truncation != ctxd.ViewSignatures && tg.Truncation != ctxd.ViewBodies {
		t.Errorf("target at %q:\n%.200s", tg.Truncation, tg.Content)
	}
	if _, ok := in["HISTORY.md"]; !ok {
		t.Errorf("first chunk missing")
	}
	if got.TokensUsed > budget {
		t.Errorf("used %d of %d", got.TokensUsed, budget)
	}
	for _, s := range got.Skipped {
		if s.Source == "extra.go" && (len(s.ScoreBreakdown) != 1 || !strings.Contains(s.Reason, "needs")) {
			t.Errorf("skipped extra.go lost its breakdown or need: %+v", s)
		}
	}
}

func TestFitMiddleRecordsElided(t *testing.T) {
	c := counter(t)
	big := ctxd.Chunk{Source: "big.txt", ChunkType: ctxd.ChunkFile, Content: lines("big", 400)}
	got, err := Fit(t.Context(), []ctxd.Chunk{big}, Options{Budget: 500, Counter: c, Render: render})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chunks) != 1 {
		t.Fatalf("chunks: %+v", got.Skipped)
	}
	ch := got.Chunks[0]
	if len(ch.Elided) != 1 || ch.Elided[0].Start < 2 || ch.Elided[0].End > 399 || ch.Elided[0].Start > ch.Elided[0].End {
		t.Errorf("elided %v", ch.Elided)
	}
	if !strings.HasPrefix(ch.Content, "big line 1:") || !strings.Contains(ch.Content, "big line 400:") {
		t.Errorf("head or tail lost:\n%s", ch.Content)
	}
}

// TestFitCutsTheOutline: a code file too large for even its outline shows
// part of its outline (the definitions' names), not a head and a tail of
// its source (a licence, imports and a closing brace).
func TestFitCutsTheOutline(t *testing.T) {
	c := counter(t)
	src := ctxd.Chunk{Source: "server.go", ChunkType: ctxd.ChunkFile, Content: "// Copyright\n\npackage server\n\nimport \"net\"\n" + lines("src", 600), Score: 500}
	var outline strings.Builder
	for i := range 120 {
		fmt.Fprintf(&outline, "func (s *Server) Handler%d(w ResponseWriter, r *Request) error\n", i)
	}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		return []View{
			{Level: ctxd.ViewSignatures, Text: lines("sig", 300)},
			{Level: ctxd.ViewOutline, Text: outline.String(), Elided: []ctxd.LineRange{{Start: 1, End: 605}}},
		}
	}
	got, err := Fit(t.Context(), []ctxd.Chunk{src}, Options{Budget: 600, Counter: c, Render: render, Views: views})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chunks) != 1 {
		t.Fatalf("chunks: %+v", got.Skipped)
	}
	ch := got.Chunks[0]
	if ch.Truncation != ctxd.ViewOutline || !strings.HasPrefix(ch.Content, "func (s *Server) Handler0(") || strings.Contains(ch.Content, "Copyright") {
		t.Errorf("at %q:\n%.300s", ch.Truncation, ch.Content)
	}
	if strings.Contains(ch.Content, "Handler60(") || got.TokensUsed > 600 {
		t.Errorf("the whole outline (or more than the budget: %d) is in", got.TokensUsed)
	}
}

// TestFitCutOutlineKeepsMatches: the cut outline of a file too large for
// its outline keeps the lines the request points at (a named symbol in
// the middle, the definition holding the cursor), never inside an elided
// gap, and stays within the budget.
func TestFitCutOutlineKeepsMatches(t *testing.T) {
	c := counter(t)
	var outline strings.Builder
	for i := range 120 {
		fmt.Fprintf(&outline, "%d: func (s *Server) Handler%d(w ResponseWriter, r *Request) error\n", 10+5*i, i)
	}
	fmt.Fprintf(&outline, "700: func (s *Server) include_router(r *Router)\n")
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		return []View{
			{Level: ctxd.ViewSignatures, Text: lines("sig", 300)},
			{Level: ctxd.ViewOutline, Text: outline.String(), Elided: []ctxd.LineRange{{Start: 1, End: 705}}},
		}
	}
	tests := []struct {
		name  string
		facts ctxd.Facts
		want  []string
	}{
		{"named", ctxd.Facts{MentionedSymbols: []string{"Server.Handler61"}}, []string{"315: func (s *Server) Handler61("}},
		{"named last", ctxd.Facts{MentionedSymbols: []string{"include_router"}}, []string{"700: func (s *Server) include_router("}},
		{"cursor", ctxd.Facts{Cursor: 402}, []string{"400: func (s *Server) Handler78("}},
		{"both", ctxd.Facts{Cursor: 253, MentionedSymbols: []string{"Handler90"}}, []string{"250: func (s *Server) Handler48(", "460: func (s *Server) Handler90("}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ctxd.Chunk{Source: "server.go", ChunkType: ctxd.ChunkFile, Content: lines("src", 700), Score: 500, Facts: tt.facts}
			got, err := Fit(t.Context(), []ctxd.Chunk{src}, Options{Budget: 600, Counter: c, Render: render, Views: views})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Chunks) != 1 || got.TokensUsed > 600 {
				t.Fatalf("chunks %d, %d tokens: %+v", len(got.Chunks), got.TokensUsed, got.Skipped)
			}
			ch := got.Chunks[0]
			if ch.Truncation != ctxd.ViewOutline {
				t.Errorf("at %q:\n%.300s", ch.Truncation, ch.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(ch.Content, "\n"+w) {
					t.Errorf("the outline line %q is not shown:\n%s", w, ch.Content)
				}
			}
			// The gap marker counts its lines ("1 outline line", never "1 outline lines").
			if !regexp.MustCompile(`\.\.\. (1 outline line|[02-9]\d* outline lines|1\d+ outline lines) \.\.\.`).MatchString(ch.Content) {
				t.Errorf("no gap marker:\n%s", ch.Content)
			}
		})
	}
}

func TestFitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Fit(ctx, []ctxd.Chunk{{Source: "a", Content: "x"}}, Options{Budget: 10, Counter: counter(t)})
	if err == nil {
		t.Fatal("Fit ignored a cancelled context")
	}
}

// TestFitNeverExceedsBudget is a property test over random chunk sets and
// budgets, with a fixed seed so CI is deterministic.
func TestFitNeverExceedsBudget(t *testing.T) {
	c := counter(t)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		n := 1 + r.IntN(8)
		cs := make([]ctxd.Chunk, n)
		for j := range cs {
			cs[j] = ctxd.Chunk{Source: fmt.Sprintf("f%d.go", j), ChunkType: ctxd.ChunkFile, Content: lines("x", r.IntN(300))}
		}
		budget := r.IntN(3000)
		got, err := Fit(t.Context(), cs, Options{Budget: budget, Counter: c, Render: render})
		if err != nil {
			t.Fatal(err)
		}
		if got.TokensUsed > budget {
			t.Fatalf("case %d: used %d of %d", i, got.TokensUsed, budget)
		}
		if len(got.Chunks)+len(got.Skipped) != n {
			t.Fatalf("case %d: %d included + %d skipped != %d", i, len(got.Chunks), len(got.Skipped), n)
		}
	}
}

func FuzzFit(f *testing.F) {
	f.Add("package a\nfunc A() {}\n", 40, uint8(3))
	f.Add(strings.Repeat("é日本\n", 500), 100, uint8(1))
	c := counter(f)
	f.Fuzz(func(t *testing.T, text string, budget int, n uint8) {
		if budget > 1<<16 || budget < -10 || len(text) > 1<<16 {
			return
		}
		cs := make([]ctxd.Chunk, 1+int(n%5))
		for i := range cs {
			cs[i] = ctxd.Chunk{Source: fmt.Sprint(i), ChunkType: ctxd.ChunkFile, Content: strings.Repeat(text, i+1)}
		}
		got, err := Fit(context.Background(), cs, Options{Budget: budget, Counter: c, Render: render})
		if err != nil {
			t.Fatal(err)
		}
		if got.TokensUsed > max(budget, 0) {
			t.Fatalf("used %d of %d", got.TokensUsed, budget)
		}
	})
}

func BenchmarkFit(b *testing.B) {
	c := counter(b)
	for _, n := range []int{10, 100, 1000} {
		cs := make([]ctxd.Chunk, n)
		for i := range cs {
			cs[i] = ctxd.Chunk{Source: fmt.Sprintf("f%d.go", i), ChunkType: ctxd.ChunkFile, Content: lines("x", 20+i%50)}
		}
		b.Run(fmt.Sprint("chunks=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Fit(context.Background(), cs, Options{Budget: 8000, Counter: c, Render: render}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFitFocusKeepsTheFramesFunction: the innermost frame's file (critical,
// with error lines) whose whole text does not fit is placed at the
// smallest view that keeps the focused function (signatures), not at the
// outline, which drops every body, and before the presence pass spends the
// budget on other files; without a focus it still grows to a structural
// view before other files are placed, and the budget holds.
func TestFitFocusKeepsTheFramesFunction(t *testing.T) {
	c := counter(t)
	frame := ctxd.Chunk{Source: "tree.go", ChunkType: ctxd.ChunkFile, Content: lines("tree", 600), Score: 1500,
		Priority: ctxd.PriorityCritical, Facts: ctxd.Facts{ErrorLines: []int{472}, InnermostFrame: true}}
	caller := ctxd.Chunk{Source: "gin.go", ChunkType: ctxd.ChunkFile, Content: lines("gin", 600), Score: 1400,
		Priority: ctxd.PriorityCritical}
	// Well-scored small files that the presence pass places whole,
	// spending about half the budget before any upgrade.
	var others []ctxd.Chunk
	for i := range 6 {
		others = append(others, ctxd.Chunk{Source: fmt.Sprintf("other%d.go", i), ChunkType: ctxd.ChunkFile,
			Content: lines(fmt.Sprintf("other %d", i), 25), Score: float64(900 - i)})
	}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		switch ch.Source {
		case "tree.go":
			return []View{
				{Level: ctxd.ViewBodies, Text: lines("tree body", 300)},
				{Level: ctxd.ViewSignatures, Text: "func (n *node) addRoute(path string)\n" + lines("getValue kept", 170)},
				{Level: ctxd.ViewOutline, Text: "418: func (n *node) getValue(path string)\n"},
			}
		case "gin.go":
			return []View{
				{Level: ctxd.ViewSignatures, Text: lines("gin sig", 200)},
				{Level: ctxd.ViewOutline, Text: "717: func (engine *Engine) handleHTTPRequest(c *Context)\n"},
			}
		}
		return nil
	}
	const budget = 4000
	for _, tt := range []struct {
		name  string
		chunk ctxd.Chunk
		want  ctxd.View
	}{
		{"error lines", frame, ctxd.ViewSignatures},
		{"cursor", func() ctxd.Chunk { f := frame; f.Facts = ctxd.Facts{Cursor: 472}; return f }(), ctxd.ViewSignatures},
		{"no focus", func() ctxd.Chunk { f := frame; f.Facts = ctxd.Facts{}; return f }(), ctxd.ViewSignatures},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Fit(t.Context(), append([]ctxd.Chunk{tt.chunk, caller}, others...), Options{Budget: budget, Counter: c, Render: render, Views: views})
			if err != nil {
				t.Fatal(err)
			}
			in := map[string]ctxd.Chunk{}
			for _, ch := range got.Chunks {
				in[ch.Source] = ch
			}
			if tr := in["tree.go"]; tr.Truncation != tt.want {
				t.Errorf("tree.go at %q, want %q", tr.Truncation, tt.want)
			}
			if _, ok := in["gin.go"]; !ok {
				t.Errorf("the caller's file is missing; skipped %+v", got.Skipped)
			}
			if got.TokensUsed > budget {
				t.Errorf("used %d of %d", got.TokensUsed, budget)
			}
		})
	}
}

// TestFitUpgradesSourceBeforeTests: outside test tasks, the budget left
// after the presence pass deepens the source file before a test file
// ranked just above it; for a test task the test file comes first.
func TestFitUpgradesSourceBeforeTests(t *testing.T) {
	c := counter(t)
	test := ctxd.Chunk{Source: "server_test.go", ChunkType: ctxd.ChunkFile, Content: lines("test", 400), Score: 1000, Facts: ctxd.Facts{Test: true}}
	src := ctxd.Chunk{Source: "server.go", ChunkType: ctxd.ChunkFile, Content: lines("server", 400), Score: 900}
	// A small file ranked first, placed whole, so the two compete at
	// ranks 2 and 3 (the weight divides a score by its rank).
	top := ctxd.Chunk{Source: "README.md", ChunkType: ctxd.ChunkFile, Content: "serve\n", Score: 1100}
	budget := roomForOneBody(c, top, "server_test.go")
	for _, tt := range []struct {
		task ctxd.TaskType
		deep string
	}{
		{ctxd.TaskImplement, "server.go"},
		{ctxd.TaskDebug, "server.go"},
		{ctxd.TaskTest, "server_test.go"},
	} {
		t.Run(string(tt.task), func(t *testing.T) {
			got, err := Fit(t.Context(), []ctxd.Chunk{top, test, src}, Options{Budget: budget, Counter: c, Render: render, Views: bodiesOrOutline, Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			levels := map[string]ctxd.View{}
			for _, ch := range got.Chunks {
				levels[ch.Source] = ch.Truncation
			}
			if len(levels) != 3 || levels[tt.deep] != ctxd.ViewBodies {
				t.Errorf("levels %v, want %s at bodies", levels, tt.deep)
			}
			if got.TokensUsed > budget {
				t.Errorf("used %d of %d", got.TokensUsed, budget)
			}
		})
	}
}

// TestFitWeighsTheAnswerOdds: of two large files ranked 2nd and 3rd
// with room to deepen one, the upgrade pass deepens the one whose score
// terms say it is more likely the file the task changes (answerOdds: a
// strong lexical match that changed with the request's files, over a
// lexical match on a common word whose score is its priority and graph
// rank), not the one ranked higher by a few points. Without score terms
// the rank decides, as before.
func TestFitWeighsTheAnswerOdds(t *testing.T) {
	c := counter(t)
	terms := func(kv ...any) []ctxd.ScoreTerm {
		var ts []ctxd.ScoreTerm
		for k := 0; k < len(kv); k += 2 {
			ts = append(ts, ctxd.ScoreTerm{Term: kv[k].(string), Value: kv[k+1].(float64)})
		}
		return ts
	}
	// linked: HIGH, ranked 1st lexically for one common word, linked by
	// the graph; changed: MEDIUM, the request's rare words, co-changed.
	linked := terms(ctxd.TermPriority, 800.0, ctxd.TermRelevance, 30.0, ctxd.TermRank, 300.0, ctxd.TermGraph, 150.0, ctxd.TermSize, -20.0)
	changed := terms(ctxd.TermPriority, 500.0, ctxd.TermRelevance, 300.0, ctxd.TermRank, 200.0, ctxd.TermCoChange, 150.0, ctxd.TermSize, -20.0)
	// The score is the terms' sum; b ranks below a by 10 when they are
	// alike.
	score := func(ts []ctxd.ScoreTerm, none float64) float64 {
		if ts == nil {
			return none
		}
		var sum float64
		for _, t := range ts {
			sum += t.Value
		}
		return sum
	}
	top := ctxd.Chunk{Source: "README.md", ChunkType: ctxd.ChunkFile, Content: "serve\n", Score: 1400}
	budget := roomForOneBody(c, top, "a.go")
	for _, tt := range []struct {
		name       string
		tA, tB     []ctxd.ScoreTerm
		deep, flat string
	}{
		{"the odds decide", linked, changed, "b.go", "a.go"},
		{"alike terms: the rank decides", changed, changed, "a.go", "b.go"},
		{"no terms: the rank decides", nil, nil, "a.go", "b.go"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: lines("a", 400), Score: score(tt.tA, 1300), Tokens: 3000, ScoreBreakdown: tt.tA}
			b := ctxd.Chunk{Source: "b.go", ChunkType: ctxd.ChunkFile, Content: lines("b", 400), Score: score(tt.tB, 1310) - 10, Tokens: 3000, ScoreBreakdown: tt.tB}
			got, err := Fit(t.Context(), []ctxd.Chunk{top, a, b}, Options{Budget: budget, Counter: c, Render: render, Views: bodiesOrOutline, Task: ctxd.TaskImplement})
			if err != nil {
				t.Fatal(err)
			}
			levels := map[string]ctxd.View{}
			for _, ch := range got.Chunks {
				levels[ch.Source] = ch.Truncation
			}
			if len(levels) != 3 || levels[tt.deep] != ctxd.ViewBodies || levels[tt.flat] != ctxd.ViewOutline {
				t.Errorf("levels %v, want %s at bodies, %s at outline", levels, tt.deep, tt.flat)
			}
			if got.TokensUsed > budget {
				t.Errorf("used %d of %d", got.TokensUsed, budget)
			}
		})
	}
}

// TestFitShowsTheTopFileWhole is issue 25's allocation failure: the file
// the task most likely needs stayed at its bodies view (its changed lines
// collapsed) while the budget went to making the next file whole. A bodies
// view of half a file is worth about half of it, so the allocator spends
// on the best file whole before it upgrades the next one.
func TestFitShowsTheTopFileWhole(t *testing.T) {
	c := counter(t)
	mk := func(name string, n int, score float64) ctxd.Chunk {
		return ctxd.Chunk{Source: name, ChunkType: ctxd.ChunkFile, Content: lines(name, n), Score: score}
	}
	top := mk("top.go", 65, 2000)
	cs := []ctxd.Chunk{top, mk("b.go", 40, 1500), mk("c.go", 40, 1400), mk("d.go", 40, 1300)}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		ls := strings.SplitAfter(ch.Content, "\n")
		n := len(ls) - 1
		return []View{
			{Level: ctxd.ViewBodies, Text: strings.Join(ls[:n/2], ""), Elided: []ctxd.LineRange{{Start: n/2 + 1, End: n}}},
			{Level: ctxd.ViewOutline, Text: "func " + strings.TrimSuffix(ch.Source, ".go") + "()\n", Elided: []ctxd.LineRange{{Start: 1, End: n}}},
		}
	}
	whole := c.Count(render(top))
	// Room for the top file whole and the others' outlines, not for it
	// and another file whole.
	budget := whole + 3*c.Count(render(ctxd.Chunk{Source: "b.go", Content: "func b()\n"})) + 300
	got, err := Fit(t.Context(), cs, Options{Budget: budget, Counter: c, Render: render, Views: views})
	if err != nil {
		t.Fatal(err)
	}
	if got.TokensUsed > budget {
		t.Fatalf("used %d of %d", got.TokensUsed, budget)
	}
	views4 := map[string]ctxd.View{}
	for _, ch := range got.Chunks {
		views4[ch.Source] = ch.Shown()
	}
	if views4["top.go"] != ctxd.ViewFull {
		t.Errorf("top.go at %q, want whole; views %v", views4["top.go"], views4)
	}
	for _, s := range []string{"b.go", "c.go", "d.go"} {
		if views4[s] == "" {
			t.Errorf("%s left out; views %v", s, views4)
		}
	}
}

// TestPresenceBudget: half of a small budget goes to making the best
// chunks present; of a larger one, less than half, growing with it.
func TestPresenceBudget(t *testing.T) {
	tests := []struct{ left, want int }{
		{0, 0},
		{2000, 1000},
		{presenceFirst, presenceFirst / 2},
		{presenceFirst + 4000, presenceFirst/2 + int(presenceRest*4000)},
	}
	for _, tt := range tests {
		if got := defaults.presenceBudget(tt.left); got != tt.want {
			t.Errorf("presenceBudget(%d) = %d, want %d", tt.left, got, tt.want)
		}
	}
	prev := 0
	for left := 0; left <= 200000; left += 1000 {
		got := defaults.presenceBudget(left)
		if got < prev || got > left/2 {
			t.Fatalf("presenceBudget(%d) = %d after %d: not growing, or over half", left, got, prev)
		}
		prev = got
	}
}

// TestFitSwapsForTheLump: the best file's function alone is a lump of
// about 1,500 tokens; a small file ranked fourth, placed as its presence
// line, is cheaper to show whole and gains more per token, so the greedy
// upgrade shows it first and the lump no longer fits. The lump is worth
// more than the small file whole: the lookahead puts the small file back
// to its line and shows the function, within the budget, every file
// present.
func TestFitSwapsForTheLump(t *testing.T) {
	c := counter(t)
	a := ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: lines("a", 300), Score: 3000, Facts: ctxd.Facts{FocusLines: []int{101}}}
	body := lines("a", 200)[len(lines("a", 100)):] // lines 101-200
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		if ch.Source != "a.go" {
			return nil
		}
		return []View{
			{Level: ctxd.ViewFocusOnly, Text: body, Elided: []ctxd.LineRange{{Start: 1, End: 100}, {Start: 201, End: 300}}},
			{Level: ctxd.ViewOutline, Text: "func a()\n", Elided: []ctxd.LineRange{{Start: 1, End: 300}}},
		}
	}
	b := ctxd.Chunk{Source: "b.go", ChunkType: ctxd.ChunkFile, Content: lines("b", 8), Score: 2900}
	cc := ctxd.Chunk{Source: "c.go", ChunkType: ctxd.ChunkFile, Content: lines("c", 8), Score: 2800}
	d := ctxd.Chunk{Source: "d.md", ChunkType: ctxd.ChunkFile, Content: lines("d", 14), Score: 2700}
	cost := func(ch ctxd.Chunk) int { return c.Count(render(ch)) }
	outline, lump := lumpCosts(c, a, body)
	// Room after the presence pass (a's outline, b and c whole, d's line)
	// for the lump, but not for it and d whole.
	dWhole := cost(d)
	budget := outline + cost(b) + cost(cc) + presenceLine + lump - outline + (dWhole-presenceLine)/2
	shown := fitShown(t, []ctxd.Chunk{a, b, cc, d}, Options{Budget: budget, Counter: c, Render: render, Views: views})
	if ch := shown["a.go"]; ch.Truncation != ctxd.ViewFocusOnly || !strings.Contains(ch.Content, "a line 150:") {
		t.Errorf("a.go at %q (%d tokens), want its function alone; budget %d", ch.Truncation, ch.Tokens, budget)
	}
	for _, s := range []string{"b.go", "c.go", "d.md"} {
		if _, ok := shown[s]; !ok {
			t.Errorf("%s left out", s)
		}
	}
}

// TestFitPresenceLines: past the best PresenceFull chunks, the presence
// pass places a presence line instead of a small file whole: eleven
// small files ranked below the best file had taken the presence share,
// and two were left out; now every file is present, and the best file
// is whole (the upgrade pass shows the small files whole first, by value
// per token, and the lookahead puts them back to their lines for it).
func TestFitPresenceLines(t *testing.T) {
	c := counter(t)
	top := ctxd.Chunk{Source: "top.go", ChunkType: ctxd.ChunkFile, Content: lines("top", 160), Score: 2000}
	cs := []ctxd.Chunk{top}
	for i := range 11 {
		cs = append(cs, ctxd.Chunk{Source: fmt.Sprintf("s%02d.md", i), ChunkType: ctxd.ChunkFile, Content: lines(fmt.Sprint("s", i), 20), Score: float64(1500 - 10*i)})
	}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		if ch.Source != "top.go" {
			return nil
		}
		return []View{
			{Level: ctxd.ViewBodies, Text: lines("top", 80), Elided: []ctxd.LineRange{{Start: 81, End: 160}}},
			{Level: ctxd.ViewOutline, Text: "func top()\n", Elided: []ctxd.LineRange{{Start: 1, End: 160}}},
		}
	}
	shown := fitShown(t, cs, Options{Budget: 4000, Counter: c, Render: render, Views: views})
	if ch := shown["top.go"]; ch.Truncated {
		t.Errorf("top.go at %q (%d of %d tokens), want whole", ch.Truncation, ch.Tokens, ch.OriginalTokens)
	}
	if len(shown) != len(cs) {
		t.Errorf("%d of %d chunks present", len(shown), len(cs))
	}
}

// TestFitNamedFileNotALine: a file the request names, ranked past the
// best three, is placed at its cheap view (its outline here), not at a
// presence line, and the lookahead does not put it back to one, even
// where small unnamed files below it would be worth more per token.
func TestFitNamedFileNotALine(t *testing.T) {
	c := counter(t)
	outline := lines("func named", 40) // 40 outline lines: more than a presence line
	var cs []ctxd.Chunk
	for i := range 3 {
		cs = append(cs, ctxd.Chunk{Source: fmt.Sprintf("top%d.go", i), ChunkType: ctxd.ChunkFile, Content: lines(fmt.Sprint("top", i), 400), Score: float64(3000 - 10*i)})
	}
	cs = append(cs, ctxd.Chunk{Source: "named.go", ChunkType: ctxd.ChunkFile, Content: lines("named", 600), Score: 2500, Facts: ctxd.Facts{Mentioned: true}})
	for i := range 8 {
		cs = append(cs, ctxd.Chunk{Source: fmt.Sprintf("s%02d.go", i), ChunkType: ctxd.ChunkFile, Content: lines(fmt.Sprint("s", i), 20), Score: float64(2400 - 10*i)})
	}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		switch {
		case ch.Source == "named.go":
			return []View{{Level: ctxd.ViewOutline, Text: outline, Elided: []ctxd.LineRange{{Start: 41, End: 600}}}}
		case strings.HasPrefix(ch.Source, "top"):
			return []View{{Level: ctxd.ViewOutline, Text: "func " + ch.Source[:4] + "()\n", Elided: []ctxd.LineRange{{Start: 1, End: 400}}}}
		}
		return nil
	}
	for _, budget := range []int{2000, 3000, 4000} {
		shown := fitShown(t, cs, Options{Budget: budget, Counter: c, Render: render, Views: views})
		ch, ok := shown["named.go"]
		if !ok {
			t.Errorf("budget %d: named.go absent", budget)
			continue
		}
		if ch.Tokens <= presenceLine {
			t.Errorf("budget %d: named.go at %q, %d tokens: a presence line, want its outline or more", budget, ch.Truncation, ch.Tokens)
		}
	}
}

// fitShown fits cs with opts and returns the included chunks by source,
// failing the test when the context is over its budget.
func fitShown(t *testing.T, cs []ctxd.Chunk, opts Options) map[string]ctxd.Chunk {
	t.Helper()
	got, err := Fit(t.Context(), cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.TokensUsed > opts.Budget {
		t.Fatalf("used %d of %d", got.TokensUsed, opts.Budget)
	}
	shown := map[string]ctxd.Chunk{}
	for _, ch := range got.Chunks {
		shown[ch.Source] = ch
	}
	return shown
}

// TestFitSwapsForTheLumpByAStepDown: as TestFitSwapsForTheLump, but what
// the lookahead may take back is a file shown whole whose presence line
// would lose more than the lump gains; its bodies view loses less and
// frees enough, so that file steps down to its bodies and the lump is
// shown.
func TestFitSwapsForTheLumpByAStepDown(t *testing.T) {
	c := counter(t)
	a := ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: lines("a", 667), Score: 3000, Facts: ctxd.Facts{FocusLines: []int{101}}}
	body := lines("a", 200)[len(lines("a", 100)):] // lines 101-200
	d := ctxd.Chunk{Source: "d.go", ChunkType: ctxd.ChunkFile, Content: lines("d", 40), Score: 2900}
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		switch ch.Source {
		case "a.go":
			return []View{
				{Level: ctxd.ViewFocusOnly, Text: body, Elided: []ctxd.LineRange{{Start: 1, End: 100}, {Start: 201, End: 667}}},
				{Level: ctxd.ViewOutline, Text: "func a()\n", Elided: []ctxd.LineRange{{Start: 1, End: 667}}},
			}
		case "d.go":
			return []View{
				{Level: ctxd.ViewBodies, Text: lines("d", 10), Elided: []ctxd.LineRange{{Start: 11, End: 40}}},
				{Level: ctxd.ViewOutline, Text: "func d()\n", Elided: []ctxd.LineRange{{Start: 1, End: 40}}},
			}
		}
		return nil
	}
	b := ctxd.Chunk{Source: "b.go", ChunkType: ctxd.ChunkFile, Content: lines("b", 8), Score: 2990}
	cc := ctxd.Chunk{Source: "c.go", ChunkType: ctxd.ChunkFile, Content: lines("c", 8), Score: 2980}
	cost := func(ch ctxd.Chunk) int { return c.Count(render(ch)) }
	outline, lump := lumpCosts(c, a, body)
	// Room for a's outline, b and c, d whole and all of the lump but
	// 150 tokens.
	budget := outline + cost(b) + cost(cc) + cost(d) + lump - outline - 150
	shown := fitShown(t, []ctxd.Chunk{a, b, cc, d}, Options{Budget: budget, Counter: c, Render: render, Views: views})
	if ch := shown["a.go"]; ch.Truncation != ctxd.ViewFocusOnly || !strings.Contains(ch.Content, "a line 150:") {
		t.Errorf("a.go at %q (%d tokens), want its function alone; budget %d", ch.Truncation, ch.Tokens, budget)
	}
	if ch := shown["d.go"]; ch.Truncation != ctxd.ViewBodies {
		t.Errorf("d.go at %q (%d tokens), want its bodies", ch.Truncation, ch.Tokens)
	}
}

// lumpCosts returns the rendered costs of a's outline ("func a()") and of
// its function alone (body, a focus-only view).
func lumpCosts(c tokens.Counter, a ctxd.Chunk, body string) (outline, lump int) {
	o, l := a, a
	o.Content, l.Content = "func a()\n", body
	o.Truncated, o.Truncation = true, ctxd.ViewOutline
	l.Truncated, l.Truncation = true, ctxd.ViewFocusOnly
	return c.Count(render(o)), c.Count(render(l))
}

// TestFitFocusOfAFileLargerThanTheBudget: the best file is ten times the
// budget, so only a focus view of its matching function can show its
// code; small files ranked below it whole are each worth less than that
// function. Its share of the file's tokens (3%) made the focus view worth
// barely more than its outline, and the small files took the budget; a
// focus view's share is taken of twice the budget (FocusShareOf), so the
// function is shown and the small files still are, at smaller views. Its
// score (2,500 against 1,200) makes the function worth more than two of
// the small files whole together: the allocation compares totals
// (allocate), and at 1,500 the two small files were worth more.
func TestFitFocusOfAFileLargerThanTheBudget(t *testing.T) {
	c := counter(t)
	const n = 2400
	a := ctxd.Chunk{Source: "a.py", ChunkType: ctxd.ChunkFile, Content: lines("a", n), Score: 2500, Facts: ctxd.Facts{FocusLines: []int{1201}}}
	body := lines("a", 1260)[len(lines("a", 1200)):] // lines 1201-1260
	views := func(_ context.Context, ch *ctxd.Chunk) []View {
		switch {
		case ch.Source == "a.py":
			return []View{
				{Level: ctxd.ViewFocusOnly, Text: body, Elided: []ctxd.LineRange{{Start: 1, End: 1200}, {Start: 1261, End: n}}},
				{Level: ctxd.ViewOutline, Text: "def a():\n", Elided: []ctxd.LineRange{{Start: 1, End: n}}},
			}
		case strings.HasSuffix(ch.Source, ".py"):
			return []View{{Level: ctxd.ViewOutline, Text: "def " + ch.Source[:2] + "():\n", Elided: []ctxd.LineRange{{Start: 1, End: 40}}}}
		}
		return nil
	}
	cs := []ctxd.Chunk{a}
	for i := range 6 {
		cs = append(cs, ctxd.Chunk{Source: fmt.Sprintf("s%d.py", i), ChunkType: ctxd.ChunkFile, Content: lines(fmt.Sprint("s", i), 40), Score: float64(1200 - 20*i)})
	}
	shown := fitShown(t, cs, Options{Budget: 4000, Counter: c, Render: render, Views: views})
	if ch := shown["a.py"]; ch.Truncation != ctxd.ViewFocusOnly || !strings.Contains(ch.Content, "a line 1230:") {
		t.Errorf("a.py at %q (%d of %d tokens), want its focused function", ch.Truncation, ch.Tokens, ch.OriginalTokens)
	}
	if len(shown) != len(cs) {
		t.Errorf("%d of %d chunks present", len(shown), len(cs))
	}
}

// bodiesOrOutline offers each chunk but README.md (placed whole) two
// views: its bodies, 60 lines, and its outline, 5.
func bodiesOrOutline(_ context.Context, ch *ctxd.Chunk) []View {
	if ch.Source == "README.md" {
		return nil
	}
	return []View{
		{Level: ctxd.ViewBodies, Text: lines(ch.Source+" body", 60)},
		{Level: ctxd.ViewOutline, Text: lines(ch.Source+" outline", 5)},
	}
}

// roomForOneBody is a budget for top whole and two files of
// bodiesOrOutline's, named as long as name: room for both outlines and
// one bodies view, not two.
func roomForOneBody(c tokens.Counter, top ctxd.Chunk, name string) int {
	view := func(level string, n int) int {
		return c.Count(render(ctxd.Chunk{Source: name, ChunkType: ctxd.ChunkFile, Content: lines(name+" "+level, n)}))
	}
	return c.Count(render(top)) + 2*view("outline", 5) + view("body", 60) + 40
}

// TestRoomyBudget: RoomyBudget is the budget from which the presence
// pass plans for its best presenceChunks chunks by room (Fit's
// presenceBudget(b) / presencePer), so package gather's rules for room
// follow the shares when they change; 8,000 with today's (gather's
// eval-measured rules were set there).
func TestRoomyBudget(t *testing.T) {
	planned := func(b int) int { return defaults.presenceBudget(b) / presencePer }
	if got := planned(RoomyBudget); got != presenceChunks {
		t.Errorf("at RoomyBudget %d the pass plans for %d chunks, want presenceChunks %d", RoomyBudget, got, presenceChunks)
	}
	if got := planned(RoomyBudget - 1); got >= presenceChunks {
		t.Errorf("below RoomyBudget (%d) the pass plans for %d chunks, want fewer than %d", RoomyBudget-1, got, presenceChunks)
	}
	if RoomyBudget != 8000 {
		t.Errorf("RoomyBudget = %d, want 8000 (the budget gather's rules were measured at)", RoomyBudget)
	}
}

// TestFitCutsWholeLines fits one file too large for its views at a table
// of budgets, with no views (the "middle" view) and with an outline too
// large to place (its cut, or the middle when no whole outline line fits):
// every line shown is a whole line of the source or of the outline, or the elision marker alone on its line, and the
// chunk is never over budget. On main a 64-token cut kept a half line at
// each end.
func TestFitCutsWholeLines(t *testing.T) {
	var src strings.Builder
	src.WriteString("import io\nimport math\nimport sys\nimport typing\n\nfrom starlette.concurrency import anyio, run_in_threadpool_with_a_rather_long_name\n\n\n")
	for i := range 30 {
		fmt.Fprintf(&src, "def build_environ_%d(scope: Scope, body: bytes, headers: typing.List[typing.Tuple[bytes, bytes]]) -> dict:\n", i)
		fmt.Fprintf(&src, "    environ = {\"REQUEST_METHOD\": scope[\"method\"], \"SCRIPT_NAME\": scope.get(\"root_path\", \"\").encode(\"utf8\").decode(\"latin1\")}\n")
		fmt.Fprintf(&src, "    return environ  # %d\n\n", i)
	}
	src.WriteString("class WSGIMiddleware:\n    def __init__(self, app: typing.Callable[..., typing.Any], workers_for_the_thread_pool_limit: int = 10) -> None:\n        self.app = app\n")
	var outline strings.Builder
	for i := range 30 {
		fmt.Fprintf(&outline, "def build_environ_%d(scope, body, headers) -> dict: ...\n", i)
	}
	outline.WriteString("class WSGIMiddleware:\n    def __init__(self, app: typing.Callable[..., typing.Any], workers_for_the_thread_pool_limit: int = 10) -> None: ...\n")
	c := counter(t)
	chunk := ctxd.Chunk{Source: "starlette/middleware/wsgi.py", ChunkType: ctxd.ChunkFile, Content: src.String()}
	outlineViews := func(_ context.Context, c *ctxd.Chunk) []View {
		return []View{{Level: ctxd.ViewOutline, Text: outline.String(), Elided: []ctxd.LineRange{{Start: 1, End: 100}}}}
	}
	marker := regexp.MustCompile(`^\.\.\. \[\d+ lines?, \d+ chars elided\] \.\.\.$`)
	for _, views := range []struct {
		name  string
		f     ViewsFunc
		lines string
	}{{"middle", nil, src.String()}, {"outline", outlineViews, outline.String() + src.String()}} {
		whole := map[string]bool{}
		for _, l := range strings.Split(views.lines, "\n") {
			whole[l] = true
		}
		for _, budget := range []int{60, 64, 70, 80, 95, 120, 160, 250} {
			got, err := Fit(t.Context(), []ctxd.Chunk{chunk}, Options{Budget: budget, Counter: c, Render: render, Views: views.f})
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range got.Chunks {
				if n := c.Count(render(ch)); n > budget || n != ch.Tokens {
					t.Errorf("%s %d: rendered %d tokens, Tokens %d", views.name, budget, n, ch.Tokens)
				}
				if !ch.Truncated {
					t.Errorf("%s %d: not cut", views.name, budget)

				}
				for _, l := range strings.Split(strings.TrimSuffix(ch.Content, "\n"), "\n") {
					if !whole[l] && !marker.MatchString(l) {
						t.Errorf("%s %d: %q is not a whole line:\n%s", views.name, budget, l, ch.Content)
					}
				}
			}
		}
	}
}
