package prune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/tokens"
)

func TestCondense(t *testing.T) {
	long := strings.Repeat("line of plain output\n", 100)
	cjk := strings.Repeat("日本語のテキスト🙂と絵文字。", 80)
	trace := strings.Repeat("step ok\n", 200) + "Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: invalid input\n"
	tests := []struct {
		name      string
		text      string
		max       int
		isErr     bool
		ok        bool
		wantHead  string
		wantTail  string
		maxRunes  int
		hidden    int
		wantNoCut bool
	}{
		{name: "short stays", text: "short", max: 500, ok: false},
		{name: "barely over stays", text: strings.Repeat("x", 520), max: 500, ok: false},
		{name: "plain keeps head", text: long, max: 500, ok: true, wantHead: "line of plain output\n", maxRunes: 500 + 150},
		{name: "cjk rune safe", text: cjk, max: 100, ok: true, wantHead: "日本語", maxRunes: 100 + 150},
		{name: "error keeps tail", text: trace, max: 300, isErr: true, ok: true, wantHead: "step ok", wantTail: "ValueError: invalid input\n", maxRunes: 300 + 150},
		{name: "negative never condenses", text: long, max: -1, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hash := request.HashText(tt.text)
			out, hidden, ok := condenseWith(request.Retrieval{}, tt.text, tt.max, tt.isErr, hash, 0)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				if out != tt.text || hidden != 0 {
					t.Errorf("unchanged text expected, got %q (%d hidden)", out, hidden)
				}
				return
			}
			if !utf8.ValidString(out) {
				t.Errorf("output is not valid UTF-8: %q", out)
			}
			if !strings.HasPrefix(out, tt.wantHead) || !strings.HasSuffix(out, tt.wantTail) {
				t.Errorf("head/tail not kept:\n%s", out)
			}
			if n := utf8.RuneCountInString(out); n > tt.maxRunes {
				t.Errorf("output has %d runes, want at most %d", n, tt.maxRunes)
			}
			if !strings.Contains(out, "[ctxd:ref sha256="+hash[:request.MarkerHashLen]) || !strings.Contains(out, "chars hidden to save context; to see it") {
				t.Errorf("marker missing or wrong:\n%s", out)
			}
			kept := utf8.RuneCountInString(out) - utf8.RuneCountInString(markerWith(request.Retrieval{}, hidden, hash, len(tt.text), byteview.CountLines(tt.text))) - 2
			if got := utf8.RuneCountInString(tt.text) - hidden; got < kept-2 || got > kept+2 {
				t.Errorf("hidden = %d does not match: %d runes kept of %d", hidden, kept, utf8.RuneCountInString(tt.text))
			}
		})
	}
}

func TestForRetry(t *testing.T) {
	errText := "Traceback (most recent call last):\n" + strings.Repeat("  File \"x.py\", line 1, in f\n", 300) + "ValueError: invalid input"
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			body := render(f, "gpt-4o", manyCalls(30))
			base := probe(t, body, Options{WindowSize: 2})
			opts := Options{WindowSize: 2, Budget: base.FloorTokens + 2000}
			out, rep, err := ForRetry(t.Context(), body, errText, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := checkOutput(t, body, out, rep, opts)
			last := got.Items[len(got.Items)-1]
			text := last.Text()
			if last.Role() != "user" || !strings.HasPrefix(text, RetryPrefix) {
				t.Fatalf("last item is not the retry note: %s", last.Raw())
			}
			for _, want := range []string{"Previous attempt failed:", "ValueError: invalid input", "Traceback", "rolled back to a previous checkpoint"} {
				if !strings.Contains(text, want) {
					t.Errorf("note lacks %q:\n%s", want, text)
				}
			}
			if strings.Count(text, "File \"x.py\"") > 100 {
				t.Errorf("note quotes the whole error")
			}
			if !rep.Fits || rep.Inserted[len(rep.Inserted)-1].Kind != "retry_note" {
				t.Errorf("fits=%v inserted=%+v", rep.Fits, rep.Inserted)
			}
		})
	}
	if _, _, err := ForRetry(t.Context(), []byte(`{"input":"x"}`), "  ", Options{}); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("empty error text: %v, want ErrInvalidParams", err)
	}
	out, rep, err := ForRetry(t.Context(), []byte(`{"model":"gpt-5","input":"fix it"}`), "boom", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte(`{"model":"gpt-5","input":[{"role":"user","content":"fix it"},`)) || rep.Inserted[0].Index != 1 {
		t.Errorf("string input not turned into items: %s (%+v)", out, rep.Inserted)
	}
}

