package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/internal/heapgoal"
	"github.com/ctxd/ctxd/proxy"
)

func init() {
	register(&command{
		name: "proxy",
		args: "--upstream URL [--listen 127.0.0.1:PORT] [--mode optimize|shadow|exact] [--canary-percent N] [flags]",
		summary: `Run a model proxy for agents: POST /v1/chat/completions, /v1/responses and /v1/messages
get Smart Context applied to their body before they are forwarded to --upstream; every
other request, all headers and every response (streams included, as they arrive) pass
through unchanged. Point OPENAI_BASE_URL (http://HOST:PORT/v1) or ANTHROPIC_BASE_URL
(http://HOST:PORT) at it. Artifacts of references live in the state directory, per
session (X-Ctxd-Session, else derived from the conversation); GET
/ctxd/artifacts/SESSION/HASH?lines=a-b reads one back. One log record per request
(info level) with the Smart Context telemetry, never bodies or headers. docs/proxy.md.`,
		run: runProxy,
	})
}

// The proxy's heap goal while bodies are in flight: the collector runs
// when the heap has grown proxyHeapPercent over what it found live (or
// proxyHeapSlack over the idle process, when that is more), under a
// limit of the idle process plus proxyHeapPerByte bytes per body byte in
// flight, or plus proxyHeapSlack when that is more (issue 28's bound is
// 4x the body plus a constant; internal/heapgoal).
const (
	proxyHeapPercent = 10
	proxyHeapPerByte = 4
	proxyHeapSlack   = 4 << 20
)

