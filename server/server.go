// Package server is ctxd's JSON-RPC 2.0 front end: LSP base-protocol
// framing over stdio, a unix socket or loopback TCP; the method table;
// parameter decoding and validation; the mapping from errors to codes; and
// cancellation. It holds no pipeline logic: every method calls the engine,
// the same functions the CLI calls.
//
// On each connection (conn.go): cancel-by-id ($/cancelRequest is answered
// on the read loop, ahead of the queue), then ordered async (long methods
// release the read loop after they start, so requests start in wire
// order), then must-reply (every call gets exactly one response; a panic
// becomes -32603 and the connection stays up).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// Options configure a Server.
type Options struct {
	// Root is the workspace used when initialize names none (usually the
	// directory ctxd serve started in).
	Root string
	// Overrides are configuration values from the command line; they win
	// over files and initialize params.
	Overrides config.Overrides
	Logger    *slog.Logger
	// Trace, when set, receives every frame read and written.
	Trace io.Writer

	// MaxBodyBytes bounds one message body (0: DefaultMaxBodyBytes).
	MaxBodyBytes int
	// MaxConns caps concurrent connections of Listen (0: DefaultMaxConns);
	// a connection over the cap is closed at once.
	MaxConns int
	// IdleTimeout closes a Listen connection that sent nothing for this
	// long while no request of it runs (0: DefaultIdleTimeout; < 0: never).
	IdleTimeout time.Duration
	// AllowedRoots, when set, are the only workspaces (and their
	// subdirectories) a Listen connection may initialize; TCP serving sets
	// them to the roots given at start.
	AllowedRoots []string
	// TokenDir is where Listen on TCP writes the token file (0600) a TCP
	// client must present in initialize ("token"). Empty: the user's cache
	// directory, ctxd/.
	TokenDir string
	Version  string
	// StateDir is every workspace's state directory (sessions,
	// artifacts); "" uses the engine's default (see engine.Options).
	StateDir string
}

// Server serves ctxd's JSON-RPC methods on any number of connections,
// sharing one engine per workspace root between them.
type Server struct {
	opts Options
	log  *slog.Logger

	enginesMu sync.Mutex
	engines   map[string]*engine.Engine
}

// New returns a Server.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Server{opts: opts, log: log, engines: map[string]*engine.Engine{}}
}

// engine returns the engine for root, creating it on first use.
func (s *Server) engine(root string, initOverrides config.Overrides) (*engine.Engine, error) {
	s.enginesMu.Lock()
	defer s.enginesMu.Unlock()
	if e, ok := s.engines[root]; ok {
		return e, nil
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	if err := cfg.Apply(initOverrides, config.SourceInitialize); err != nil {
		return nil, err
	}
	if err := cfg.Apply(s.opts.Overrides, config.SourceFlag); err != nil {
		return nil, err
	}
	e, err := engine.New(root, engine.Options{Config: cfg, Logger: s.log.With("root", root), StateDir: s.opts.StateDir, Watch: true})
	if err != nil {
		return nil, err
	}
	s.engines[root] = e
	return e, nil
}

// Close releases every workspace's engine. Call it when no connection is
// being served any more.
func (s *Server) Close() error {
	s.enginesMu.Lock()
	defer s.enginesMu.Unlock()
	var errs []error
	for root, e := range s.engines {
		errs = append(errs, e.Close())
		delete(s.engines, root)
	}
	return errors.Join(errs...)
}

// ServeConn serves one connection until the peer sends exit, closes the
// stream, or ctx ends. It returns the LSP exit code: 0 when exit followed
// shutdown, 1 otherwise.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) int {
	return s.serveConn(ctx, rwc, connPolicy{})
}

// connPolicy is what a listened-on connection must satisfy.
type connPolicy struct {
	token        string   // initialize must carry it; "" for none
	allowedRoots []string // initialize's root must be inside one; nil for any
	idle         time.Duration
}

