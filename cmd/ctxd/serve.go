package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/cmem"
	"github.com/ctxd/ctxd/server"
	"github.com/ctxd/ctxd/tokens"
)

func init() {
	register(&command{
		name: "serve",
		args: "[--stdio | --listen unix:PATH | --listen tcp:127.0.0.1:PORT] [flags]",
		summary: `Run the daemon: JSON-RPC 2.0 with LSP (Content-Length) framing.
By default over stdin/stdout, for one editor; --listen serves several clients.
Stdout carries only protocol; logs go to stderr or --log-file.`,
		run: runServe,
	})
}

// serveMemoryLimit is the daemon's default soft memory limit. The Go
// heap of a daemon on stdlib-100k reaches it (its live heap, ~200 MB
// with a request's, times GOGC's 2, is over it), so the resident size
// is about the limit plus the mapped binary (~28-30 MB) and the C heap
// (tree-sitter's trees, trimmed every second: ~2-20 MB): issue 14 asks
// for at most 400 MB there. At 384 MiB it reached 405-415 MB, at 352
// MiB 381-405 MB from scratch; at 320 MiB, with the live heap made
// smaller (gather's per-file structures, the parses that time out no
// longer repeated), 362 MB (BENCHMARKS.md "h16mem").
const serveMemoryLimit = 320 << 20

func runServe(ctx context.Context, stdio *IO, args []string) error {
	c := commands["serve"]
	fs := newFlagSet(c, stdio.Err)
	var (
		listen, root, model, logLevel, logFile, stateDir string
		trace, useStdio                                  bool
	)
	fs.BoolVar(&useStdio, "stdio", false, "serve on stdin/stdout (the default; accepted for LSP clients that pass it)")
	fs.StringVar(&listen, "listen", "", "serve on unix:PATH or tcp:127.0.0.1:PORT instead of stdio")
	fs.StringVar(&root, "root", "", "workspace used when initialize names none (default: the current repository)")
	fs.StringVar(&model, "model", "", "default model (overrides the configuration files)")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&logFile, "log-file", "", "write logs to this file instead of stderr")
	fs.StringVar(&stateDir, "state-dir", "", "state directory of every workspace served: sessions, artifacts (default $CTXD_STATE_DIR, else <root>/.ctxd)")
	fs.BoolVar(&trace, "rpc.trace", false, "log every JSON-RPC frame to the log output (includes source text: for debugging only)")
	var allow multiFlag
	maxBody := fs.Int("max-body-bytes", server.DefaultMaxBodyBytes, "largest message body accepted")
	maxConns := fs.Int("max-conns", server.DefaultMaxConns, "most concurrent connections with --listen")
	idle := fs.Duration("idle-timeout", server.DefaultIdleTimeout, "close a --listen connection idle this long")
	fs.Var(&allow, "allow-root", "with --listen tcp:, another workspace clients may initialize (repeatable; --root or the current repository always is)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if useStdio && listen != "" {
		return usagef("--stdio and --listen are exclusive")
	}
	if listen != "" {
		// A mistyped address is how ctxd was called (exit 2), as the
		// proxy's --listen is; it exited 1.
		if _, _, err := server.ParseListen(listen); err != nil {
			return usagef("--listen %s", ctxd.Message(err))
		}
	}
	if root != "" {
		// A --root that is no directory failed only at initialize, after
		// an editor had started the daemon; ctxd mcp and ctxd prompt
		// refuse it at once (exit 1), so does serve.
		if _, err := engine.ResolveRoot(root); err != nil {
			return err
		}
	}
	stateDir, err := stateDirFlag(stateDir)
	if err != nil {
		return err
	}
	var logOut io.Writer = stdio.Err
	// A configuration that does not load fails initialize, which names
	// it to the client (the root it initializes may be another).
	_, _ = configuredLog(fs, root, &logLevel, &logFile)
	log, closeLog, err := newLogger(logOut, logLevel, logFile)
	if err != nil {
		return err
	}
	defer closeLog()
	if os.Getenv("GOMEMLIMIT") == "" {
		// The background analysis (engine/background.go) allocates through
		// every file of the tree; with GOGC's default the heap then peaks
		// near twice what is live. A soft limit makes the collector work
		// harder near it instead (RSS at 100k files, BENCHMARKS.md
		// "h14bg"); GOMEMLIMIT overrides it.
		debug.SetMemoryLimit(serveMemoryLimit)
	}
	// The C heap (tree-sitter's trees) keeps freed pages otherwise.
	trimCtx, stopTrim := context.WithCancel(ctx)
	defer stopTrim()
	go cmem.TrimWhileBusy(trimCtx, time.Second)
	opts := server.Options{Root: root, Logger: log, Version: Version(), StateDir: stateDir, MaxBodyBytes: *maxBody, MaxConns: *maxConns, IdleTimeout: *idle}
	if strings.HasPrefix(listen, "tcp:") {
		// A TCP peer may be any local user: it serves only the workspaces
		// named at start, and needs the token (docs/security.md).
		for _, r := range append([]string{root}, allow...) {
			abs, err := engine.ResolveRoot(r)
			if err != nil {
				return fmt.Errorf("--root/--allow-root %q: %w", r, err)
			}
			opts.AllowedRoots = append(opts.AllowedRoots, abs)
		}
		opts.TokenDir = stateDir
		if opts.TokenDir == "" {
			opts.TokenDir = os.Getenv("CTXD_STATE_DIR")
		}
	}
	if model != "" {
		opts.Overrides = config.Overrides{Model: &model}
	}
	if trace {
		if logFile != "" {
			f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				return fmt.Errorf("open log file: %w", err)
			}
			defer f.Close()
			opts.Trace = f
		} else {
			opts.Trace = stdio.Err
		}
	}
	srv := server.New(opts)
	defer srv.Close()
	if listen != "" {
		return srv.Listen(ctx, listen)
	}
	log.Info("serving on stdio", "version", Version(), "tokenizer", tokens.Backend())
	code := srv.ServeConn(ctx, stdioConn{stdio.In, stdio.Out})
	if ctx.Err() != nil {
		log.Info("stopped by signal")
		return nil
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// stdioConn joins stdin and stdout into one connection.
type stdioConn struct {
	io.Reader
	io.Writer
}

func (stdioConn) Close() error { return nil }

// exitCode is an error that carries a process exit code without a message
// (LSP's exit without shutdown exits 1).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit without shutdown (code %d)", int(e)) }
