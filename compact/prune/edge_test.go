package prune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/tokens"
)

var update = flag.Bool("update", false, "rewrite golden files")

func sys(text string) turn  { return turn{role: "system", text: text} }
func user(text string) turn { return turn{role: "user", text: text} }
func asst(text string, calls ...call) turn {
	return turn{role: "assistant", text: text, calls: calls}
}
func tool(id, name, text string) turn { return turn{role: "tool", id: id, name: name, text: text} }
func rd(id, path string) call {
	return call{id: id, name: "read_file", args: `{"path":"` + path + `"}`}
}

// chatter is a pure-chat history of n exchanges.
func chatter(n int) conv {
	c := conv{sys("You are a helpful assistant."), user("Let us plan the parser rewrite.")}
	for i := range n {
		c = append(c, asst(fmt.Sprintf("I'll outline step %d: %s", i, strings.Repeat("we refactor the lexer and keep the tests green. ", 6))),
			user(fmt.Sprintf("Step %d sounds good; what next? %s", i, strings.Repeat("please be specific. ", 3))))
	}
	return c
}

// manyCalls is a history with n tool calls answered one by one.
func manyCalls(n int) conv {
	rng := rand.New(rand.NewPCG(7, 7))
	c := conv{sys("You are a coding agent."), user("Find every TODO in the repository.")}
	for i := range n {
		id := fmt.Sprintf("call_%03d", i)
		c = append(c, asst("", rd(id, fmt.Sprintf("pkg/f%03d.go", i))), tool(id, "read_file", toolOutput(rng, 300, i%17 == 0)))
	}
	return append(c, user("Summarize what you found."))
}

func withImages() conv {
	return conv{sys("You describe screenshots."), {role: "user", text: "What differs between these?", images: 4},
		asst("The second one has a red banner. " + strings.Repeat("Details follow. ", 40)), {role: "user", text: "And these two?", images: 2}}
}

func withReasoning() conv {
	rng := rand.New(rand.NewPCG(3, 3))
	c := conv{sys("Think step by step."), user("Why does the build fail?")}
	for i := range 6 {
		id := fmt.Sprintf("call_r%d", i)
		c = append(c, turn{role: "assistant", reasoning: "The failure mentions the linker; check the flags. " + prose(rng, 30), calls: []call{{id: id, name: "bash", args: `{"command":"go build ./..."}`}}},
			tool(id, "bash", toolOutput(rng, 1500, i == 5)))
	}
	return append(c, user("So what is the fix?"))
}

func allTool() conv {
	c := conv{}
	for i := range 6 {
		id := fmt.Sprintf("call_%d", i)
		c = append(c, asst("", call{id: id, name: "bash", args: `{"command":"ls"}`}), tool(id, "bash", strings.Repeat("file.go\n", 120)))
	}
	return c
}

func unmatched() conv {
	return conv{sys("Agent."), user("Go."),
		asst("", rd("call_a", "a.go"), rd("call_b", "b.go")),
		tool("call_a", "read_file", "package a"),
		tool("call_zzz", "read_file", "a result nobody asked for"),
		asst("Done reading."), user("Thanks. What is in a.go?")}
}

func outOfOrder() conv {
	return conv{sys("Agent."), user("Go."),
		tool("call_2", "read_file", "early result for call_2, before its call"),
		asst("", rd("call_1", "one.go"), rd("call_2", "two.go"), rd("call_3", "three.go")),
		tool("call_3", "read_file", "three"), tool("call_1", "read_file", "one"), tool("call_2", "read_file", "two"),
		user("Which file is longest?")}
}

func duplicateIDs() conv {
	return conv{sys("Agent."), user("Go."),
		asst("", rd("dup", "a.go")), tool("dup", "read_file", strings.Repeat("first a\n", 100)),
		asst("Again.", rd("dup", "a.go")), tool("dup", "read_file", strings.Repeat("second a\n", 100)),
		asst("Chatter. " + strings.Repeat("More chatter. ", 80)),
		user("Compare the two reads."), asst("ok"), user("Go on."), asst("ok"), user("Go on."), asst("ok"), user("Go on."), asst("ok"), user("Finish.")}
}

