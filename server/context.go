package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
)

func init() {
	register(
		method{name: "ctx/gather", async: true, handle: gatherContext},
		method{name: "ctx/buildPrompt", async: true, handle: buildPrompt},
		method{name: "ctx/countTokens", async: true, handle: countTokens},
	)
}

// promptParams decodes a ctx/buildPrompt or ctx/gather request and fills
// what it leaves unset from the connection's initialize defaults.
func (cl *client) promptParams(params json.RawMessage, allowFormat bool) (engine.PromptRequest, error) {
	var p PromptParams
	if err := decode(params, &p); err != nil {
		return p.PromptRequest, err
	}
	req, err := p.resolve()
	if err != nil {
		return req, err
	}
	if !allowFormat && req.Format != "" {
		return req, fmt.Errorf("format applies to ctx/buildPrompt only; ctx/gather returns no prompt: %w", ctxd.ErrInvalidParams)
	}
	cl.engMu.Lock()
	d := cl.defaults
	cl.engMu.Unlock()
	// What the request leaves unset, the connection's defaults give.
	req.Model = cmp.Or(req.Model, d.Model)
	req.ContextWindow = cmp.Or(req.ContextWindow, d.ContextWindow)
	req.TokenBudget = cmp.Or(req.TokenBudget, d.TokenBudget)
	req.Format = cmp.Or(req.Format, d.Format)
	return req, nil
}

// PromptParams are the params of ctx/buildPrompt and ctx/gather: the
// engine's request, whose names the editor clients send (user_request,
// task_type), and the names the CLI and MCP use for the same things
// (request, task), accepted too (docs/vocabulary.md).
type PromptParams struct {
	engine.PromptRequest
	Request *string `json:"request"`
	Task    *string `json:"task"`
}

// resolve folds the common names into the engine's request; giving a
// field under both its names is an error naming both.
func (p PromptParams) resolve() (engine.PromptRequest, error) {
	req := p.PromptRequest
	for _, a := range []struct {
		name, alias string
		val         *string
		dst         *string
	}{
		{"request", "user_request", p.Request, &req.UserRequest},
		{"task", "task_type", p.Task, &req.TaskType},
	} {
		if a.val == nil {
			continue
		}
		if err := ctxd.OneName(a.name, a.alias, *a.val, a.dst); err != nil {
			return req, err
		}
	}
	if strings.TrimSpace(req.UserRequest) == "" {
		return req, fmt.Errorf("request is required: the task in the user's words (user_request is accepted too): %w", ctxd.ErrInvalidParams)
	}
	return req, nil
}

func buildPrompt(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	req, err := cl.promptParams(params, true)
	if err != nil {
		return nil, err
	}
	return cl.engine().BuildPrompt(ctx, req, nil)
}

func gatherContext(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	req, err := cl.promptParams(params, false)
	if err != nil {
		return nil, err
	}
	return cl.engine().Gather(ctx, req, nil)
}

func countTokens(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.CountRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if req.Model == "" {
		req.Model = cl.defaultModel()
	}
	if req.Messages != nil {
		if req.Text != nil {
			return nil, fmt.Errorf("give text or messages, not both: %w", ctxd.ErrInvalidParams)
		}
		return countMessages(ctx, cl, req)
	}
	return cl.engine().CountTokens(ctx, req)
}
