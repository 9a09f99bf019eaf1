// Package mcp is ctxd's Model Context Protocol server (`ctxd mcp`): the
// engine's context building, symbol lookup, outlines, token counts,
// history compaction and rehydration as MCP tools, over stdio.
//
// The protocol is served here, not by an SDK (docs/mcp.md says why):
// newline-delimited JSON-RPC 2.0 (wire.go: one message a line, a line over
// the limit refused with an error while the session goes on),
// initialize with version negotiation, ping, tools/list (tools.json, the
// published names, descriptions and schemas), tools/call (arguments
// validated against the tool's schema, schema.go), progress notifications
// and notifications/cancelled. The official SDKs are the tests' clients.
//
// The tools are thin: each decodes its arguments, calls one engine method
// (engine.go, the one file that knows the engine's API) and encodes the
// answer as text content for the model plus structured content for
// programs. A tool that fails returns an MCP tool error (isError) whose
// text says what to change; the server keeps serving. Paths are resolved
// inside the workspace root and refused outside it. Long calls
// (build_context, find_symbol, compact_history) send progress
// notifications when the client asked for them with a progress token.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// Options configure a [Server].
type Options struct {
	// Version is the server version reported at initialize.
	Version string
	// Logger receives one debug record per tool call (name, duration,
	// error) and per refused message (code, size); never arguments or
	// file text. nil discards.
	Logger *slog.Logger
	// AllowSecretFiles lets build_context gather a secret file (.env,
	// keys, ...) that the agent names; by default a name from an agent
	// is not consent (`ctxd mcp --allow-secret-files` sets it).
	AllowSecretFiles bool
	// MaxMessageBytes bounds one input message (one line); a longer one
	// is refused with an error and the session goes on. 0 means
	// [DefaultMaxMessageBytes].
	MaxMessageBytes int
}

// Server is ctxd's MCP server for one workspace engine.
type Server struct {
	eng     *engine.Engine
	log     *slog.Logger
	version string
	maxMsg  int

	allowSecretFiles bool

	toolList json.RawMessage    // tools/list's tools, as published
	schemas  map[string]*schema // tool name -> input schema
	tools    map[string]toolFunc
}

// toolFunc runs one tool on its arguments, validated against its schema.
type toolFunc func(ctx context.Context, c *call, args raw) *toolResult

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
	list, schemas, err := loadTools()
	if err != nil {
		panic(err) // tools.json is part of the binary; TestToolSchemas checks it
	}
	s := &Server{eng: eng, log: log, version: v, maxMsg: opts.MaxMessageBytes, allowSecretFiles: opts.AllowSecretFiles,
		toolList: list, schemas: schemas, tools: map[string]toolFunc{}}
	if s.maxMsg <= 0 {
		s.maxMsg = DefaultMaxMessageBytes
	}
	s.addTools()
	for name := range s.schemas {
		if s.tools[name] == nil {
			panic(fmt.Sprintf("mcp: tools.json lists %s, which has no handler", name))
		}
	}
	return s
}

// instructions tell a model what the server is for.
const instructions = `ctxd builds task-aware context from the workspace repository and keeps model requests small.
Call build_context with the user's request to get the relevant code, fitted to a token budget, before answering questions about the codebase.
Use find_symbol to locate a definition and its uses, outline to see a file's structure cheaply, count_tokens to measure text,
compact_history to shrink a long model request, and rehydrate to read back text that a [ctxd:ref ...] marker stands for.`

// The protocol versions served, newest first: a client asking for one of
// them gets it, any other client the first (what the Go SDK v1.8.0's
// server negotiated for these; its 2026-07-28 sessionless protocol is not
// served, and its clients fall back to initialize).
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// drainTimeout bounds how long end of input waits for the answers of the
// calls read before it.
const drainTimeout = 2 * time.Minute

// Run serves one client over in and out (a process's standard input and
// output) until the input ends, the client stops reading or ctx ends.
// When the input ends, the calls already read are answered first (a
// client may write its calls and close its end: `printf ... | ctxd mcp`),
// for at most drainTimeout.
func (s *Server) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss := &session{srv: s, w: &writer{w: out}}
	lr := newLineReader(in, s.maxMsg)
	read := make(chan error, 1)
	go func() { read <- ss.serve(ctx, lr) }()
	var err error
	select {
	case err = <-read:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		done := make(chan struct{})
		go func() { ss.calls.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(drainTimeout):
			s.log.Warn("input ended; calls still running after the drain timeout are abandoned", "timeout", drainTimeout)
		}
	}
	ss.running.CancelAll()
	return err
}