func TestPassThrough(t *testing.T) {
	for _, f := range request.Formats {
		c := conv{sys("S"), user("U \u00e9 😀"), asst("A", rd("c1", "x.go")), tool("c1", "read_file", "ok"), user("more")}
		escaped := bytes.ReplaceAll(render(f, "gpt-4o", c), []byte(`"S"`), []byte(`"\u0053"`))
		for _, b := range [][]byte{render(f, "gpt-4o", c), escaped, []byte(`  {"input" : "hi",  "unknown": [1e3, -0.0, "\u00e9"]}  `)} {
			out, rep, err := Compress(t.Context(), b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, b) || rep.Ratio != 1 {
				t.Errorf("%s: request under budget changed (ratio %v):\n%s\n%s", f, rep.Ratio, b, out)
			}
		}
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name       string
		opts       Options
		reqModel   string
		budget     int
		reserve    int
		windowSize int
		wantErr    bool
	}{
		{name: "gpt-4o preset", opts: Options{}, reqModel: "gpt-4o", budget: 128000 - 16384, reserve: 16384, windowSize: 6},
		{name: "option model wins", opts: Options{Model: "gpt-4"}, reqModel: "gpt-4o", budget: 8192 - 2048, reserve: 2048, windowSize: 4},
		{name: "explicit budget", opts: Options{Budget: 5000, WindowSize: 2}, reqModel: "gpt-4o", budget: 5000, reserve: 16384, windowSize: 2},
		{name: "explicit window and reserve", opts: Options{ContextWindow: 50000, OutputReserve: 1000}, reqModel: "claude-sonnet-4.5", budget: 49000, reserve: 1000, windowSize: 5},
		{name: "reserve eats window", opts: Options{ContextWindow: 1000, OutputReserve: 1000}, wantErr: true},
		{name: "unknown model has no window", opts: Options{}, reqModel: "my-local-model", budget: request.NoWindow - tokens.FallbackMaxOutput, reserve: tokens.FallbackMaxOutput, windowSize: 8},
		{name: "default model when the request names none", opts: Options{DefaultModel: "gpt-4"}, budget: 8192 - 2048, reserve: 2048, windowSize: 4},
		{name: "request model beats the default", opts: Options{DefaultModel: "gpt-4"}, reqModel: "gpt-4o", budget: 128000 - 16384, reserve: 16384, windowSize: 6},
		{name: "1M window", opts: Options{}, reqModel: "gemini-2.5-pro", budget: 1_048_576 - 65_536, reserve: 65_536, windowSize: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.opts.resolve(tt.reqModel)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if s.budget != tt.budget || s.outputReserve != tt.reserve || s.windowSize != tt.windowSize {
				t.Errorf("budget %d reserve %d window %d, want %d %d %d", s.budget, s.outputReserve, s.windowSize, tt.budget, tt.reserve, tt.windowSize)
			}
		})
	}
	if _, err := New(Options{Budget: -1}); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("negative budget: %v", err)
	}
}

func TestPresetFor(t *testing.T) {
	for _, tt := range []struct {
		model string
		want  Preset
	}{
		{"gpt-4o", Preset{6, 500}}, {"gpt-4-turbo", Preset{6, 500}}, {"gpt-4", Preset{4, 500}}, {"gpt-3.5-turbo", Preset{8, 500}},
		{"claude-sonnet-4.5", Preset{6, 500}}, {"gpt-5", Preset{8, 500}}, {"gemini-2.5-pro", Preset{8, 1000}}, {"magistral-small", Preset{5, 500}},
	} {
		if got := PresetFor(tokens.Resolve(tt.model, 0)); got != tt.want {
			t.Errorf("PresetFor(%s) = %+v, want %+v", tt.model, got, tt.want)
		}
	}
}

