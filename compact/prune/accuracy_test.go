package prune

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/tokens"
)

// accuracySamples are the audit's five sample types, written for ctxd.
var accuracySamples = []struct{ name, text string }{
	{"English prose", "Workers run close to the user, so a request that used to cross an ocean now ends a few milliseconds away. " +
		"The trade-off is a small runtime: no file system, a tight memory limit and a CPU budget per request. " +
		"Most teams move their routing and caching logic first and keep the heavy work in a region."},
	{"Go code", "func (s *Server) handle(ctx context.Context, req *Request) (*Response, error) {\n" +
		"\tif err := req.Validate(); err != nil {\n\t\treturn nil, fmt.Errorf(\"validate request %s: %w\", req.ID, err)\n\t}\n" +
		"\tdata, err := json.Marshal(map[string]any{\"id\": req.ID, \"items\": req.Items})\n" +
		"\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn &Response{Body: data, Status: 200}, nil\n}\n"},
	{"JSON tool payload", `{"tool_call_id":"call_8f2a","name":"read_file","arguments":{"path":"src/durable-objects/context-budget.ts","start_line":120,"end_line":180},"metadata":{"attempt":2,"cached":false,"duration_ms":14,"tags":["fs","read"]}}`},
	{"Mixed test output", "=== RUN   TestParse/empty\n--- FAIL: TestParse/empty (0.00s)\n    parse_test.go:42: Parse(\"\") = <nil>, want error\n" +
		"FAIL\tgithub.com/ctxd/ctxd/compact/request\t0.012s\nThe empty body should be rejected before detection runs; see parse.go:31.\n"},
	{"CJK sentence", "上下文窗口是有限的，所以我们在发送请求之前先估算每条消息的令牌数量，并在超出预算时删除最旧的工具输出。日本語の文章も同じように数えます。"},
}

// TestAccuracyTable measures token estimation per sample: the exact OpenAI
// encodings, the characters/4 heuristic of the seed's fallback (error
// against cl100k_base), and the calibrated estimators of families without
// a public tokenizer (with their stated calibration error). Run
// with -v to print the table that BENCHMARKS.md and docs/compaction.md
// quote.
func TestAccuracyTable(t *testing.T) {
	cl, err := tokens.Get(tokens.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	families := []struct{ label, model string }{{"Claude", "claude-sonnet-4.5"}, {"Gemini", "gemini-2.5-pro"}, {"Llama", "llama-3.1-8b"}, {"Mistral", "mistral-large"}}
	var sb strings.Builder
	sb.WriteString("| Sample | chars | cl100k_base | o200k_base | chars/4 | chars/4 error vs cl100k |")
	for _, f := range families {
		fmt.Fprintf(&sb, " %s estimate |", f.label)
	}
	sb.WriteString("\n|---|---:|---:|---:|---:|---:|")
	for range families {
		sb.WriteString("---:|")
	}
	sb.WriteString("\n")
	for _, s := range accuracySamples {
		chars := utf8.RuneCountInString(s.text)
		exact := cl.Count(s.text)
		heur := (chars + 3) / 4
		errPct := 100 * float64(heur-exact) / float64(exact)
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d | %+.1f%% |", s.name, chars, exact, o2.Count(s.text), heur, errPct)
		for _, f := range families {
			c, m := tokens.ForModel(f.model, 0)
			n := c.Count(s.text)
			if c.Exact() {
				fmt.Fprintf(&sb, " %d (exact, %s) |", n, c.Encoding())
				continue
			}
			// The estimators are calibrated against each family's own
			// tokenizer, which may be cheaper than cl100k_base (Llama
			// on CJK): the table shows them, there is nothing to compare
			// here beyond the stated error.
			fmt.Fprintf(&sb, " %d (stated error %.0f%%) |", n, 100*m.CalibrationError)
		}
		sb.WriteString("\n")
		// Exact encodings: the estimator's text count is the tokenizer's.
		for _, model := range []string{"gpt-4", "gpt-4o"} {
			c, _ := tokens.ForModel(model, 0)
			est := request.NewEstimator(c, request.ImageOpenAI)
			if got, want := est.Text(s.text), c.Count(s.text); got != want {
				t.Errorf("%s on %s: estimator %d, tokenizer %d", model, s.name, got, want)
			}
		}
		if s.name == "CJK sentence" && math.Abs(errPct) < 30 {
			t.Errorf("chars/4 on CJK is off by %.1f%%; the table should show it fails there", errPct)
		}
	}
	t.Logf("token estimation accuracy:\n%s", sb.String())
}
