package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
)

func init() {
	register(&command{
		name: "compress",
		args: "[flags] [FILE]  (FILE or '-' for standard input, the default)",
		summary: `Compact a model request's conversation (OpenAI Chat, Anthropic Messages or OpenAI
Responses; detected) to fit the model's token budget. A request under half its budget is left as it
is (repeated outputs and superseded file reads aside); from half the budget on, older long
tool outputs are condensed even though it fits; one over the budget is condensed, reduced
to references and evicted (with a summary) until it fits (docs/compaction.md); what is removed is stored under <state-dir>/artifacts/, scoped by
--session, behind references ctxd rehydrate resolves. The rewritten request goes to
stdout, byte for byte where nothing changed; the report (tokens before and after, each
message's decision) is written as JSON to --report FILE (--report - for stderr). With --retry-error the
history is pruned for an agent's retry and ends with a lesson-learned note. Exit 1 when
even the protocol-exact minimum (system, tools, latest user turn, open tool pairs)
cannot fit, or the request carries a reference its session cannot resolve.`,
		run: runCompress,
	})
}

// maxRequestBytes bounds a request read from standard input or a file.
const maxRequestBytes = 256 << 20

// windowFlags registers the flags of a model request's window that
// compress and optimize share: the model, its window, the output reserve
// and the budget.
func windowFlags(fs *flag.FlagSet, model *string, window, reserve, budget *int) {
	fs.StringVar(model, "model", "", "model the request is for (default: the request's \"model\", else gpt-4o)")
	fs.IntVar(window, "context-window", 0, "model context window in tokens (overrides the registry)")
	fs.IntVar(reserve, "output-reserve", 0, "tokens kept free for the reply (default: the model's max output, at most 25% of the window)")
	fs.IntVar(budget, "budget", 0, "token budget of the whole request (default: context window - output reserve)")
}

func runCompress(ctx context.Context, std *IO, args []string) error {
	c := commands["compress"]
	fs := newFlagSet(c, std.Err)
	var req engine.CompressRequest
	var rf rewriteFlags
	windowFlags(fs, &req.Model, &req.ContextWindow, &req.OutputReserve, &req.Budget)
	fs.IntVar(&req.WindowSize, "window-size", 0, "keep the last 2*N messages whole (default: the model's preset)")
	fs.IntVar(&req.MaxToolOutput, "max-tool-output", 0, "older tool outputs longer than N characters are condensed (default: the preset; negative: never)")
	fs.StringVar(&req.Format, "format", "", "request format: chat, anthropic, responses (default: detected)")
	fs.StringVar(&req.SessionID, "session", "", "session id: the artifact scope of what is condensed or evicted (ctxd rehydrate --session; default: derived from the conversation)")
	fs.StringVar(&req.Error, "retry-error", "", "prune for a retry after this error (ctx/pruneForRetry)")
	rf.register(fs, "debug, info, warn, error")
	pos, err := rf.parse(fs, args)
	if err != nil {
		return err
	}
	if req.Budget < 0 || req.ContextWindow < 0 || req.OutputReserve < 0 || req.WindowSize < 0 {
		return usagef("--budget, --context-window, --output-reserve and --window-size must not be negative")
	}
	if _, err = request.ParseFormat(req.Format); err != nil {
		return usagef("%v", err)
	}
	if req.SessionID != "" {
		if err := ctxd.ValidSessionID(req.SessionID); err != nil {
			return usagef("--session: %v", err)
		}
	}
	cfg, log, closeLog, err := rf.logger(fs, std)
	if err != nil {
		return err
	}
	defer closeLog()
	flow, err := rf.state.requests(log, std.Err, cfg)
	if err != nil {
		return err
	}
	if req.Request, err = readBody(std, pos); err != nil {
		return err
	}
	req.RedactSecrets = *rf.redact
	var res *engine.CompressResult
	if req.Error != "" {
		res, err = flow.ForRetry(ctx, req)
	} else {
		res, err = flow.Compress(ctx, req)
	}
	if err != nil {
		return err
	}
	printRedactions(std, res.Redactions)
	if res.Report != nil {
		printWarnings(std, res.Report.Warnings)
	}
	return writeRequest(std, res.Request, res.Report, rf.report)
}

