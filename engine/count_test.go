package engine

import (
	"context"
	"testing"

	"github.com/ctxd/ctxd/tokens"
)

// TestCountTokensExactOnlyForTheModelsOwnEncoding: ctx/countTokens (and
// MCP's count_tokens) says a count is exact only when it was counted with
// the model's own BPE. An unknown model name (a gateway alias) is counted
// with the fallback encoding, which is not its tokenizer: it said "exact".
func TestCountTokensExactOnlyForTheModelsOwnEncoding(t *testing.T) {
	e := newEngine(t, t.TempDir())
	text := "func main() { fmt.Println(\"hello\") }"
	tests := []struct {
		model  string
		window int
		exact  bool
		enc    string
	}{
		{"gpt-4o", 0, true, "o200k_base"},
		{"gpt-4", 0, true, "cl100k_base"},
		{"claude-sonnet-4.5", 0, false, "estimate/claude"},
		{"my-gateway-alias", 0, false, tokens.FallbackEncoding},
		{"my-gateway-alias", 200000, false, tokens.FallbackEncoding},
	}
	for _, tt := range tests {
		res, err := e.CountTokens(context.Background(), CountRequest{Text: &text, Model: tt.model, ContextWindow: tt.window})
		if err != nil {
			t.Fatalf("%s: %v", tt.model, err)
		}
		if res.Exact != tt.exact || res.Encoding != tt.enc || res.Tokens <= 0 {
			t.Errorf("%s (window %d): exact %v, encoding %q, %d tokens; want exact %v, encoding %q", tt.model, tt.window, res.Exact, res.Encoding, res.Tokens, tt.exact, tt.enc)
		}
		if want := res.Model.EstimatorConfidence == tokens.ConfidenceExact; res.Exact != want {
			t.Errorf("%s: exact %v but the model's estimator_confidence is %q", tt.model, res.Exact, res.Model.EstimatorConfidence)
		}
	}
}