func (s *Server) serveConn(ctx context.Context, rwc io.ReadWriteCloser, pol connPolicy) int {
	cl := &client{srv: s, log: s.log, exit: make(chan int, 1), policy: pol}
	if nc, ok := rwc.(net.Conn); ok && pol.idle > 0 {
		rwc = &idleConn{Conn: nc, timeout: pol.idle, busy: cl.inflight.Busy}
	}
	st := newStream(rwc, s.log)
	st.maxBody = s.maxBody()
	st.trace = s.opts.Trace
	conn := newConn(ctx, st, cl)
	go conn.serve()
	code := 1
	select {
	case code = <-cl.exit:
		// The caller closes the transport (or the process exits); the
		// read loop ends with it.
		return code
	case <-conn.done:
		if err := conn.err; err != nil && !isClosed(err) && !errors.Is(err, context.Canceled) {
			s.log.Warn("connection ended", "error", err)
		}
		if ctx.Err() != nil {
			// The read loop saw the signal first (both cases were ready):
			// the transport is closed as below all the same.
			closeWhenIdle(conn, st)
		}
	case <-ctx.Done():
		// A signal: stop now. The read loop may be blocked on a transport
		// that cannot be interrupted (stdin): the transport is closed once
		// the calls running (their contexts cancelled with ctx) return, or
		// the caller closes it, or the process exits.
		closeWhenIdle(conn, st)
	}
	return code
}

// closeWhenIdle closes the transport once no call of conn runs.
func closeWhenIdle(conn *conn, st *stream) {
	go func() {
		<-conn.running.idle()
		st.Close()
	}()
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}

// ParseListen checks a --listen spec, "unix:PATH" or "tcp:HOST:PORT" with
// a loopback host, and splits it; a bad one is an error wrapping
// [ctxd.ErrInvalidParams] that starts with the spec quoted (`ctxd serve`
// checks it before starting, as a usage error).
func ParseListen(spec string) (network, addr string, err error) {
	network, addr, ok := strings.Cut(spec, ":")
	if !ok || (network != "unix" && network != "tcp") || addr == "" {
		return "", "", fmt.Errorf("%q: want unix:PATH or tcp:127.0.0.1:PORT: %w", spec, ctxd.ErrInvalidParams)
	}
	if network == "tcp" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return "", "", fmt.Errorf("%q: %w: %w", spec, err, ctxd.ErrInvalidParams)
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return "", "", fmt.Errorf("%q: only loopback addresses are allowed (ctxd has no authentication): %w", spec, ctxd.ErrInvalidParams)
		}
	}
	return network, addr, nil
}

// Listen serves connections on spec, "unix:PATH" or "tcp:HOST:PORT" (the
// host must be loopback: ctxd serves source code and has no
// authentication), until ctx ends.
func (s *Server) Listen(ctx context.Context, spec string) error {
	network, addr, err := ParseListen(spec)
	if err != nil {
		return fmt.Errorf("listen %w", err)
	}
	if network == "unix" {
		// A stale socket from a crashed daemon blocks the bind; remove it
		// only if nothing answers on it.
		if c, err := net.Dial("unix", addr); err == nil {
			c.Close()
			return fmt.Errorf("listen %q: a daemon is already serving there", spec)
		}
		_ = os.Remove(addr)
	}
	ln, err := listenPrivate(network, addr)
	if err != nil {
		return fmt.Errorf("listen %q: %w", spec, err)
	}
	if network == "unix" {
		defer os.Remove(addr)
	}
	pol := connPolicy{idle: s.opts.IdleTimeout, allowedRoots: s.opts.AllowedRoots}
	if pol.idle == 0 {
		pol.idle = DefaultIdleTimeout
	}
	if network == "tcp" {
		tok, file, err := s.writeToken(ln.Addr())
		if err != nil {
			ln.Close()
			return fmt.Errorf("listen %q: %w", spec, err)
		}
		defer os.Remove(file)
		pol.token = tok
		s.log.Info("TCP clients must send the token of this file in initialize", "token_file", file)
	}
	s.log.Info("listening", "address", spec, "actual", ln.Addr().String())
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	maxConns := s.opts.MaxConns
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	slots := make(chan struct{}, maxConns)
	var wg sync.WaitGroup
	defer wg.Wait()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("accept on %q: %w", spec, err)
			}
			// EMFILE, ENFILE, ECONNABORTED and the like are temporary:
			// back off and keep serving (net/http does the same).
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed; retrying", "error", err, "backoff", backoff)
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return nil
			}
			continue
		}
		backoff = 0
		select {
		case slots <- struct{}{}:
		default:
			s.log.Warn("connection refused: too many connections", "max", maxConns)
			nc.Close()
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			s.serveConn(ctx, nc, pol)
			nc.Close()
		})
	}
}