func TestEdgeCases(t *testing.T) {
	testutil.NoRace(t) // the pruner runs on one goroutine
	tests := []struct {
		name   string
		conv   conv
		opts   Options
		budget func(floor, total int) int // nil keeps opts.Budget
		check  func(t *testing.T, rep *Report, out []byte)
		// overBudget: the request cannot fit even at its minimum.
		overBudget bool
		// empty: nothing would be left; refused as over budget, the error
		// and its report are the golden.
		empty bool
	}{
		{name: "pure_chat", conv: chatter(20), opts: Options{WindowSize: 2}, budget: func(_, total int) int { return total / 3 },
			check: func(t *testing.T, rep *Report, _ []byte) {
				wantDecision(t, rep, DecisionSummarized)
				wantInserted(t, rep, "summary")
			}},
		{name: "many_tool_calls", conv: manyCalls(110), opts: Options{WindowSize: 3}, budget: func(_, total int) int { return total / 4 },
			check: func(t *testing.T, rep *Report, _ []byte) {
				if n := countDecision(rep, DecisionSummarized); n < 50 {
					t.Errorf("%d items summarized, want many", n)
				}
			}},
		{name: "images", conv: withImages(), opts: Options{Budget: 100000},
			check: func(t *testing.T, rep *Report, _ []byte) {
				if rep.TokensBefore < 6*request.GeminiImage {
					t.Errorf("tokens before %d do not count six images", rep.TokensBefore)
				}
			}},
		{name: "reasoning", conv: withReasoning(), opts: Options{WindowSize: 2}, budget: func(_, total int) int { return total / 2 }},
		// Below the floor the first user turn would have to go, and the
		// summary with its reference does not fit either: a clear error.
		{name: "budget_below_floor", conv: manyCalls(10), opts: Options{WindowSize: 2}, budget: func(floor, _ int) int { return floor - 1 }, overBudget: true},
		// The floor and room for the summary of what is evicted (with its
		// reference) fit.
		{name: "budget_at_floor", conv: manyCalls(10), opts: Options{WindowSize: 2}, budget: func(floor, _ int) int { return floor + 120 },
			check: func(t *testing.T, rep *Report, _ []byte) {
				if !rep.Fits || !rep.Degraded {
					t.Errorf("fits=%v degraded=%v, want a degraded fit", rep.Fits, rep.Degraded)
				}
			}},
		{name: "single_message", conv: conv{user("Hello there.")}, opts: Options{Budget: 1}, overBudget: true},
		{name: "all_tool", conv: allTool(), opts: Options{WindowSize: 1}, budget: func(_, total int) int { return total / 2 },
			// Reducing older outputs to their references fits: nothing is
			// evicted.
			check: func(t *testing.T, rep *Report, _ []byte) { wantDecision(t, rep, DecisionCondensed) }},
		// Every message is an unpaired result the protocol requires
		// removing: an empty messages array is no request a provider
		// answers, so the pruner refuses it as Smart Context's eviction
		// does (it returned the empty array).
		{name: "orphan_results_only", conv: conv{tool("x1", "bash", "out 1"), tool("x2", "bash", "out 2")}, opts: Options{Budget: 1000}, empty: true},
		{name: "unmatched_id", conv: unmatched(), opts: Options{Budget: 100000},
			check: func(t *testing.T, rep *Report, out []byte) {
				if bytes.Contains(out, []byte("call_zzz")) || bytes.Contains(out, []byte("b.go")) {
					t.Errorf("output keeps an unpaired call or result:\n%s", out)
				}
			}},
		{name: "out_of_order", conv: outOfOrder(), opts: Options{Budget: 100000}},
		{name: "duplicate_ids", conv: duplicateIDs(), opts: Options{WindowSize: 2}, budget: func(_, total int) int { return total / 2 }},
	}
	for _, tt := range tests {
		for _, f := range request.Formats {
			t.Run(tt.name+"/"+string(f), func(t *testing.T) {
				body := render(f, "gpt-4o", tt.conv)
				opts := tt.opts
				if tt.budget != nil {
					probe := probe(t, body, Options{WindowSize: opts.WindowSize})
					opts.Budget = max(1, tt.budget(probe.FloorTokens, probe.TokensBefore))
				}
				out, rep, err := Compress(t.Context(), body, opts)
				if tt.overBudget {
					wantOverBudget(t, err, opts.Budget)
					return
				}
				if tt.empty {
					var ob *OverBudgetError
					if !errors.As(err, &ob) || !strings.Contains(err.Error(), "no message would be left") {
						t.Fatalf("got %v (%d bytes out), want the refusal of an empty conversation", err, len(out))
					}
					repJSON, err := json.MarshalIndent(ob.Report, "", "  ")
					if err != nil {
						t.Fatal(err)
					}
					testutil.GoldenFile(t, tt.name+"."+string(f), append([]byte("-- error --\n"+ob.Error()+"\n-- report --\n"), repJSON...), *update)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				checkOutput(t, body, out, rep, opts)
				if tt.check != nil {
					tt.check(t, rep, out)
				}
				repJSON, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				testutil.GoldenFile(t, tt.name+"."+string(f), append(append(out, "\n-- report --\n"...), repJSON...), *update)
			})
		}
	}
}

func countDecision(rep *Report, d string) int {
	n := 0
	for _, m := range rep.Messages {
		if m.Decision == d {
			n++
		}
	}
	return n
}

func wantDecision(t *testing.T, rep *Report, d string) {
	t.Helper()
	if countDecision(rep, d) == 0 {
		t.Errorf("no item %s", d)
	}
}

func wantInserted(t *testing.T, rep *Report, kind string) {
	t.Helper()
	for _, in := range rep.Inserted {
		if in.Kind == kind {
			return
		}
	}
	t.Errorf("no %s inserted", kind)
}

// TestCalibrationJSONvsProse: tool output that is dense JSON costs more
// tokens per character than prose; counting with the real encoding keeps
// both histories within the same budget, where a characters/4 heuristic
// would let the JSON one overflow.
func TestCalibrationJSONvsProse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	var js, pr strings.Builder
	for js.Len() < 6000 {
		fmt.Fprintf(&js, `{"id":%d,"k":[%d,%d,{"x":"%x"}],"ok":true},`, rng.IntN(1e6), rng.IntN(100), rng.IntN(100), rng.Uint32())
	}
	for pr.Len() < js.Len() {
		pr.WriteString("The parser reads the file line by line and reports every error it finds. ")
	}
	jsonText, proseText := js.String()[:6000], pr.String()[:6000]
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	jt, pt := c.Count(jsonText), c.Count(proseText)
	if jt <= pt {
		t.Fatalf("JSON %d tokens vs prose %d for the same characters: want JSON denser", jt, pt)
	}
	if heuristic := len(jsonText) / 4; heuristic >= jt {
		t.Logf("chars/4 = %d does not under-count JSON (%d)", heuristic, jt)
	}
	mk := func(text string) conv {
		c := conv{sys("Agent."), user("Inspect.")}
		for i := range 8 {
			id := fmt.Sprintf("call_%d", i)
			c = append(c, asst("", rd(id, "data.json")), tool(id, "read_file", text))
		}
		return append(c, user("Report."))
	}
	for _, f := range request.Formats {
		for name, text := range map[string]string{"json": jsonText, "prose": proseText} {
			body := render(f, "gpt-4o", mk(text))
			opts := Options{Budget: 6000, WindowSize: 1, MaxToolOutput: -1}
			out, rep, err := Compress(t.Context(), body, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, body, out, rep, opts)
			if !rep.Fits {
				t.Errorf("%s/%s: does not fit: %s", f, name, rep.Reason)
			}
		}
	}
}

