package ctxd

import (
	"fmt"
	"math"
)

// DefaultBudgetTotal is the smallest default token budget of a prompt,
// and the default when the model's context window is unknown.
const DefaultBudgetTotal = 8000

// MaxDefaultBudgetTotal is the largest default token budget: past it a
// prompt costs more than it helps (each request pays for the whole
// context, and models use a long context less well).
const MaxDefaultBudgetTotal = 32000

// DefaultBudgetFor is the token budget of a prompt when nothing sets one,
// relative to the model's context window: an eighth of it, between
// DefaultBudgetTotal and MaxDefaultBudgetTotal, and never more than the
// window (gpt-4o's 128k window gives 16,000, Claude's 200k 25,000, a
// 400k or 1M window 32,000, gpt-4's 8k window 8,000).
func DefaultBudgetFor(window int) int {
	if window <= 0 {
		return DefaultBudgetTotal
	}
	total := min(max(window/8, DefaultBudgetTotal), MaxDefaultBudgetTotal)
	return min(total, window)
}

// Shares split a budget's total between its parts. They are fractions that
// sum to 1 (within a small tolerance).
type Shares struct {
	System   float64 `json:"system" toml:"system"`
	Context  float64 `json:"context" toml:"context"`
	Request  float64 `json:"user_request" toml:"user_request"`
	Response float64 `json:"response" toml:"response"`
}

// DefaultShares is the design's split: 10% system, 50% context, 10% request,
// 30% response.
var DefaultShares = Shares{System: 0.10, Context: 0.50, Request: 0.10, Response: 0.30}

// Validate reports shares that are negative or do not sum to 1.
func (s Shares) Validate() error {
	for _, v := range []float64{s.System, s.Context, s.Request, s.Response} {
		if v < 0 || v > 1 || math.IsNaN(v) {
			return fmt.Errorf("budget shares must each be between 0 and 1, got %+v: %w", s, ErrInvalidParams)
		}
	}
	if sum := s.System + s.Context + s.Request + s.Response; math.Abs(sum-1) > 0.001 {
		return fmt.Errorf("budget shares must sum to 1, got system %g + context %g + user_request %g + response %g = %.3f (a share not given keeps its default): %w",
			s.System, s.Context, s.Request, s.Response, sum, ErrInvalidParams)
	}
	return nil
}

// Budget is a prompt's token budget: the total and its parts. Context is
// what the gathered chunks may use.
type Budget struct {
	Total       int `json:"total"`
	System      int `json:"system"`
	Context     int `json:"context"`
	UserRequest int `json:"user_request"`
	Response    int `json:"response"`
}

// NewBudget splits total by shares. Rounding goes to the response part, so
// the parts always sum to total.
func NewBudget(total int, s Shares) Budget {
	b := Budget{
		Total:       total,
		System:      int(float64(total) * s.System),
		Context:     int(float64(total) * s.Context),
		UserRequest: int(float64(total) * s.Request),
	}
	b.Response = total - b.System - b.Context - b.UserRequest
	return b
}

// WithContext returns b with its context part set to n directly (for
// callers that bring their own system prompt). The total grows or shrinks
// by the difference so the parts still sum to it.
func (b Budget) WithContext(n int) Budget {
	b.Total += n - b.Context
	b.Context = n
	return b
}

// Validate reports a budget with a negative part or parts that do not sum
// to the total.
func (b Budget) Validate() error {
	if b.Total <= 0 {
		return fmt.Errorf("token_budget.total must be positive, got %d: %w", b.Total, ErrInvalidParams)
	}
	for _, v := range []int{b.System, b.Context, b.UserRequest, b.Response} {
		if v < 0 {
			return fmt.Errorf("token_budget parts must not be negative, got %+v: %w", b, ErrInvalidParams)
		}
	}
	if b.System+b.Context+b.UserRequest+b.Response != b.Total {
		return fmt.Errorf("token_budget parts sum to %d, not total %d: %w", b.System+b.Context+b.UserRequest+b.Response, b.Total, ErrInvalidParams)
	}
	return nil
}
