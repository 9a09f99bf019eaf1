package mcp

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/workspace/tree"
)

// This file is the one place the MCP tools call the engine: each tool
// decodes its arguments, calls one of these and encodes the answer.

// stages maps the engine's pipeline stages to progress messages.
var stages = map[string]string{
	"gathering":  "gathering files",
	"scoring":    "scoring chunks",
	"fitting":    "fitting the budget",
	"assembling": "assembling the prompt",
}

func (s *Server) prompt(ctx context.Context, in BuildContextIn, step func(string)) (*ctxd.Envelope, error) {
	req := engine.PromptRequest{UserRequest: in.Request, TaskType: in.Task, Patterns: in.Patterns, Format: ctxd.Format(in.Format), RefuseSecretFiles: !s.allowSecretFiles}
	if in.Budget > 0 {
		req.TokenBudget = &engine.BudgetRequest{Context: in.Budget}
	}
	for _, f := range in.OpenFiles {
		req.OpenFiles = append(req.OpenFiles, ctxd.OpenFile{Path: f.Path, Line: f.Line})
	}
	return s.eng.BuildPrompt(ctx, req, func(stage string) {
		if m, ok := stages[stage]; ok {
			step(m)
		}
	})
}

// inRoot refuses a path that resolves outside the workspace root.
func (s *Server) inRoot(p string) error {
	_, _, err := tree.Resolve(s.eng.Root(), p)
	return err
}

func (s *Server) symbols(ctx context.Context, in FindSymbolIn) (*engine.SymbolResult, error) {
	return s.eng.FindSymbol(ctx, engine.SymbolRequest{Name: in.Name, MaxReferences: in.MaxReferences, IncludeDocs: in.IncludeDocs})
}

func (s *Server) outlineFile(ctx context.Context, in OutlineIn) (*engine.OutlineResult, error) {
	return s.eng.Outline(ctx, engine.OutlineRequest{Path: in.Path, Level: in.Level, Language: in.Language, RefuseSecretFiles: !s.allowSecretFiles})
}

func (s *Server) count(ctx context.Context, in CountTokensIn) (*engine.CountResult, error) {
	text := in.Text
	return s.eng.CountTokens(ctx, engine.CountRequest{Text: &text, Model: in.Model})
}

// compact runs the pruner (fit the window) or, with in.Smart, Smart
// Context, and returns the request to send, its session and the report.
func (s *Server) compact(ctx context.Context, body []byte, in CompactHistoryIn) ([]byte, string, any, error) {
	if in.Smart {
		call := engine.OptimizeRequest{Request: json.RawMessage(body)}
		call.Session, call.Model, call.ContextWindow, call.Budget = in.Session, in.Model, in.Window, in.Budget
		res, err := s.eng.Optimize(ctx, call)
		if err != nil {
			return nil, "", nil, err
		}
		return res.Request, res.Report.Session, res.Report, nil
	}
	res, err := s.eng.Compress(ctx, engine.CompressRequest{Request: body, Model: in.Model, ContextWindow: in.Window, Budget: in.Budget, SessionID: in.Session})
	if err != nil {
		return nil, "", nil, err
	}
	// The pruner stores what it condenses or evicts under the report's
	// session (the one given, else derived from the conversation).
	return res.Request, res.Report.Session, res.Report, nil
}

func (s *Server) rehydrateRef(ctx context.Context, session, hash string, start, end int) (*artifacts.Lines, error) {
	return s.eng.Rehydrate(ctx, engine.RehydrateRequest{SessionID: session, Hash: hash, StartLine: start, EndLine: end})
}