// openStore opens an artifact store in dir, failing the test on an error.
func openStore(t *testing.T, dir string, opts artifacts.Options) *artifacts.Store {
	t.Helper()
	s, err := artifacts.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// probe returns the report of a run with a budget nothing exceeds: the
// request's floor, minimum and size.
func probe(t *testing.T, body []byte, opts Options) *Report {
	t.Helper()
	opts.Budget = 1 << 30
	_, rep, err := Compress(t.Context(), body, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// wantOverBudget checks the error of a request that cannot fit: an
// OverBudgetError wrapping ctxd.ErrOverBudget whose report shows a
// minimum over the budget and says why.
func wantOverBudget(t *testing.T, err error, budget int) {
	t.Helper()
	var ob *OverBudgetError
	if !errors.As(err, &ob) || !errors.Is(err, ctxd.ErrOverBudget) {
		t.Fatalf("got %v, want an over-budget error", err)
	}
	if ob.Report.Budget != budget || ob.Report.TokensAfter <= budget || !strings.Contains(err.Error(), "protocol-exact minimum") {
		t.Errorf("over-budget report: budget %d, after %d, error %q", ob.Report.Budget, ob.Report.TokensAfter, err)
	}
}

// TestSummaryErrorsAndReference: the summary's "Errors seen" names the
// error lines of evicted failing outputs (not a docstring that mentions
// an error), and its reference resolves to the evicted messages
// verbatim.
func TestSummaryErrorsAndReference(t *testing.T) {
	trace := "============================= test session starts ==============================\n" +
		"    def load(path):\n        \"\"\"Return None on a missing file instead of raising an error.\"\"\"\n" +
		strings.Repeat("    x = compute(path)  # a long body line of the failing function\n", 30) +
		"E       AssertionError: assert None == {}\ntests/test_load.py:12: AssertionError\n" +
		"FAILED tests/test_load.py::test_load - AssertionError: assert None == {}\n1 failed in 0.1s\n"
	typeErr := "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nTypeError: can only concatenate str (not \"int\") to str\n"
	c := conv{sys("You are a coding agent."), user("Fix the loader.")}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		out := strings.Repeat(fmt.Sprintf("line %d of a long listing\n", i), 80)
		switch i {
		case 1:
			out = trace
		case 2:
			out = typeErr + strings.Repeat("padding line of the failing run\n", 60)
		}
		c = append(c, asst("", call{id: id, name: "bash", args: `{"command":"pytest"}`}), tool(id, "bash", out))
	}
	c = append(c, user("And now?"))
	body := render(request.FormatChat, "gpt-4o", c)
	dir := t.TempDir()
	store := openStore(t, dir, artifacts.Options{})
	total := probe(t, body, Options{WindowSize: 1}).TokensBefore
	out, rep, err := Compress(t.Context(), body, Options{WindowSize: 1, Budget: total / 12, Store: store, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	wantInserted(t, rep, "summary")
	got, err := request.Parse(out, request.FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	var summary string
	for _, it := range got.Items {
		if it.Kind == request.KindSummary {
			summary = it.Text()
		}
	}
	if !strings.Contains(summary, "Errors seen: ") {
		t.Fatalf("no errors line in the summary:\n%s", summary)
	}
	for _, want := range []string{"FAILED tests/test_load.py::test_load - AssertionError: assert None == {}", "TypeError: can only concatenate str"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(summary, "instead of raising an error") {
		t.Errorf("the summary lists a docstring as an error:\n%s", summary)
	}
	ms := request.ParseMarkers(summary)
	if len(ms) != 1 {
		t.Fatalf("summary carries %d references, want 1:\n%s", len(ms), summary)
	}
	b, _, err := store.Get(t.Context(), "s", ms[0].Hash)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), trace) || !strings.Contains(string(b), typeErr) {
		t.Error("the evicted messages' artifact does not hold their outputs verbatim")
	}
}

// TestDuplicatesBelowBudget: below the budget the only rewrite is the
// lossless one: a tool output identical to an earlier one becomes a
// reference to it, which rehydrates to the same text; every other byte
// stays.
func TestDuplicatesBelowBudget(t *testing.T) {
	out := strings.Repeat("ok  \tgithub.com/x/y\t0.1s\n", 20)
	c := conv{sys("You are a coding agent."), user("Run the tests twice.")}
	for i := range 3 {
		id := fmt.Sprintf("call_%d", i)
		c = append(c, asst("", call{id: id, name: "bash", args: `{"command":"go test ./..."}`}), tool(id, "bash", out))
	}
	c = append(c, user("Good?"))
	for _, f := range request.Formats {
		body := render(f, "gpt-4o", c)
		store := openStore(t, t.TempDir(), artifacts.Options{})
		got, rep, err := Compress(t.Context(), body, Options{Store: store, Session: "s"})
		if err != nil {
			t.Fatal(err)
		}
		ms := request.ParseMarkers(string(got))
		if len(ms) != 2 || ms[0].Kind != request.MarkerDup || rep.TokensAfter >= rep.TokensBefore {
			t.Fatalf("%s: markers %+v, tokens %d → %d", f, ms, rep.TokensBefore, rep.TokensAfter)
		}
		b, _, err := store.Get(t.Context(), "s", ms[0].Hash)
		if err != nil || string(b) != out {
			t.Errorf("%s: the duplicate's reference does not rehydrate to the output (%v)", f, err)
		}
		if n := strings.Count(string(got), "ok  \\tgithub.com/x/y"); n != 20 {
			t.Errorf("%s: %d output lines kept, want the first output whole", f, n)
		}
		in, _ := request.Parse(body, f)
		outReq, err := request.Parse(got, f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(in.Items[len(in.Items)-1].Raw(), outReq.Items[len(outReq.Items)-1].Raw()) {
			t.Errorf("%s: the latest user message changed", f)
		}
	}
}

// TestOpenPairCondensedLast: when the request only fits with the output
// the model answers next reduced, compress condenses it as its last step
// instead of refusing (as optimize's hard budget does): the pair stays
// whole, its failing lines stay verbatim, the whole output rehydrates
// byte for byte, and the system message and the latest user turn are
// untouched. In Anthropic Messages that output travels in a user-role
// item that carries only tool results: it is condensed the same way.
func TestOpenPairCondensedLast(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	failing := "--- FAIL: TestParse (0.01s)\n    parser_test.go:42: unexpected token \"}\" at 3:7\n"
	out := toolOutput(rng, 24000, false) + failing + toolOutput(rng, 4000, false)
	c := conv{sys("You are a coding agent."), user("Run the parser tests and fix what fails."),
		asst("", call{id: "call_t", name: "bash", args: `{"command":"go test ./parser"}`}), tool("call_t", "bash", out)}
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			body := render(f, "gpt-4o", c)
			total := probe(t, body, Options{WindowSize: 1}).TokensBefore
			store := openStore(t, t.TempDir(), artifacts.Options{})
			opts := Options{WindowSize: 1, Budget: total / 4, Store: store, Session: "s"}
			got, rep, err := Compress(t.Context(), body, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, body, got, rep, opts)
			if !rep.Fits || !rep.Degraded || rep.TokensAfter > opts.Budget {
				t.Fatalf("fits=%v degraded=%v after %d budget %d", rep.Fits, rep.Degraded, rep.TokensAfter, opts.Budget)
			}
			for _, want := range []string{"You are a coding agent.", "Run the parser tests and fix what fails.", "call_t",
				"--- FAIL: TestParse (0.01s)", "parser_test.go:42: unexpected token"} {
				if !bytes.Contains(got, []byte(want)) && !bytes.Contains(got, []byte(strings.ReplaceAll(want, `"`, `\"`))) {
					t.Errorf("output lacks %q", want)
				}
			}
			req, err := request.Parse(got, f)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, it := range req.Items {
				for _, m := range request.ParseMarkers(it.Text()) {
					b, _, err := store.Get(t.Context(), "s", m.Hash)
					if err != nil {
						t.Fatalf("reference %s does not resolve: %v", m.Hash, err)
					}
					if string(b) == out {
						found = true
					}
				}
			}
			if !found {
				t.Error("no reference in the output rehydrates to the open pair's output byte for byte")
			}
		})
	}
}

// TestPressureBands: compress follows the pressure bands optimize uses.
// The same history under a budget it fills to under half (low band) loses
// nothing (its older long outputs stay whole); under one it fills to
// 50-100% (medium and over, still fitting) the archive's long outputs are
// condensed behind references that rehydrate byte for byte while working
// memory stays whole; over the budget it degrades until it fits.
func TestPressureBands(t *testing.T) {
	testutil.NoRace(t) // the pruner runs on one goroutine
	long := func(i int) string {
		var b strings.Builder
		for j := range 60 {
			fmt.Fprintf(&b, "pkg/file%d_%d.go:%d: matched line %d of the search\n", i, j, j+1, j)
		}
		return b.String()
	}
	c := conv{sys("You are a coding agent."), user("Find where the parser is built.")}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		c = append(c, asst("", call{id: id, name: "bash", args: fmt.Sprintf(`{"command":"grep -rn parser%d ."}`, i)}), tool(id, "bash", long(i)))
	}
	c = append(c, user("Which file?"))
	body := render(request.FormatChat, "gpt-4o", c)
	_, probe, err := Compress(t.Context(), body, Options{Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	size := probe.TokensBefore
	for _, tc := range []struct {
		name      string
		budget    int
		band      string
		condensed bool // some output condensed
	}{
		{"low", size * 3, request.BandLow, false},
		{"medium", size * 10 / 7, request.BandMedium, true},
		{"critical", size + 10, request.BandCritical, true},
		{"over", size * 3 / 4, request.BandCritical, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t, t.TempDir(), artifacts.Options{})
			got, rep, err := Compress(t.Context(), body, Options{Budget: tc.budget, Store: store, Session: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.PressureBand != tc.band || !rep.Fits {
				t.Fatalf("band %q (%d bp), fits %v; want %q", rep.PressureBand, rep.PressureBP, rep.Fits, tc.band)
			}
			ms := request.ParseMarkers(string(got))
			if (len(ms) > 0) != tc.condensed {
				t.Fatalf("%d references at %s pressure, want condensed=%v", len(ms), tc.band, tc.condensed)
			}
			for _, m := range ms {
				if _, _, err := store.Get(t.Context(), "s", m.Hash); err != nil {
					t.Errorf("reference %s does not resolve: %v", m.Hash, err)
				}
			}
			if tc.budget < size {
				return
			}
			// Fitting requests: the working memory (the last outputs) is
			// whole, only the archive is condensed.
			for i := 8; i < 12; i++ {
				if strings.Count(string(got), fmt.Sprintf("pkg/file%d_", i)) != 60 {
					t.Errorf("output %d (working memory) was condensed at %s pressure", i, tc.band)
				}
			}
			for _, d := range rep.Messages {
				if d.Decision == DecisionCondensed && d.Index >= len(rep.Messages)-2*rep.WindowSize {
					t.Errorf("item %d in working memory condensed at %s pressure", d.Index, tc.band)
				}
			}
		})
	}
}

// countingStore is a real artifact store that counts what it is given.
type countingStore struct {
	*artifacts.Store
	puts []string
}

func (s *countingStore) Put(ctx context.Context, session string, content []byte) (artifacts.Ref, string, error) {
	s.puts = append(s.puts, string(content))
	return s.Store.Put(ctx, session, content)
}

// TestOneEvictedArtifact: degrading evicts units one at a time and
// rebuilds the summary after each, but only the summary emitted is
// stored: one artifact holds the evicted messages (not one per step,
// which would store the history quadratically).
func TestOneEvictedArtifact(t *testing.T) {
	c := conv{sys("You are a coding agent."), user("Fix the loader.")}
	for i := range 16 {
		id := fmt.Sprintf("call_%d", i)
		c = append(c, asst(fmt.Sprintf("Step %d: I'll look again.", i), call{id: id, name: "bash", args: fmt.Sprintf(`{"command":"ls dir%d"}`, i)}), tool(id, "bash", fmt.Sprintf("file%d.go\n", i)))
	}
	c = append(c, user("And now?"))
	body := render(request.FormatChat, "gpt-4o", c)
	real := openStore(t, t.TempDir(), artifacts.Options{})
	store := &countingStore{Store: real}
	_, full, err := Compress(t.Context(), body, Options{Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	_, rep, err := Compress(t.Context(), body, Options{Budget: full.TokensBefore * 2 / 3, Store: store, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	evicted := 0
	for _, d := range rep.Messages {
		if d.Decision == DecisionSummarized {
			evicted++
		}
	}
	if evicted < 4 {
		t.Fatalf("%d items evicted; the test needs several eviction steps", evicted)
	}
	n := 0
	for _, p := range store.puts {
		if strings.HasPrefix(p, "=== message ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d evicted-messages artifacts stored for one summary, want 1", n)
	}
	if len(rep.Inserted) != 1 || rep.Inserted[0].SHA256 == "" {
		t.Fatalf("inserted %+v, want one summary", rep.Inserted)
	}
	if b, _, err := real.Get(t.Context(), "s", rep.Inserted[0].SHA256); err != nil || !strings.Contains(string(b), "ls dir0") {
		t.Errorf("the summary's artifact does not hold the evicted messages (%v)", err)
	}
}

// TestCondenseOnlyWhatIsNeeded: over the budget, outputs are condensed
// one at a time (lowest score first) until the request fits, so an
// output that fits stays whole: here condensing the older read is enough
// and the test log the model answers from is kept verbatim.
func TestCondenseOnlyWhatIsNeeded(t *testing.T) {
	var src, log strings.Builder
	for i := range 150 {
		fmt.Fprintf(&src, "func handler%d(w http.ResponseWriter, r *http.Request) { serve(w, r, %d) }\n", i, i)
		fmt.Fprintf(&log, "=== RUN   TestRoute%d\n--- PASS: TestRoute%d (0.00s)\n", i, i)
	}
	log.WriteString("--- FAIL: TestRouteParams (0.01s)\n    tree_test.go:88: got /users/:id, want /users/42\nFAIL\n")
	c := conv{sys("You are a coding agent."), user("Fix the route params bug."),
		asst("", call{id: "c1", name: "read_file", args: `{"path":"tree.go"}`}), tool("c1", "read_file", src.String()),
		asst("", call{id: "c2", name: "bash", args: `{"command":"go test ./..."}`}), tool("c2", "bash", log.String()),
		user("Propose the fix.")}
	for _, f := range request.Formats {
		body := render(f, "gpt-4o", c)
		_, full, err := Compress(t.Context(), body, Options{Budget: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		budget := full.TokensBefore - 400
		out, rep, err := Compress(t.Context(), body, Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Fits {
			t.Fatalf("%s: does not fit", f)
		}
		if n := len(request.ParseMarkers(string(out))); n != 1 {
			t.Errorf("%s: %d outputs condensed, want 1 (one is enough to fit %d tokens of %d)", f, n, budget, full.TokensBefore)
		}
		if !strings.Contains(string(out), "TestRoute149") || !strings.Contains(string(out), "tree_test.go:88") {
			t.Errorf("%s: the test log was condensed while condensing the read was enough", f)
		}
		if rep.TokensAfter < budget/2 {
			t.Errorf("%s: %d tokens after for a %d budget: condensed far more than needed", f, rep.TokensAfter, budget)
		}
	}
}
