package main

import (
	"context"
	"errors"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/mcp"
)

func init() {
	register(&command{
		name: "mcp",
		args: "[--root DIR] [flags]",
		summary: `Serve the Model Context Protocol over stdio for an agent (Claude Code, Cursor, ...):
tools build_context, find_symbol, outline, count_tokens, compact_history and rehydrate
on the workspace at --root (default: the git top-level of the current directory).
Stdout carries the protocol; logs go to stderr or --log-file. docs/mcp.md has a client
configuration.`,
		run: runMCP,
	})
}

func runMCP(ctx context.Context, std *IO, args []string) error {
	c := commands["mcp"]
	fs := newFlagSet(c, std.Err)
	var root, stateDir, logLevel, logFile string
	fs.StringVar(&root, "root", "", "workspace root (default: the git top-level of the current directory)")
	fs.StringVar(&stateDir, "state-dir", "", "state directory for artifacts (default $"+engine.EnvStateDir+", else <root>/.ctxd)")
	fs.StringVar(&logLevel, "log-level", "warn", "log level on stderr: debug (one record per tool call), info, warn, error")
	fs.StringVar(&logFile, "log-file", "", "write logs to this file instead of stderr")
	maxBody := fs.Int("max-body-bytes", mcp.DefaultMaxMessageBytes, "largest message (one line) read; a longer one is refused with an error and the session goes on")
	allowSecrets := fs.Bool("allow-secret-files", false, "let build_context gather secret files (.env, keys, ...) the agent names in open_files or patterns (default: skipped with a warning)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("unexpected arguments %q", pos)
	}
	if *maxBody <= 0 {
		return usagef("--max-body-bytes %d: want a positive number of bytes", *maxBody)
	}
	dir, err := engine.ResolveRoot(root)
	if err != nil {
		return err
	}
	cfg, log, closeLog, err := configAndLog(std.Err, fs, dir, &logLevel, &logFile)
	if err != nil {
		return err
	}
	defer closeLog()
	// A long-running server follows the tree like the daemon does.
	eng, err := engine.New(dir, engine.Options{Config: cfg, Logger: log, StateDir: stateDir, Watch: true})
	if err != nil {
		return err
	}
	defer eng.Close()
	srv := mcp.New(eng, mcp.Options{Version: Version(), Logger: log, AllowSecretFiles: *allowSecrets, MaxMessageBytes: *maxBody})
	err = srv.Run(ctx, std.In, std.Out)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
