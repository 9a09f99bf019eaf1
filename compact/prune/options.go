package prune

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/tokens"
)

// Defaults of the Token Diet pruner.
const (
	// DefaultWindowSize keeps the last 2*4 = 8 messages whole as working
	// memory.
	DefaultWindowSize = 4
	// DefaultMaxToolOutput is the longest tool output (in characters,
	// i.e. runes) kept whole outside the working memory.
	DefaultMaxToolOutput = 500
	// MaxReserveShare caps the default output reserve at a quarter of the
	// context window.
	MaxReserveShare = 0.25
)

// Options configure a [Pruner]. Zero values take the model's preset.
type Options struct {
	// Model names the model the request is for; "" uses the request's own
	// "model" field, then DefaultModel, then [tokens.DefaultModel]. It
	// picks the encoding, the window, the output limit and the preset.
	Model string
	// DefaultModel is the model for requests that name none (a
	// connection's default, say); Model and the request's field win.
	DefaultModel string
	// ContextWindow overrides the model's window (tokens).
	ContextWindow int
	// OutputReserve is the part of the window kept for the reply; 0 means
	// the model's maximum output capped at [MaxReserveShare] of the
	// window.
	OutputReserve int
	// Budget is the token budget of the whole request; 0 means
	// ContextWindow - OutputReserve.
	Budget int
	// WindowSize keeps the last 2*WindowSize messages whole; 0 uses the
	// model's preset.
	WindowSize int
	// MaxToolOutput is the longest older tool output kept whole, in
	// characters; 0 uses the preset, a negative value never condenses.
	MaxToolOutput int
	// Format forces the request format; "" detects it.
	Format request.Format
	// Logger receives counts and decisions, never message text; nil
	// discards.
	Logger *slog.Logger
	// Cache is shared with other pruners (a daemon's); nil gives the
	// pruner a cache of its own.
	Cache *Cache
	// Store keeps what is condensed or evicted, content-addressed, so
	// that the reference left in its place resolves (ctxd rehydrate);
	// nil stores nothing (references then only name the hash).
	Store Store
	// Session is the artifact scope; "" derives one from the
	// conversation's first items.
	Session string
	// Retrieval makes every reference say how to read the text back
	// (`ctxd rehydrate --session S H a-b`, as Smart Context's markers
	// do); its Session is set to the run's scope. Used only with a Store.
	Retrieval request.Retrieval
	// NoMessages leaves Report.Messages empty (Report.Removed still
	// counts): a caller that reads no decision does not pay one per item
	// (Smart Context's eviction, on a request of many small messages).
	NoMessages bool
}

// Store is what the pruner needs of an artifact store;
// [*artifacts.Store] is the implementation.
type Store interface {
	Put(ctx context.Context, session string, content []byte) (artifacts.Ref, string, error)
	Verify(ctx context.Context, session, hash string) (artifacts.Ref, error)
	Resolve(ctx context.Context, session, prefix string) (string, error)
	// Flush makes what Put stored durable (one fsync per pack with
	// [artifacts.Options.Sync]); called once before the reply that
	// refers to the stored texts.
	Flush() error
}

var _ Store = (*artifacts.Store)(nil)

// Preset is a model family's working-memory size and tool-output limit.
type Preset struct {
	WindowSize    int `json:"window_size"`
	MaxToolOutput int `json:"max_tool_output"`
}

// seedPresets are the Token Diet table's entries, by registry name.
var seedPresets = map[string]int{
	"gpt-4o":        6,
	"gpt-4-turbo":   6,
	"gpt-4":         4,
	"gpt-3.5-turbo": 8,
}

// PresetFor returns the preset of a model description: the Token Diet
// table for the four models it names, otherwise one derived from the
// context window: under 32k tokens 4 turns, under 128k 5, under 400k 6,
// from 400k on 8; tool outputs keep 500 characters, 1000 from a 1M-token
// window on. See docs/compaction.md.
func PresetFor(m ctxd.Model) Preset {
	p := Preset{WindowSize: DefaultWindowSize, MaxToolOutput: DefaultMaxToolOutput}
	if w, ok := seedPresets[m.Name]; ok && m.Source != tokens.SourceFallback && m.Source != request.WindowNone {
		p.WindowSize = w
		return p
	}
	switch w := m.ContextWindow; {
	case w >= 1_000_000:
		p.WindowSize, p.MaxToolOutput = 8, 1000
	case w >= 400_000:
		p.WindowSize = 8
	case w >= 128_000:
		p.WindowSize = 6
	case w >= 32_000:
		p.WindowSize = 5
	}
	return p
}

// settings are the options resolved against a model.
type settings struct {
	model         ctxd.Model
	counter       tokens.Counter
	windowSize    int
	maxToolOutput int
	outputReserve int
	budget        int
	budgetSource  string
}

// Where a report's budget came from.
const (
	BudgetExplicit = "explicit"
	BudgetWindow   = "model_window"
	// BudgetNone: no window and no explicit budget (the report shows no
	// number).
	BudgetNone = "none"
)

func (o Options) validate() error {
	for _, v := range []struct {
		name string
		n    int
	}{{"context_window", o.ContextWindow}, {"output_reserve", o.OutputReserve}, {"budget", o.Budget}, {"window_size", o.WindowSize}} {
		if v.n < 0 {
			return fmt.Errorf("%s must not be negative, got %d: %w", v.name, v.n, ctxd.ErrInvalidParams)
		}
	}
	if err := o.Retrieval.Check(); err != nil {
		return fmt.Errorf("%w: %w", err, ctxd.ErrInvalidParams)
	}
	return nil
}

// resolve fixes the model and the budget. name is the model to use when
// Options.Model is empty (the request's own).
func (o Options) resolve(name string) (settings, error) {
	if o.Model != "" {
		name = o.Model
	}
	if name == "" {
		name = o.DefaultModel
	}
	c, m := tokens.ForModel(name, o.ContextWindow)
	if m.Source == tokens.SourceFallback {
		// Nothing gave a window: no guess, no pressure (as Smart
		// Context's budget).
		m.ContextWindow, m.Source = request.NoWindow, request.WindowNone
	}
	s := settings{model: m, counter: c}
	p := PresetFor(m)
	s.windowSize = p.WindowSize
	if o.WindowSize > 0 {
		s.windowSize = o.WindowSize
	}
	s.maxToolOutput = p.MaxToolOutput
	if o.MaxToolOutput != 0 {
		s.maxToolOutput = o.MaxToolOutput
	}
	s.outputReserve = o.OutputReserve
	if s.outputReserve == 0 {
		s.outputReserve = min(m.MaxOutput, int(float64(m.ContextWindow)*MaxReserveShare))
	}
	if o.Budget > 0 {
		s.budget, s.budgetSource = o.Budget, BudgetExplicit
		return s, nil
	}
	s.budget, s.budgetSource = m.ContextWindow-s.outputReserve, BudgetWindow
	if s.budget <= 0 {
		return s, fmt.Errorf("output reserve %d leaves no room in the %d-token window of %s: %w", s.outputReserve, m.ContextWindow, m.Name, ctxd.ErrInvalidParams)
	}
	return s, nil
}
