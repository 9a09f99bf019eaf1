package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/compact/smart/replay"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/sessions"
)

func init() {
	register(&command{
		name: "optimize",
		args: "[flags] [FILE]  (FILE or '-' for standard input, the default)",
		summary: `Rewrite a model request (OpenAI Chat, Anthropic Messages or OpenAI Responses; detected)
under the Smart Context safety envelope: protocol and continuation data stay byte-exact,
older tool outputs are condensed behind hash-backed references, duplicates and terminal
noise are folded. The request to send goes to stdout (the original bytes in exact and
shadow mode, for a canary-out session, or when nothing is saved); the report is
written as JSON to --report FILE (--report - for stderr). Artifacts go to <state-dir>/artifacts/, scoped by
--session. $CTXD_SMART_CONTEXT_SHADOW and $CTXD_SMART_CONTEXT_CANARY_PERCENT control
the rollout.`,
		run: runOptimize,
	})
	register(&command{
		name: "rehydrate",
		args: "--session ID [flags] HASH [LINES]  (LINES: a-b, a- or a; default all)",
		summary: `Print what a ctxd reference (from ctxd compress or ctxd optimize) stands for: lines of
the artifact HASH (a sha256 or a prefix of at least 12 hex digits) of session ID,
verified against its hash, exactly as stored. --json prints {sha256, start_line,
end_line, total_lines, bytes, text}.`,
		run: runRehydrate,
	})
	register(&command{
		name: "replay-report",
		args: "[--strict] [--json] CORPUS  (a session file or a directory of them)",
		summary: `Replay a Smart Context corpus (scripted agent sessions, each turn a full request) three
ways: exact, current (the conversation pruner) and optimized, and print the result
block: token reductions, success rates by the replay's proxy, control-plane and tool-call
integrity, critical-signal recall, unresolved references, JSON validity, rewrite
overhead, coverage of the hard cases. --strict exits 1 when a gate fails (integrity,
recall, references, JSON, coverage, a success regression). The checked-in corpus is
compact/smart/replay/testdata/corpus; docs/smart-context.md defines every metric.`,
		run: runReplayReport,
	})
}

func runReplayReport(ctx context.Context, std *IO, args []string) error {
	c := commands["replay-report"]
	fs := newFlagSet(c, std.Err)
	var strict, asJSON bool
	fs.BoolVar(&strict, "strict", false, "exit 1 when a strict gate fails")
	fs.BoolVar(&asJSON, "json", false, "print the whole report as JSON")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one CORPUS path")
	}
	corpus, err := replay.Load(pos[0])
	if err != nil {
		return err
	}
	rep, err := replay.Run(ctx, corpus, replay.Options{})
	if err != nil {
		return err
	}
	if asJSON {
		if err := printJSON(std.Out, rep); err != nil {
			return err
		}
	} else if err := rep.Print(std.Out); err != nil {
		return err
	}
	if strict && !rep.Metrics.Passed {
		return fmt.Errorf("strict gates failed: %s", strings.Join(rep.Failures, "; "))
	}
	return nil
}

// stateFlags locate the state directory.
type stateFlags struct{ root, stateDir string }

// fellBack reports that engine.ResolveRoot, given no --root, fell back
// to the current directory because no git top-level (a directory with a
// .git entry) holds it.
func fellBack(given, root string) bool {
	if given != "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(root, ".git"))
	return err != nil
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.root, "root", "", "workspace root (default: the git top-level of the current directory)")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory (default $"+engine.EnvStateDir+", else <root>/.ctxd)")
}

// dir is the absolute state directory the flags name (the one resolver
// of the request flow's front ends: compress, optimize, rehydrate,
// proxy): --state-dir (relative to the current directory), else
// $CTXD_STATE_DIR (relative to the workspace root), else <root>/.ctxd.
// warn, when not nil, is told when the workspace falls back to the
// current directory.
func (f *stateFlags) dir(warn io.Writer) (string, error) {
	dir, err := stateDirFlag(f.stateDir)
	if err != nil {
		return "", err
	}
	if dir == "" {
		dir = os.Getenv(engine.EnvStateDir)
	}
	if f.root != "" || !filepath.IsAbs(dir) {
		root, err := engine.ResolveRoot(f.root)
		if err != nil {
			return "", err
		}
		dir = sessions.StateDir(root, dir)
		if warn != nil && fellBack(f.root, root) {
			fmt.Fprintf(warn, "ctxd: not in a git repository: references are stored under %s (pass --root DIR or --state-dir DIR to choose)\n", dir)
		}
	}
	return dir, nil
}

// requests returns the request flow (engine.Requests) of the state
// directory the flags name: --state-dir, else $CTXD_STATE_DIR, else
// <root>/.ctxd. An absolute state directory needs no workspace (agents
// running outside one); a relative one is relative to the workspace root.
//
// warn, when not nil, is told when the state directory falls back to the
// current directory's because no git repository holds it (as prompt says
// of its workspace): compress and optimize store references there. cfg
// (nil: none) gives the flow its window and redaction settings.
func (f *stateFlags) requests(log *slog.Logger, warn io.Writer, cfg *config.Config) (*engine.Requests, error) {
	dir, err := f.dir(warn)
	if err != nil {
		return nil, err
	}
	o := requestsOptions(cfg)
	o.StateDir, o.Logger = dir, log
	return engine.NewRequests(o)
}

