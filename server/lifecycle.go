package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/jsonrpc"
	"github.com/ctxd/ctxd/tokens"
)

func init() {
	register(
		method{name: "initialize", beforeInit: true, handle: initialize},
		method{name: "initialized", handle: func(context.Context, *client, json.RawMessage) (any, error) { return nil, nil }},
		method{name: "shutdown", handle: shutdown},
		method{name: "exit", beforeInit: true, handle: exit},
	)
}

// ctxdInit are ctxd's own initialize params, next to the LSP ones. They
// may also come inside initializationOptions, which is where LSP client
// libraries put server-specific settings.
type ctxdInit struct {
	Root          string                `json:"root"`
	ClientInfo    *clientInfo           `json:"client_info"`
	Model         string                `json:"model"`
	ContextWindow int                   `json:"context_window"`
	TokenBudget   *engine.BudgetRequest `json:"token_budget"`
	Format        ctxd.Format           `json:"format"`
	Exclude       []string              `json:"exclude"`
	// Token is the daemon's token, required on TCP (docs/security.md).
	Token string `json:"token"`
}

// InitializeResult is initialize's answer: LSP's fields, so LSP client
// libraries accept it, and ctxd's.
type InitializeResult struct {
	Capabilities map[string]any `json:"capabilities"`
	ServerInfo   serverInfo     `json:"serverInfo"`
	// Methods lists every method the daemon serves.
	Methods []string `json:"methods"`
	// Root is the workspace the connection serves.
	Root string `json:"root"`
	// Model and TokenBudget are the defaults requests get.
	Model           ctxd.Model     `json:"model"`
	TokenBudget     ctxd.Budget    `json:"token_budget"`
	Format          ctxd.Format    `json:"format"`
	RegistryVersion string         `json:"registry_version"`
	Config          []config.Entry `json:"config"`
}

// clientInfo is ctxd's spelling of LSP's clientInfo.
type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// decodeInitialize decodes initialize's params: LSP's fields, and ctxd's
// beside them or inside initializationOptions (those win).
func decodeInitialize(params json.RawMessage) (lspInitializeParams, ctxdInit, error) {
	var lsp lspInitializeParams
	var own ctxdInit
	if len(params) == 0 {
		return lsp, own, nil
	}
	if err := decodeLSPParams(params, &lsp); err != nil {
		return lsp, own, fmt.Errorf("initialize params: %w", err)
	}
	// ctxd's fields sit beside LSP's, so unknown fields are expected here.
	if err := json.Unmarshal(params, &own); err != nil {
		return lsp, own, fmt.Errorf("initialize params: %s: %w", describe(err, &own), ctxd.ErrInvalidParams)
	}
	if raw := []byte(lsp.InitializationOptions); len(raw) > 0 && raw[0] == '{' {
		var fromOpts ctxdInit
		if err := json.Unmarshal(raw, &fromOpts); err != nil {
			return lsp, own, fmt.Errorf("initializationOptions: %s: %w", describe(err, &own), ctxd.ErrInvalidParams)
		}
		mergeInit(&own, fromOpts)
	}
	return lsp, own, nil
}

func initialize(_ context.Context, cl *client, params json.RawMessage) (any, error) {
	if cl.state.Load() != stateNew {
		return nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "initialize: already initialized")
	}
	lsp, own, err := decodeInitialize(params)
	if err != nil {
		return nil, err
	}

	root := own.Root
	if root == "" && lsp.RootURI != nil && *lsp.RootURI != "" {
		root = uriPath(*lsp.RootURI)
	}
	if root == "" {
		if len(lsp.WorkspaceFolders) > 0 {
			root = uriPath(lsp.WorkspaceFolders[0].URI)
		}
	}
	if root == "" {
		if lsp.RootPath != nil {
			root = *lsp.RootPath
		}
	}
	if err := cl.checkToken(own.Token); err != nil {
		return nil, err
	}
	root, err = cl.srv.resolveRoot(root)
	if err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	if err := cl.checkRoot(root); err != nil {
		return nil, err
	}

	var ov config.Overrides
	if own.Model != "" {
		ov.Model = &own.Model
	}
	if own.ContextWindow != 0 {
		ov.ContextWindow = &own.ContextWindow
	}
	if own.Format != "" {
		ov.Format = &own.Format
	}
	ov.Exclude = own.Exclude
	eng, err := cl.srv.engine(root, ov)
	if err != nil {
		return nil, err
	}
	eng.StartAnalysis()
	defaults := engine.PromptRequest{Model: own.Model, ContextWindow: own.ContextWindow, TokenBudget: own.TokenBudget, Format: own.Format}
	env, err := eng.Describe(defaults)
	if err != nil {
		return nil, err
	}

	cl.engMu.Lock()
	cl.eng, cl.defaults = eng, defaults
	cl.engMu.Unlock()
	cl.state.Store(stateReady)
	client := lsp.ClientInfo.Name
	if own.ClientInfo != nil {
		client = own.ClientInfo.Name
	}
	cl.log = cl.log.With("client", client)
	cl.log.Info("initialized", "root", root)

	return InitializeResult{
		Capabilities: map[string]any{
			// Full document sync: didChange carries the whole text, which is
			// what gathering needs.
			"textDocumentSync": map[string]any{"openClose": true, "change": 1},
		},
		ServerInfo:      serverInfo{Name: "ctxd", Version: cl.srv.opts.Version},
		Methods:         MethodNames(),
		Root:            root,
		Model:           env.Model,
		TokenBudget:     env.TokenBudget,
		Format:          env.Format,
		RegistryVersion: tokens.RegistryVersion,
		Config:          eng.Config().Entries(),
	}, nil
}

// mergeInit fills what dst leaves unset (zero, nil) from src.
func mergeInit(dst *ctxdInit, src ctxdInit) {
	dst.Root = cmp.Or(dst.Root, src.Root)
	dst.Model = cmp.Or(dst.Model, src.Model)
	dst.ContextWindow = cmp.Or(dst.ContextWindow, src.ContextWindow)
	dst.TokenBudget = cmp.Or(dst.TokenBudget, src.TokenBudget)
	dst.Format = cmp.Or(dst.Format, src.Format)
	if dst.Exclude == nil {
		dst.Exclude = src.Exclude
	}
	dst.Token = cmp.Or(dst.Token, src.Token)
}

// uriPath turns a file:// URI into a path; other strings pass through.
func uriPath(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return s
}

func shutdown(_ context.Context, cl *client, _ json.RawMessage) (any, error) {
	cl.state.Store(stateShutdown)
	cl.log.Info("shutdown requested")
	return nil, nil
}

func exit(_ context.Context, cl *client, _ json.RawMessage) (any, error) {
	code := 1
	if cl.state.Load() == stateShutdown {
		code = 0
	}
	select {
	case cl.exit <- code:
	default:
	}
	return nil, nil
}