// TestLogsCarryNoText: the structured log of a run has counts only.
func TestLogsCarryNoText(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	body := render(request.FormatChat, "gpt-4o", manyCalls(20))
	if _, _, err := Compress(t.Context(), body, Options{Budget: 2000, Logger: log}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("nothing logged")
	}
	for _, secret := range []string{"Find every TODO", "pkg/f0", "func handler", "Traceback"} {
		if strings.Contains(buf.String(), secret) {
			t.Errorf("log carries message text %q:\n%s", secret, buf.String())
		}
	}
}

func TestCountAndRatio(t *testing.T) {
	p, err := New(Options{Budget: 3000, WindowSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	body := render(request.FormatAnthropic, "claude-sonnet-4.5", manyCalls(40))
	n, err := p.CountMessages(t.Context(), body)
	if err != nil {
		t.Fatal(err)
	}
	_, rep, err := p.Compress(t.Context(), body)
	if err != nil {
		t.Fatal(err)
	}
	if n != rep.TokensBefore {
		t.Errorf("CountMessages = %d, report before = %d", n, rep.TokensBefore)
	}
	if rep.Ratio <= 1 || rep.Ratio != float64(rep.TokensBefore)/float64(rep.TokensAfter) {
		t.Errorf("ratio %v, report %d/%d", rep.Ratio, rep.TokensBefore, rep.TokensAfter)
	}
	c, m := tokens.ForModel("claude-sonnet-4.5", 0)
	if rep.Encoding != c.Encoding() || rep.EstimatorConfidence != m.EstimatorConfidence || rep.CalibrationError != m.CalibrationError {
		t.Errorf("report says %s/%s/%v, the registry %s/%s/%v", rep.Encoding, rep.EstimatorConfidence, rep.CalibrationError, c.Encoding(), m.EstimatorConfidence, m.CalibrationError)
	}
	if _, err := p.CountMessages(t.Context(), []byte(`{"nope":1}`)); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("bad body: %v", err)
	}
}

// TestSharedPruner: a pruner reused across calls and goroutines, on a
// cache another pruner with other options warmed, gives the same output as
// a fresh one.
func TestSharedPruner(t *testing.T) {
	cache := NewCache()
	p, err := New(Options{Budget: 4000, WindowSize: 2, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	// Another pruner with other options on the same cache first.
	other, err := New(Options{Budget: 900, WindowSize: 1, MaxToolOutput: 100, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	var bodies, want [][]byte
	for i, f := range request.Formats {
		for _, c := range []conv{manyCalls(30 + i), withReasoning(), duplicateIDs()} {
			body := render(f, "gpt-4o", c)
			out, _, err := Compress(t.Context(), body, Options{Budget: 4000, WindowSize: 2})
			if err != nil {
				t.Fatal(err)
			}
			bodies, want = append(bodies, body), append(want, out)
			if _, _, err := other.Compress(t.Context(), body); err != nil {
				t.Fatal(err)
			}
		}
	}
	errc := make(chan error, 4*len(bodies))
	for range 4 {
		go func() {
			for i, b := range bodies {
				out, _, err := p.Compress(t.Context(), b)
				if err == nil && !bytes.Equal(out, want[i]) {
					err = fmt.Errorf("body %d: shared pruner output differs", i)
				}
				errc <- err
			}
		}()
	}
	for range 4 * len(bodies) {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// An unknown model with no window is compressed exactly as a known model
// with a very large window: no pressure step (a guessed small window used
// to cut such requests to a few percent). Its report shows no window and
// no budget (request.NoWindow is no number to show: it read 1073741824)
// and warns that the window is unknown, with how to give it; with an
// explicit budget, the budget shows and bounds, and there is no warning.
func TestUnknownModelHasNoWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	c := genConv(rng, 60, 3000)
	for _, f := range request.Formats {
		b := render(f, "acme-gateway-alias", c)
		unknown, ur, err := Compress(t.Context(), b, Options{OutputReserve: 4096})
		if err != nil {
			t.Fatal(err)
		}
		known, kr, err := Compress(t.Context(), b, Options{Model: "gpt-4-32k", ContextWindow: request.NoWindow, OutputReserve: 4096})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(unknown, known) || ur.PressureBand != request.BandLow || ur.PressureBand != kr.PressureBand {
			t.Errorf("%s: unknown %d tokens after (%s), known %d (%s); bodies equal %v", f, ur.TokensAfter, ur.PressureBand, kr.TokensAfter, kr.PressureBand, bytes.Equal(unknown, known))
		}
		if ur.ContextWindowSource != request.WindowNone || ur.ContextWindow != 0 || kr.ContextWindowSource != tokens.SourceExplicit {
			t.Errorf("%s: window %d from %q (known: %q)", f, ur.ContextWindow, ur.ContextWindowSource, kr.ContextWindowSource)
		}
		js, _ := json.Marshal(ur)
		var top map[string]any
		if err := json.Unmarshal(js, &top); err != nil {
			t.Fatal(err)
		}
		_, hasWindow := top["context_window"]
		_, hasBudget := top["budget"]
		if hasWindow || hasBudget || top["budget_source"] != BudgetNone {
			t.Errorf("%s: report JSON has context_window %v, budget %v (%v), want neither", f, top["context_window"], top["budget"], top["budget_source"])
		}
		if len(ur.Warnings) != 1 || !strings.Contains(ur.Warnings[0], "context window unknown") || !strings.Contains(ur.Warnings[0], "--context-window") || len(kr.Warnings) != 0 {
			t.Errorf("%s: warnings %q (known: %q), want one saying the window is unknown and how to give it", f, ur.Warnings, kr.Warnings)
		}
		_, br, err := Compress(t.Context(), b, Options{Budget: 500_000})
		if err != nil {
			t.Fatal(err)
		}
		if br.ContextWindow != 0 || br.Budget != 500_000 || br.BudgetSource != BudgetExplicit || len(br.Warnings) != 0 {
			t.Errorf("%s: with a budget: window %d, budget %d (%s), warnings %q", f, br.ContextWindow, br.Budget, br.BudgetSource, br.Warnings)
		}
		if ur.TokensBefore < tokens.FallbackWindow {
			t.Errorf("%s: %d tokens is too small to show anything", f, ur.TokensBefore)
		}
	}
}

// TestNoMessages: without per-item decisions (Smart Context's eviction)
// the output is the same and Removed counts what the decisions would
// call summarized or evicted.
func TestNoMessages(t *testing.T) {
	body := render(request.FormatAnthropic, "claude-sonnet-4.5", manyCalls(40))
	full, err := New(Options{Budget: 3000, WindowSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := New(Options{Budget: 3000, WindowSize: 2, NoMessages: true})
	if err != nil {
		t.Fatal(err)
	}
	want, rep, err := full.Compress(t.Context(), body)
	if err != nil {
		t.Fatal(err)
	}
	gone := 0
	for _, d := range rep.Messages {
		if d.Decision == DecisionSummarized || d.Decision == DecisionEvicted {
			gone++
		}
	}
	if gone == 0 || rep.Removed != gone {
		t.Errorf("Removed = %d, the decisions remove %d (want more than none)", rep.Removed, gone)
	}
	got, brep, err := bare.Compress(t.Context(), body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || brep.Messages != nil || brep.Removed != gone {
		t.Errorf("NoMessages: same output %v, %d decisions, Removed %d; want true, 0, %d", bytes.Equal(got, want), len(brep.Messages), brep.Removed, gone)
	}
}