func runProxy(ctx context.Context, std *IO, args []string) error {
	c := commands["proxy"]
	fs := newFlagSet(c, std.Err)
	var listen, upstream, mode, logLevel, logFile, hints string
	var sf stateFlags
	var canary int
	var maxBody int64
	var allowRemote bool
	var call smart.Call
	fs.StringVar(&listen, "listen", "127.0.0.1:8787", "address to listen on (loopback unless --allow-remote)")
	fs.StringVar(&upstream, "upstream", "", "the provider's base URL, e.g. https://api.openai.com or https://api.anthropic.com (required)")
	fs.StringVar(&mode, "mode", "optimize", "optimize (rewrite), shadow (decide and log, forward the original) or exact (pass through)")
	fs.IntVar(&canary, "canary-percent", -1, "rewrite only a deterministic N% of sessions; the rest pass through byte for byte (default: all)")
	fs.BoolVar(&allowRemote, "allow-remote", false, "allow --listen on a non-loopback address (the proxy has no authentication of its own)")
	sf.register(fs)
	redact := redactFlag(fs)
	fs.IntVar(&call.ContextWindow, "context-window", 0, "context window of every model (default: the registry's, per request model)")
	fs.IntVar(&call.Budget, "budget", 0, "token budget of every request (default: window - output reserve)")
	fs.IntVar(&call.MaskHorizon, "mask-horizon", proxy.DefaultMaskHorizon, "mask tool outputs beyond about the latest N before any pressure (head, critical lines, tail and a reference); negative: never")
	fs.IntVar(&call.MaskStep, "mask-step", proxy.DefaultMaskStep, "take masking steps at most every N outputs, so turns between steps only append (prompt caches hold; with --mask-paced, only where its rewrite pays); negative: every turn")
	fs.BoolVar(&call.MaskPaced, "mask-paced", true, "each masking step masks the due outputs from its cheapest cut on (a small old output waits until rewriting after it pays); false: every due output")
	fs.IntVar(&call.MaskBig, "mask-big", proxy.DefaultMaskBig, "mask a tool output over N tokens from --mask-big-horizon outputs old instead of --mask-horizon (a file read only once neither of the latest two calls names its file, or an edit or re-read superseded it); negative: never")
	fs.IntVar(&call.MaskBigHorizon, "mask-big-horizon", proxy.DefaultMaskBigHorizon, "the age, in outputs, from which an output over --mask-big tokens is masked (a file read out of play from 2 at the earliest)")
	fs.IntVar(&call.MaskLong, "mask-long", proxy.DefaultMaskLong, "condense a tool output over N tokens (not a file read) from the turn it appears, even within the masking horizon (ctxd run's view: head, critical lines, tail and a reference); negative: never")
	fs.IntVar(&call.MaxToolOutput, "max-tool-output", 0, "condense older tool outputs to at most N bytes (default: the budget mode's; negative: never)")
	fs.StringVar(&hints, "hints", "all", "how references say to read them back: all (the ctxd rehydrate command and a GET on the proxy), command, get or none (about 110 tokens a reference for all)")
	fs.Int64Var(&maxBody, "max-body-bytes", proxy.DefaultMaxBodyBytes, "largest request body read to rewrite; a larger one is refused with 413 (exact mode streams bodies through whatever their size)")
	fs.StringVar(&logLevel, "log-level", "info", "log level: info (one short line per request), debug (the full record too), warn, error")
	fs.StringVar(&logFile, "log-file", "", "write logs to this file instead of stderr, as JSON with the full record of every request")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if upstream == "" {
		return usagef("--upstream is required")
	}
	up, err := url.Parse(upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return usagef("--upstream %q: want an http or https URL", upstream)
	}
	m, err := smart.ParseMode(mode)
	if err != nil {
		return usagef("--mode: %v", err)
	}
	h, err := proxy.ParseHints(hints)
	if err != nil {
		return usagef("--hints: %v", err)
	}
	if canary < -1 || canary > 100 {
		return usagef("--canary-percent %d: want 0 to 100", canary)
	}
	if maxBody <= 0 {
		return usagef("--max-body-bytes %d: want a positive number of bytes", maxBody)
	}
	if call.ContextWindow < 0 || call.Budget < 0 {
		return usagef("--context-window and --budget must not be negative")
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return usagef("--listen %q: want HOST:PORT", listen)
	}
	if ip := net.ParseIP(host); !allowRemote && (ip == nil && host != "localhost" || ip != nil && !ip.IsLoopback()) {
		return usagef("--listen %q is not a loopback address; the proxy forwards credentials, so pass --allow-remote to mean it", listen)
	}
	cfg, err := configuredLog(fs, sf.root, &logLevel, &logFile)
	if err != nil {
		return err
	}
	// A log file is for machines: JSON, the full record per request.
	log, closeLog, err := openLogger(std.Err, logLevel, logFile, true)
	if err != nil {
		return err
	}
	defer closeLog()
	dir, err := sf.dir(nil)
	if err != nil {
		return err
	}
	o := requestsOptions(cfg)
	o.StateDir, o.Logger = dir, log
	o.RedactConversation = o.RedactConversation || *redact
	flow, err := proxy.NewFlowWith(o, canary)
	if err != nil {
		return err
	}
	var goal *heapgoal.Goal
	if os.Getenv("GOMEMLIMIT") == "" {
		// A request's work runs under a limit of the idle process plus
		// a few times the bodies in flight, not the collector's default
		// headroom over the tokenizer tables (BENCHMARKS.md, "h28model");
		// GOMEMLIMIT overrides it.
		goal = heapgoal.New(proxyHeapPercent, proxyHeapPerByte, proxyHeapSlack)
	}
	p, err := proxy.New(proxy.Options{Upstream: up, Mode: m, Flow: flow, Call: call, Hints: h, Logger: log, FullRecords: logFile != "", MaxBodyBytes: maxBody, HeapGoal: goal})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	p.SetPublicURL("http://" + ln.Addr().String())
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	// The first line on stdout is the address, for scripts and tests.
	fmt.Fprintf(std.Out, "ctxd proxy listening on http://%s (upstream %s, mode %s, state %s)\n", ln.Addr(), up.Redacted(), m, dir)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