// client is one connection's state.
type client struct {
	srv *Server
	log *slog.Logger

	// state moves from stateNew to stateReady on initialize and to
	// stateShutdown on shutdown; it never goes back.
	state atomic.Int32

	// engMu guards eng and defaults, set by initialize.
	engMu    sync.Mutex
	eng      *engine.Engine
	defaults engine.PromptRequest

	exit chan int

	// inflight are the running calls, for $/cancelRequest.
	inflight jsonrpc.Calls

	policy connPolicy
}

const (
	stateNew int32 = iota
	stateReady
	stateShutdown
)

// engine returns the connection's engine (after initialize).
func (cl *client) engine() *engine.Engine {
	cl.engMu.Lock()
	defer cl.engMu.Unlock()
	return cl.eng
}

// handle dispatches one request or notification. It is the must-reply
// layer: it always returns (never panics), and a notification's result
// and error are dropped (logged). An async method calls release once it
// is registered for cancellation, which lets the read loop go on.
func (cl *client) handle(ctx context.Context, req *rpcRequest, release func()) (result any, err error) {
	name, isCall := req.method, req.isCall()
	defer func() {
		if r := recover(); r != nil {
			cl.log.Error("handler panicked", "method", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			result = nil
			err = jsonrpc.Errorf(jsonrpc.InternalError, "internal error in %s: %v (the daemon is still running; please report this with the log)", name, r)
		}
		if !isCall {
			if err != nil {
				cl.log.Warn("notification failed", "method", name, "error", err)
			}
			result, err = nil, nil
		}
	}()

	m, ok := methods[name]
	if !ok {
		if !isCall {
			return nil, nil // unknown notifications ($/setTrace, ...) are ignored, as LSP says
		}
		return nil, jsonrpc.Errorf(jsonrpc.MethodNotFound, "method %q not found; ctxd serves: %s", name, strings.Join(MethodNames(), ", "))
	}
	switch cl.state.Load() {
	case stateNew:
		if !m.beforeInit {
			return nil, jsonrpc.Errorf(jsonrpc.ServerNotInitialized, "server not initialized: send initialize before %s", name)
		}
	case stateShutdown:
		if name != "exit" {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "server is shutting down: only exit is accepted after shutdown, got %s", name)
		}
	}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if isCall {
		key, ok := cl.inflight.Start(req.id, cancel)
		if !ok {
			return nil, jsonrpc.Errorf(jsonrpc.InvalidRequest, "invalid request: id %s is already in use by a running call", req.id)
		}
		defer cl.inflight.End(key)
	}
	// Registered before the release, so a $/cancelRequest read right after
	// finds it.
	if m.async {
		release()
	}
	// The engine's background analysis waits while any method runs
	// (ctx/status, which a client may poll, excepted).
	if e := cl.engine(); e != nil && name != statusMethod {
		defer e.Busy()()
	}
	res, err := m.handle(hctx, cl, json.RawMessage(req.params))
	if err != nil {
		return nil, rpcError(name, err)
	}
	return res, nil
}

// cancel answers $/cancelRequest by cancelling the named in-flight call's
// context; an unknown or finished id is ignored.
func (cl *client) cancel(params []byte) {
	if id, ok := cancelID(params); ok {
		cl.inflight.Cancel(id)
	}
}

// cancelID decodes the params of $/cancelRequest: the id of the call to
// cancel, a number or a string; ok is false for anything else.
func cancelID(params []byte) (jsonrpc.Raw, bool) {
	var p struct {
		ID jsonrpc.Raw `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.ID) == 0 {
		return nil, false
	}
	var n json.Number
	var s string
	if json.Unmarshal(p.ID, &n) != nil && json.Unmarshal(p.ID, &s) != nil {
		return nil, false
	}
	return p.ID, true
}

// resolveRoot picks the workspace for initialize: the root the editor
// names, else the server's --root, else the git top-level containing the
// daemon's working directory.
func (s *Server) resolveRoot(given string) (string, error) {
	if given == "" {
		given = s.opts.Root
	}
	return engine.ResolveRoot(given)
}