// session is one client's state.
type session struct {
	srv *Server
	w   *writer

	mu          sync.Mutex
	initialized bool // initialize answered
	running     jsonrpc.Calls
	calls       sync.WaitGroup
}

// serve reads and handles messages until the input ends (nil) or fails.
func (ss *session) serve(ctx context.Context, lr *lineReader) error {
	for {
		line, err := lr.next()
		var long *errLineTooLong
		switch {
		case errors.As(err, &long):
			ss.srv.log.Debug("message refused", "code", jsonrpc.InvalidRequest, "bytes", long.n)
			ss.w.fail(idFromPrefix(long.prefix), &rpcError{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf(
				"invalid request: message of %d bytes or more is over the limit of %d bytes (one JSON-RPC message per line; `ctxd mcp --max-body-bytes` raises it): not read", long.n, lr.max)})
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("read message: %w", err)
		default:
			if len(bytes.TrimSpace(line)) > 0 {
				ss.handle(ctx, line)
			}
		}
		if ss.w.failed() {
			return nil // the client stopped reading: nothing more can be answered
		}
	}
}

// handle answers one message: requests get a response (tools/call on a
// goroutine of its own), notifications none, responses are ignored (the
// server sends no requests).
func (ss *session) handle(ctx context.Context, line []byte) {
	m, e := decodeMessage(line)
	if e != nil {
		var id raw
		if m != nil && !m.ID.IsNull() {
			id = m.ID
		}
		ss.srv.log.Debug("message refused", "code", e.Code, "bytes", len(line))
		ss.w.fail(id, e)
		return
	}
	if m.Method == nil {
		return // a response
	}
	if m.ID.IsNull() {
		ss.notify(m)
		return
	}
	if m.method == "server/discover" {
		// The 2026-07-28 sessionless protocol's probe: not served, so a
		// client falls back to initialize (the SDK's server answered so
		// to a probe without its _meta).
		ss.w.fail(m.ID, &rpcError{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("method not found: %q", m.method)})
		return
	}
	if m.method != "initialize" && m.method != "ping" {
		ss.mu.Lock()
		ok := ss.initialized
		ss.mu.Unlock()
		if !ok {
			ss.w.fail(m.ID, &rpcError{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf("method %q is invalid during session initialization", m.method)})
			return
		}
	}
	if m.method == "tools/call" {
		ss.startCall(ctx, m)
		return
	}
	res, err := ss.request(m)
	if err != nil {
		ss.w.fail(m.ID, err)
		return
	}
	ss.w.reply(m.ID, res)
}