// rewriteFlags are the flags ctxd compress and ctxd optimize share beside
// the request's own settings: the report file, the log, the state
// directory and redaction; and their one FILE.
type rewriteFlags struct {
	state                stateFlags
	report, level, logTo string
	redact               *bool
}

// register adds the shared flags to fs; levels lists the log levels.
func (r *rewriteFlags) register(fs *flag.FlagSet, levels string) {
	fs.StringVar(&r.report, "report", "", "write the report (JSON) to FILE; - writes it to stderr (default: no report)")
	fs.StringVar(&r.level, "log-level", "warn", "log level on stderr: "+levels)
	fs.StringVar(&r.logTo, "log-file", "", "write logs to this file instead of stderr")
	r.state.register(fs)
	r.redact = redactFlag(fs)
}

// parse parses args and returns the positional ones: at most one FILE.
func (r *rewriteFlags) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 1 {
		return nil, usagef("want at most one FILE, got %d", len(pos))
	}
	return pos, nil
}

// logger opens the log the flags, or else the configuration, ask for, and
// returns the configuration too.
func (r *rewriteFlags) logger(fs *flag.FlagSet, std *IO) (*config.Config, *slog.Logger, func(), error) {
	cfg, err := configuredLog(fs, "", &r.level, &r.logTo)
	if err != nil {
		return nil, nil, nil, err
	}
	log, closeLog, err := newLogger(std.Err, r.level, r.logTo)
	return cfg, log, closeLog, err
}

// readBody reads the request to rewrite from the file named by the one
// positional argument, or from standard input when there is none or it is
// "-": the input convention of ctxd compress and ctxd optimize.
func readBody(std *IO, pos []string) ([]byte, error) {
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return nil, fmt.Errorf("open request: %w", err)
		}
		defer f.Close()
		return jsonBody(readAll(f))
	}
	if len(pos) == 0 && isTerminal(std.In) {
		// Typed at a prompt with no redirect, the command waited for a
		// request on the terminal and said nothing.
		return nil, usagef("no request: give FILE or pipe one in (< request.json); - reads it from the terminal")
	}
	return jsonBody(readAll(std.In))
}

// jsonBody says where a body that is not JSON at all stops being JSON
// (`ctxd compress main.go` said "request is required and must be a JSON
// object", as of an empty body); an empty body and JSON that is not an
// object are left to the engine's check.
func jsonBody(b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] != '{' && t[0] != '[' {
		if err := request.CheckJSON(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// printWarnings writes a report's warnings (an unknown context window)
// to stderr, one line each, with or without --report: they say what the
// caller should do.
func printWarnings(std *IO, ws []string) {
	for _, w := range ws {
		fmt.Fprintf(std.Err, "ctxd: %s\n", w)
	}
}

// writeRequest writes a rewritten request to stdout and, when asked, its
// report (as indented JSON) to reportFile, or to stderr for "-": the
// output convention of ctxd compress and ctxd optimize. Without
// --report stderr stays quiet (a report is a hundred lines).
func writeRequest(std *IO, body []byte, rep any, reportFile string) error {
	if _, err := std.Out.Write(body); err != nil {
		return fmt.Errorf("write request: %w", err)
	}
	if reportFile == "" {
		return nil
	}
	repJSON, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	repJSON = append(repJSON, '\n')
	if reportFile != "-" {
		if err := os.WriteFile(reportFile, repJSON, 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		return nil
	}
	if _, err := std.Err.Write(repJSON); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// readAll reads a request of at most maxRequestBytes.
func readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxRequestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read request: %w", err)
	}
	if len(b) > maxRequestBytes {
		return nil, fmt.Errorf("request is larger than %d MiB", maxRequestBytes>>20)
	}
	return b, nil
}