// requestsOptions are the request flow's settings from a configuration
// (nil: none): its window and its secrets.redact_conversation, as the
// engine's own flow takes them.
func requestsOptions(cfg *config.Config) engine.RequestsOptions {
	if cfg == nil {
		return engine.RequestsOptions{}
	}
	return engine.RequestsOptions{ContextWindow: cfg.ContextWindow, RedactConversation: cfg.Secrets.RedactConversation}
}

func runOptimize(ctx context.Context, std *IO, args []string) error {
	c := commands["optimize"]
	fs := newFlagSet(c, std.Err)
	var req engine.OptimizeRequest
	call := &req.Call
	var rf rewriteFlags
	var exactItems string
	windowFlags(fs, &call.Model, &call.ContextWindow, &call.OutputReserve, &call.Budget)
	fs.IntVar(&call.WindowSize, "window-size", 0, "keep the last N tool outputs whole (default: the budget mode's)")
	fs.IntVar(&call.MaxToolOutput, "max-tool-output", 0, "condense older tool outputs to at most N bytes (default: the budget mode's; negative: never)")
	fs.IntVar(&call.ObservedContextWindow, "observed-context-window", 0, "a window observed at run time, used when the model is not in the registry")
	fs.IntVar(&call.ObservedInputTokens, "observed-input-tokens", 0, "the provider's input tokens for the session's previous request")
	fs.Float64Var(&call.EstimateRatio, "estimate-ratio", 0, "the provider's reported input tokens over ctxd's estimates for this model (0.25-4; 0: none): calibrates the pressure")
	fs.StringVar(&req.Format, "format", "", "request format: chat, anthropic, responses (default: detected)")
	fs.StringVar(&call.Session, "session", "", "session id: the artifact scope and the canary bucket (default: derived from the conversation)")
	fs.StringVar(&req.Mode, "mode", "optimize", "exact (pass through), shadow (decide, return the original) or optimize")
	fs.StringVar(&exactItems, "exact-items", "", "comma-separated indexes of items never to rewrite")
	rf.register(fs, "debug, info (the per-request telemetry record), warn, error")
	pos, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	if call.ContextWindow < 0 || call.OutputReserve < 0 || call.Budget < 0 || call.WindowSize < 0 || call.ObservedContextWindow < 0 || call.ObservedInputTokens < 0 {
		return usagef("--context-window, --output-reserve, --budget, --window-size and the observed counts must not be negative")
	}
	if _, err = request.ParseFormat(req.Format); err != nil {
		return usagef("%v", err)
	}
	if _, err = smart.ParseMode(req.Mode); err != nil {
		return usagef("%v", err)
	}
	if call.Session != "" {
		if err := ctxd.ValidSessionID(call.Session); err != nil {
			return usagef("--session: %v", err)
		}
	}
	for _, s := range strings.FieldsFunc(exactItems, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return usagef("--exact-items: %q is not an item index", s)
		}
		call.ExactItems = append(call.ExactItems, n)
	}
	cfg, log, closeLog, err := rf.logger(fs, std)
	if err != nil {
		return err
	}
	defer closeLog()
	var flow *engine.Requests
	if req.Mode == string(smart.ModeExact) {
		o := requestsOptions(cfg)
		o.Logger = log
		flow, err = engine.NewRequests(o)
	} else {
		flow, err = rf.state.requests(log, std.Err, cfg)
	}
	if err != nil {
		return err
	}
	if req.Request, err = readBody(std, pos); err != nil {
		return err
	}
	req.RedactSecrets = *rf.redact
	res, err := flow.Optimize(ctx, req)
	if err != nil {
		return err
	}
	printRedactions(std, res.Redactions)
	if res.Report != nil {
		printWarnings(std, res.Report.Warnings)
	}
	return writeRequest(std, res.Request, res.Report, rf.report)
}

func runRehydrate(ctx context.Context, std *IO, args []string) error {
	c := commands["rehydrate"]
	fs := newFlagSet(c, std.Err)
	var sf stateFlags
	var session string
	var asJSON bool
	fs.StringVar(&session, "session", "", "session id whose artifact to read (required)")
	fs.BoolVar(&asJSON, "json", false, "print JSON with the range and sizes")
	sf.register(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("want HASH and optionally LINES")
	}
	if session == "" {
		return usagef("--session is required")
	}
	start, end := 0, 0
	if len(pos) == 2 {
		if start, end, err = artifacts.ParseLines(pos[1]); err != nil {
			return usagef("%s", ctxd.Message(err))
		}
	}
	dir, err := sf.dir(nil)
	if err != nil {
		return err
	}
	o := requestsOptions(nil)
	o.StateDir = dir
	flow, err := engine.NewRequests(o)
	if err != nil {
		return err
	}
	l, err := flow.Rehydrate(ctx, engine.RehydrateRequest{SessionID: session, Hash: pos[0], StartLine: start, EndLine: end})
	if errors.Is(err, ctxd.ErrNotFound) {
		// Say where it looked: references live in the state directory
		// of the run that wrote them, which may not be this one's.
		return fmt.Errorf("%w (looked in the state directory %s; pass the --state-dir the compress, optimize or proxy run used)", err, dir)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(std.Out, l)
	}
	_, err = io.WriteString(std.Out, l.Text)
	return err
}
