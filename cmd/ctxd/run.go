package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/engine"
)

func init() {
	register(&command{
		name: "run",
		args: "[--lines N] [--session ID] [--redact-secrets] [--state-dir DIR | --root DIR] -- CMD [ARGS...]",
		summary: `Run a command and print its output condensed for an agent: an output of more than
--lines lines is cut to its head, its tail and the critical lines between them (errors,
failing tests, file:line locations, verbatim with their line numbers; terminal noise and
repeats gone), and the whole output is stored behind a reference the output names
(ctxd rehydrate --session ID HASH a-b reads any lines back). Standard output and error
are read together, in order; the exit code is the command's. With --redact-secrets (or
secrets.redact_conversation) secrets in the output are replaced by [REDACTED rule] markers
before it is printed or stored. docs/compaction.md.`,
		run: runRun,
	})
}

// maxRunOutput bounds the output `ctxd run` keeps of a command.
const maxRunOutput = 64 << 20

// exitStatus is an exit code to leave with, nothing printed (ctxd run
// passes its command's on).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func runRun(ctx context.Context, std *IO, args []string) error {
	c := commands["run"]
	fs := newFlagSet(c, std.Err)
	var sf stateFlags
	sf.register(fs)
	lines := fs.Int("lines", smart.RunLines, "print an output of at most N lines whole")
	session := fs.String("session", "run", "the artifact session the whole output is stored under")
	redact := redactFlag(fs)
	// Everything after "--" is the command, its own flags included.
	i := slices.Index(args, "--")
	if i < 0 {
		// No command yet: -h prints the flags; anything else is the
		// usage error below.
		if _, err := parse(fs, args); errors.Is(err, flag.ErrHelp) {
			return err
		}
	}
	if i < 0 || i == len(args)-1 {
		return usagef("want a command after --: ctxd run [flags] -- CMD [ARGS...]")
	}
	flags, pos := args[:i], args[i+1:]
	if rest, err := parse(fs, flags); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unexpected argument %q before --", rest[0])
	}
	if *lines < 1 {
		return usagef("--lines must be positive")
	}
	if err := ctxd.ValidSessionID(*session); err != nil {
		return usagef("--session: %v", err)
	}
	// The request flow (its state directory checked for links, as every
	// door checks it, and its redaction switch) is set up before the
	// command runs: a committed .ctxd link is refused, not found out
	// after the command's work.
	cfg, err := workspaceConfig(sf.root)
	if err != nil {
		return err
	}
	flow, err := sf.requests(nil, nil, cfg)
	if err != nil {
		return err
	}
	var out boundedBuffer
	cmd := exec.CommandContext(ctx, pos[0], pos[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = std.In, &out, &out
	runErr := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code = 1 // killed by a signal
		}
	case runErr != nil:
		fmt.Fprintf(std.Err, "ctxd run: %v\n", runErr)
		return exitStatus(127)
	}
	text := out.b.String()
	if out.cut {
		text += fmt.Sprintf("\n[ctxd run: output cut at %d MiB]\n", maxRunOutput>>20)
	}
	// The output goes to an agent's conversation: redacted as the other
	// doors redact one (--redact-secrets, secrets.redact_conversation)
	// before it is printed or stored.
	text, reds, err := flow.RedactText(*redact, "command output", text)
	if err != nil {
		return err
	}
	printRedactions(std, reds)
	if err := printCondensed(ctx, std, flow, *session, text, *lines); err != nil {
		return err
	}
	if code != 0 {
		return exitStatus(code)
	}
	return nil
}

// printCondensed prints a command's output whole when it is short, else
// stores it in flow's artifact store and prints its condensed view with
// the reference.
func printCondensed(ctx context.Context, std *IO, flow *engine.Requests, session, text string, maxLines int) error {
	if strings.Count(strings.TrimSuffix(text, "\n"), "\n")+1 <= maxLines {
		_, err := fmt.Fprint(std.Out, text)
		return err
	}
	store := flow.Store()
	ref, _, err := store.Put(ctx, session, []byte(text))
	if err != nil {
		return err
	}
	if err := store.Flush(); err != nil {
		return err
	}
	rt := request.Retrieval{Command: true, StateDir: flow.StateDir(), Session: session}
	if rt.Check() != nil {
		rt.StateDir = ""
	}
	view, ok := smart.CondenseOutput(text, ref.Hash, maxLines, rt)
	if !ok {
		view = text
	}
	if !strings.HasSuffix(view, "\n") {
		view += "\n"
	}
	_, err = fmt.Fprint(std.Out, view)
	return err
}

// boundedBuffer keeps the first maxRunOutput bytes written to it.
type boundedBuffer struct {
	b   bytes.Buffer
	cut bool
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := maxRunOutput - w.b.Len(); room < len(p) {
		w.cut = true
		w.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return w.b.Write(p)
}
