package proxy

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/engine"
)

// This file is the one place the proxy calls the engine's request flow.

// Flow is the request flow the proxy rewrites with: the Smart Context
// optimizer and the artifact store of one state directory.
type Flow struct {
	r        *engine.Requests
	stateDir string
}

// NewFlowWith opens the request flow o describes (its StateDir
// absolute; its window and redaction settings apply to every request, as
// they do in the CLI and the daemon). canaryPercent below 0 means no
// canary; o.Rollout is replaced.
func NewFlowWith(o engine.RequestsOptions, canaryPercent int) (*Flow, error) {
	rollout := smart.Rollout{}
	if canaryPercent >= 0 {
		rollout.Canary, rollout.CanaryPercent = true, canaryPercent
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// The proxy logs one record per request itself (with the optimizer's
	// telemetry in it); the flow logs only its warnings.
	o.Logger = slog.New(warnOnly{log.Handler()})
	o.Rollout = &rollout
	r, err := engine.NewRequests(o)
	if err != nil {
		return nil, err
	}
	return &Flow{r: r, stateDir: o.StateDir}, nil
}

func (f *Flow) optimize(ctx context.Context, body []byte, c smart.Call) ([]byte, *smart.Report, error) {
	res, err := f.r.Optimize(ctx, engine.OptimizeRequest{Request: json.RawMessage(body), Mode: string(c.Mode), Format: string(c.Format), Call: c, RetrievalAsGiven: true})
	if err != nil {
		return nil, nil, err
	}
	return res.Request, res.Report, nil
}

// redact redacts a body the proxy forwards without rewriting it, when
// the flow redacts every conversation (--redact-secrets,
// secrets.redact_conversation): the optimizer's own redaction.
func (f *Flow) redact(body []byte) ([]byte, []ctxd.Redaction, error) {
	return f.r.RedactRequest(false, body)
}

// redacts reports whether the flow redacts every conversation.
func (f *Flow) redacts() bool { return f.r.Redacts() }

func (f *Flow) rehydrate(ctx context.Context, session, hash string, start, end int) (*artifacts.Lines, error) {
	return f.r.Rehydrate(ctx, engine.RehydrateRequest{SessionID: session, Hash: hash, StartLine: start, EndLine: end})
}

// warnOnly passes on warnings and errors only.
type warnOnly struct{ slog.Handler }

func (h warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnOnly) WithAttrs(as []slog.Attr) slog.Handler { return warnOnly{h.Handler.WithAttrs(as)} }
func (h warnOnly) WithGroup(n string) slog.Handler       { return warnOnly{h.Handler.WithGroup(n)} }
