package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/tokens"
)

// CountRequest is the input of ctx/countTokens: a text, or a list of chat
// messages (any of the three request formats' message lists; the server
// counts those with the conversation compactor's estimator).
type CountRequest struct {
	Text     *string         `json:"text,omitempty"`
	Messages json.RawMessage `json:"messages,omitempty"`
	// Format names the messages' wire format (chat, anthropic, responses);
	// detected when absent.
	Format string `json:"format,omitempty"`
	Model  string `json:"model,omitempty"`
	// ContextWindow overrides the registry, as for prompts.
	ContextWindow int `json:"context_window,omitempty"`
}

// CountResult is the answer of ctx/countTokens.
type CountResult struct {
	Tokens   int        `json:"tokens"`
	Encoding string     `json:"encoding"`
	Exact    bool       `json:"exact"`
	Model    ctxd.Model `json:"model"`
}

// CountTokens counts a text with the model's encoding (an exact BPE, or
// the calibrated estimate for models without a public one).
func (e *Engine) CountTokens(_ context.Context, req CountRequest) (*CountResult, error) {
	if req.Text == nil {
		return nil, fmt.Errorf("give text (or messages) to count: %w", ctxd.ErrInvalidParams)
	}
	name := req.Model
	if name == "" {
		name = e.cfg.Model
	}
	c, m := tokens.ForModel(name, req.ContextWindow)
	// An exact BPE is exact for this model only when it is the model's
	// own: an unknown name is counted with the fallback encoding.
	exact := c.Exact() && m.EstimatorConfidence == tokens.ConfidenceExact
	return &CountResult{Tokens: c.Count(*req.Text), Encoding: c.Encoding(), Exact: exact, Model: m}, nil
}
