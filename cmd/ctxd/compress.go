package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
)

func init() {
	register(&command{
		name: "compress",
		args: "[flags] [FILE]  (FILE or '-' for standard input, the default)",
		summary: `Compact a model request's conversation (OpenAI Chat, Anthropic Messages or OpenAI
Responses; detected) to fit the model's token budget. The rewritten request goes to
stdout, byte for byte where nothing changed; the report (tokens before and after, each
message's decision) goes to stderr as JSON, or to --report FILE. With --retry-error the
history is pruned for an agent's retry and ends with a lesson-learned note.`,
		run: runCompress,
	})
}

// maxRequestBytes bounds a request read from standard input or a file.
const maxRequestBytes = 256 << 20

func runCompress(ctx context.Context, std *IO, args []string) error {
	c := commands["compress"]
	fs := newFlagSet(c, std.Err)
	var opts prune.Options
	var format, reportFile, retryErr, logLevel, logFile string
	fs.StringVar(&opts.Model, "model", "", "model the request is for (default: the request's \"model\", else gpt-4o)")
	fs.IntVar(&opts.ContextWindow, "context-window", 0, "model context window in tokens (overrides the registry)")
	fs.IntVar(&opts.OutputReserve, "output-reserve", 0, "tokens kept free for the reply (default: the model's max output, at most 25% of the window)")
	fs.IntVar(&opts.Budget, "budget", 0, "token budget of the whole request (default: context window - output reserve)")
	fs.IntVar(&opts.WindowSize, "window-size", 0, "keep the last 2*N messages whole (default: the model's preset)")
	fs.IntVar(&opts.MaxToolOutput, "max-tool-output", 0, "older tool outputs longer than N characters are condensed (default: the preset; negative: never)")
	fs.StringVar(&format, "format", "", "request format: chat, anthropic, responses (default: detected)")
	fs.StringVar(&reportFile, "report", "", "write the report to FILE instead of stderr")
	fs.StringVar(&retryErr, "retry-error", "", "prune for a retry after this error (ctx/pruneForRetry)")
	fs.StringVar(&logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	fs.StringVar(&logFile, "log-file", "", "write logs to this file instead of stderr")
	redact := redactFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one FILE, got %d", len(pos))
	}
	if opts.Budget < 0 || opts.ContextWindow < 0 || opts.OutputReserve < 0 || opts.WindowSize < 0 {
		return usagef("--budget, --context-window, --output-reserve and --window-size must not be negative")
	}
	if opts.Format, err = request.ParseFormat(format); err != nil {
		return usagef("%v", err)
	}
	log, closeLog, err := newLogger(std.Err, logLevel, logFile)
	if err != nil {
		return err
	}
	defer closeLog()
	opts.Logger = log

	body, err := readBody(std, pos)
	if err != nil {
		return err
	}
	if body, err = redactBody(std, *redact, body); err != nil {
		return err
	}
	var out []byte
	var rep *prune.Report
	if retryErr != "" {
		out, rep, err = prune.ForRetry(ctx, body, retryErr, opts)
	} else {
		out, rep, err = prune.Compress(ctx, body, opts)
	}
	if err != nil {
		return err
	}
	return writeRequest(std, out, rep, reportFile)
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
		return readAll(f)
	}
	return readAll(std.In)
}

// writeRequest writes a rewritten request to stdout and its report (as
// indented JSON) to reportFile, or to stderr when no file is given: the
// output convention of ctxd compress and ctxd optimize.
func writeRequest(std *IO, body []byte, rep any, reportFile string) error {
	if _, err := std.Out.Write(body); err != nil {
		return fmt.Errorf("write request: %w", err)
	}
	repJSON, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	repJSON = append(repJSON, '\n')
	if reportFile != "" {
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
