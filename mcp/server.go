// Package mcp is ctxd's Model Context Protocol server (`ctxd mcp`): the
// engine's context building, symbol lookup, outlines, token counts,
// history compaction and rehydration as MCP tools, over stdio, on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// The tools are thin: each decodes its arguments (the SDK validates them
// against the tool's JSON schema first), calls one engine method
// (engine.go, the one file that knows the engine's API) and encodes the
// answer as text content for the model plus structured content for
// programs. A tool that fails returns an MCP tool error (isError) whose
// text says what to change; the server keeps serving. Paths are resolved
// inside the workspace root and refused outside it. Long calls
// (build_context, find_symbol, compact_history) send progress
// notifications when the client asked for them with a progress token.
//
// docs/mcp.md lists the tools and a client configuration.
package mcp

import (
	"context"
	"io"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxd/ctxd/engine"
)

// Options configure a [Server].
type Options struct {
	// Version is the server version reported at initialize.
	Version string
	// Logger receives one debug record per tool call (name, duration,
	// error); never arguments or file text. nil discards.
	Logger *slog.Logger
	// AllowSecretFiles lets build_context gather a secret file (.env,
	// keys, ...) that the agent names; by default a name from an agent
	// is not consent (`ctxd mcp --allow-secret-files` sets it).
	AllowSecretFiles bool
}

// Server is ctxd's MCP server for one workspace engine.
type Server struct {
	eng *engine.Engine
	log *slog.Logger
	srv *sdk.Server

	allowSecretFiles bool
}

// New returns the MCP server of eng, with every tool registered.
func New(eng *engine.Engine, opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := opts.Version
	if v == "" {
		v = "dev"
	}
	s := &Server{eng: eng, log: log, allowSecretFiles: opts.AllowSecretFiles}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "ctxd", Title: "ctxd context daemon", Version: v}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       log,
	})
	s.addTools()
	return s
}

// instructions tell a model what the server is for.
const instructions = `ctxd builds task-aware context from the workspace repository and keeps model requests small.
Call build_context with the user's request to get the relevant code, fitted to a token budget, before answering questions about the codebase.
Use find_symbol to locate a definition and its uses, outline to see a file's structure cheaply, count_tokens to measure text,
compact_history to shrink a long model request, and rehydrate to read back text that a [ctxd:ref ...] marker stands for.`

// Run serves one client over in and out (a process's standard input and
// output) until the client disconnects or ctx ends. When the input ends,
// the calls already read are answered first (see drain).
func (s *Server) Run(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	d := newDrain(ctx, in, out)
	return s.srv.Run(ctx, &sdk.IOTransport{Reader: d, Writer: drainWriter{d}, MaxLineLength: MaxMessageBytes})
}