// notify handles a notification: notifications/cancelled cancels its
// call; the rest (notifications/initialized, ...) need nothing.
func (ss *session) notify(m *message) {
	if m.method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID raw `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.RequestID.IsNull() {
		return
	}
	ss.running.Cancel(p.RequestID)
}

// emptyResult is an answer with nothing to say ({}).
type emptyResult struct{}

// paramsObject refuses params that are present and not an object.
func paramsObject(method string, p raw) *rpcError {
	if p.IsNull() || p[0] == '{' {
		return nil
	}
	return &rpcError{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("invalid params: %s's params must be an object, not %s", method, display(p))}
}

// request answers every request but tools/call.
func (ss *session) request(m *message) (any, *rpcError) {
	switch m.method {
	case "initialize":
		return ss.initialize(m.Params)
	case "ping":
		if e := paramsObject(m.method, m.Params); e != nil {
			return nil, e
		}
		return emptyResult{}, nil
	case "tools/list":
		if e := paramsObject(m.method, m.Params); e != nil {
			return nil, e
		}
		var p struct {
			Cursor *string `json:"cursor"`
		}
		if err := json.Unmarshal(orEmpty(m.Params), &p); err != nil {
			return nil, &rpcError{Code: jsonrpc.InvalidParams, Message: "invalid params: " + err.Error()}
		}
		if p.Cursor != nil && *p.Cursor != "" {
			return nil, &rpcError{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("invalid params: cursor %q was not given by this server (tools/list has one page)", *p.Cursor)}
		}
		return struct {
			Tools json.RawMessage `json:"tools"`
		}{ss.srv.toolList}, nil
	case "logging/setLevel":
		// The server sends no log messages (logs go to stderr or
		// --log-file); the level is accepted as the SDK's server did.
		if m.Params.IsNull() {
			return nil, &rpcError{Code: jsonrpc.InvalidRequest, Message: `invalid request: missing required "params"`}
		}
		if e := paramsObject(m.method, m.Params); e != nil {
			return nil, e
		}
		return emptyResult{}, nil
	case "resources/list":
		return struct {
			Resources []struct{} `json:"resources"`
		}{[]struct{}{}}, nil
	case "resources/templates/list":
		return struct {
			ResourceTemplates []struct{} `json:"resourceTemplates"`
		}{[]struct{}{}}, nil
	case "prompts/list":
		return struct {
			Prompts []struct{} `json:"prompts"`
		}{[]struct{}{}}, nil
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(orEmpty(m.Params), &p)
		return nil, &rpcError{Code: jsonrpc.InvalidParams, Message: "Resource not found", Data: map[string]string{"uri": p.URI}}
	}
	return nil, &rpcError{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("method not found: %q", m.method)}
}

func orEmpty(p raw) raw {
	if p.IsNull() {
		return raw("{}")
	}
	return p
}

// implementation names a program in initialize.
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	Instructions    string         `json:"instructions"`
	ServerInfo      implementation `json:"serverInfo"`
}

func (ss *session) initialize(params raw) (any, *rpcError) {
	if params.IsNull() {
		return nil, &rpcError{Code: jsonrpc.InvalidRequest, Message: `invalid request: missing required "params"`}
	}
	if e := paramsObject("initialize", params); e != nil {
		return nil, e
	}
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{Code: jsonrpc.InvalidParams, Message: "invalid params: initialize: " + err.Error()}
	}
	ss.mu.Lock()
	again := ss.initialized
	ss.initialized = true
	ss.mu.Unlock()
	if again {
		return nil, &rpcError{Code: jsonrpc.InvalidRequest, Message: `duplicate "initialize" received`}
	}
	v := protocolVersions[0]
	if slices.Contains(protocolVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	return initializeResult{
		ProtocolVersion: v,
		Capabilities:    map[string]any{"logging": struct{}{}, "tools": map[string]bool{"listChanged": true}},
		Instructions:    instructions,
		ServerInfo:      implementation{Name: "ctxd", Title: "ctxd context daemon", Version: ss.srv.version},
	}, nil
}

// callParams are tools/call's params.
type callParams struct {
	Name      *string `json:"name"`
	Arguments raw     `json:"arguments"`
	Meta      struct {
		ProgressToken raw `json:"progressToken"`
	} `json:"_meta"`
}

// call is one running tools/call.
type call struct {
	ss    *session
	token raw // the client's progress token; nil: no progress wanted
}

// startCall runs a tools/call on a goroutine of its own, cancelled by a
// notifications/cancelled naming its id or by the session's end.
func (ss *session) startCall(ctx context.Context, m *message) {
	if m.Params.IsNull() {
		ss.w.fail(m.ID, &rpcError{Code: jsonrpc.InvalidRequest, Message: `invalid request: missing required "params"`})
		return
	}
	var p callParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		ss.w.fail(m.ID, &rpcError{Code: jsonrpc.InvalidParams, Message: "invalid params: tools/call: " + err.Error()})
		return
	}
	name := ""
	if p.Name != nil {
		name = *p.Name
	}
	run := ss.srv.tools[name]
	if run == nil {
		ss.w.fail(m.ID, &rpcError{Code: jsonrpc.InvalidParams, Message: fmt.Sprintf("unknown tool %q", name)})
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	key, ok := ss.running.Start(m.ID, cancel)
	if !ok {
		cancel()
		ss.w.fail(m.ID, &rpcError{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf("invalid request: id %s is already in use by a running call", m.ID)})
		return
	}
	ss.calls.Add(1)
	go func() {
		defer ss.calls.Done()
		defer func() {
			ss.running.End(key)
			cancel()
		}()
		defer func() {
			if r := recover(); r != nil {
				ss.srv.log.Error("tool call panicked", "tool", name, "panic", r)
				ss.w.fail(m.ID, &rpcError{Code: jsonrpc.InternalError, Message: fmt.Sprintf("internal error in %s: %v (the server is still running; please report this with the log)", name, r)})
			}
		}()
		res := run(cctx, &call{ss: ss, token: p.Meta.ProgressToken}, p.Arguments)
		ss.w.reply(m.ID, res)
	}()
}
