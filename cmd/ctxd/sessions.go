package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/sessions"
)

func init() {
	register(&command{
		name: "sessions",
		args: "list|show|resume|timeline|fork|rm|gc [flags] [args]",
		summary: `Inspect and manage session checkpoints (<root>/.ctxd/sessions, or --state-dir).
  list                    sessions, newest first, with state and context summary
  show ID [--seq N]       a checkpoint (the newest by default)
  resume [ID]             the newest running session (or ID), its sources checked
                          against the workspace (changed, missing) and its context rebuilt
  timeline ID             every checkpoint of a session
  fork ID --error TEXT    a new session from checkpoint N-1 (or --seq), its history
                          pruned for a retry with the lesson-learned note
  rm ID...                delete sessions (files that do not verify are kept)
  gc                      remove old sessions and trim to a size cap (--dry-run lists)`,
		run: runSessions,
	})
}

// sessionFlags are the flags every sessions subcommand takes.
type sessionFlags struct {
	root, stateDir, logLevel string
	asJSON                   bool
	fs                       *flag.FlagSet // for configAndLog
}

func (f *sessionFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.root, "root", "", "workspace root (default: the git top-level of the current directory)")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory (default $"+engine.EnvStateDir+", else <root>/.ctxd)")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
}

// stateDirFlag makes a --state-dir flag absolute against the working
// directory ("" stays "": the engine's default, $CTXD_STATE_DIR or
// <root>/.ctxd). The engine gets it as engine.Options.StateDir.
func stateDirFlag(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--state-dir %s: %w", dir, err)
	}
	return abs, nil
}

// open returns the engine of the workspace the flags name.
func (f *sessionFlags) open(errOut io.Writer) (*engine.Engine, func(), error) {
	stateDir, err := stateDirFlag(f.stateDir)
	if err != nil {
		return nil, nil, err
	}
	root, err := engine.ResolveRoot(f.root)
	if err != nil {
		return nil, nil, err
	}
	return openEngine(errOut, f.fs, root, &f.logLevel, nil, engine.Options{StateDir: stateDir})
}

// sessionsSubcommands are the `ctxd sessions` subcommands by name, one
// function each.
var sessionsSubcommands = map[string]func(ctx context.Context, io *IO, args []string) error{
	"list":     sessionsList,
	"show":     sessionsShow,
	"resume":   sessionsResume,
	"timeline": sessionsTimeline,
	"fork":     sessionsFork,
	"rm":       sessionsRm,
	"gc":       sessionsGC,
}

func runSessions(ctx context.Context, io *IO, args []string) error {
	if len(args) == 0 {
		return usagef("missing subcommand: list, show, resume, timeline, fork, rm or gc")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		c := commands["sessions"]
		fmt.Fprintf(io.Out, "usage: %s\n\n%s\n\nRun 'ctxd sessions SUBCOMMAND -h' for its flags (--state-dir, --json, ...).\n", c.usage(), c.summary)
		return flag.ErrHelp
	}
	run, ok := sessionsSubcommands[args[0]]
	if !ok {
		return usagef("unknown subcommand %q: want list, show, resume, timeline, fork, rm or gc", args[0])
	}
	return notFoundHint(run(ctx, io, args[1:]))
}

// notFoundHint rewrites a missing session's error for a person: the
// store's wording names its operation ("restore: session x: not found"
// answered `show`), this one the session and where to look.
func notFoundHint(err error) error {
	if !errors.Is(err, ctxd.ErrNotFound) {
		return err
	}
	msg := ctxd.Message(err)
	if m := sessionInError.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("no session %q", m[1])
	}
	return fmt.Errorf("%s (ctxd sessions list shows the saved sessions; --state-dir names another state directory)", msg)
}

var sessionInError = regexp.MustCompile(`session ([^\s:]+)`)

// sessionsFlagSet returns the flag set of one subcommand (usage: its
// arguments after the name) with the flags every subcommand takes.
func sessionsFlagSet(io *IO, name, usage string) (*flag.FlagSet, *sessionFlags) {
	fs := flag.NewFlagSet("ctxd sessions "+name, flag.ContinueOnError)
	fs.SetOutput(io.Err)
	fs.Usage = func() {
		fmt.Fprintf(io.Err, "usage: ctxd sessions %s %s\n\nflags:\n", name, usage)
		printFlags(io.Err, fs)
	}
	var f sessionFlags
	f.register(fs)
	return fs, &f
}

// sessionsList: `ctxd sessions list`.
func sessionsList(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "list", "[--state STATE] [--limit N] [flags]")
	state := fs.String("state", "", "only sessions in this state: running, completed, failed, abandoned")
	limit := fs.Int("limit", 0, "at most this many sessions, newest first")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list takes no arguments, got %q", pos[0])
	}
	return answer(ctx, io, f, (*engine.Engine).ListSessions, engine.ListRequest{State: *state, Limit: *limit}, func(l *sessions.Listing) {
		printList(io.Out, l)
		printProblems(io.Err, l.Problems)
	})
}

// sessionsShow: `ctxd sessions show`.
func sessionsShow(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "show", "ID [--seq N] [flags]")
	seq := fs.Int("seq", 0, "checkpoint number (default: the newest that verifies)")
	id, err := parseID(fs, args, "show")
	if err != nil {
		return err
	}
	return answer(ctx, io, f, (*engine.Engine).RestoreCheckpoint, engine.RestoreRequest{SessionID: id, Seq: *seq}, func(r *sessions.Restored) {
		printCheckpoint(io.Out, r)
		printProblems(io.Err, r.Problems)
	})
}

// sessionsResume: `ctxd sessions resume`.
func sessionsResume(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "resume", "[ID] [--prompt] [flags]")
	showPrompt := fs.Bool("prompt", false, "print the rebuilt prompt after the sources")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("resume takes at most one session id")
	}
	var id string
	if len(pos) == 1 {
		id = pos[0]
	}
	return answer(ctx, io, f, (*engine.Engine).ResumeSession, engine.ResumeRequest{SessionID: id}, func(res *engine.ResumeResult) {
		printResume(io.Out, res, *showPrompt)
		for _, w := range res.Warnings {
			fmt.Fprintf(io.Err, "ctxd sessions resume: %s\n", w)
		}
		printProblems(io.Err, res.Problems)
	})
}

// sessionsTimeline: `ctxd sessions timeline`.
func sessionsTimeline(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "timeline", "ID [flags]")
	id, err := parseID(fs, args, "timeline")
	if err != nil {
		return err
	}
	return answer(ctx, io, f, (*engine.Engine).SessionTimeline, engine.TimelineRequest{SessionID: id}, func(tl *sessions.Timeline) {
		printTimeline(io.Out, tl)
		printProblems(io.Err, tl.Problems)
	})
}

// sessionsFork: `ctxd sessions fork`.
func sessionsFork(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "fork", "ID (--error TEXT | --error-file FILE) [--seq N] [--id NEW] [flags]")
	errText := fs.String("error", "", "the failure to correct (quoted in the lesson-learned note)")
	errFile := fs.String("error-file", "", "read the failure from this file ('-' is standard input)")
	seq := fs.Int("seq", 0, "checkpoint to fork from (default: the one before the newest)")
	newID := fs.String("id", "", "id of the new session (default: generated)")
	model := fs.String("model", "", "model the pruned history is for (default: the checkpoint's)")
	budget := fs.Int("budget", 0, "token budget of the pruned history (default: the model's window less its output reserve)")
	id, err := parseID(fs, args, "fork")
	if err != nil {
		return err
	}
	text, err := readErrorText(*errText, *errFile, io.In)
	if err != nil {
		return err
	}
	req := engine.ForkRequest{SessionID: id, Seq: *seq, Error: text, NewSessionID: *newID, Model: *model, Budget: *budget}
	return answer(ctx, io, f, (*engine.Engine).ForkSession, req, func(res *engine.ForkResult) {
		fmt.Fprintf(io.Out, "forked %s from %s at checkpoint %d: %d messages, %d -> %d tokens\n", res.SessionID, res.Parent.SessionID, res.Parent.Seq, res.Checkpoint.HistoryLen(), res.Report.TokensBefore, res.Report.TokensAfter)
		for _, w := range res.Warnings {
			fmt.Fprintf(io.Err, "ctxd sessions fork: %s\n", w)
		}
	})
}

// sessionsRm: `ctxd sessions rm`.
func sessionsRm(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "rm", "ID... [flags]")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("rm needs at least one session id")
	}
	return withEngine(io, f, func(e *engine.Engine) error {
		var results []*sessions.DeleteResult
		for _, id := range pos {
			res, err := e.DeleteSession(ctx, engine.DeleteRequest{SessionID: id})
			if err != nil {
				return err
			}
			results = append(results, res)
			if !f.asJSON {
				fmt.Fprintf(io.Out, "removed %s: %d checkpoints, %s\n", id, res.Removed, byteSize(res.Bytes))
			}
			printProblems(io.Err, res.Left)
		}
		if f.asJSON {
			return printJSON(io.Out, results)
		}
		return nil
	})
}

// sessionsGC: `ctxd sessions gc`.
func sessionsGC(ctx context.Context, io *IO, args []string) error {
	fs, f := sessionsFlagSet(io, "gc", "[--max-age 30d] [--max-size 256MiB] [--keep N] [--dry-run] [flags]")
	maxAge := fs.String("max-age", "30d", "remove sessions whose newest checkpoint is older (Go duration or days, e.g. 72h, 30d; 0 turns it off)")
	maxSize := fs.String("max-size", "256MiB", "remove the oldest sessions until the store fits (e.g. 512MiB, 1GiB; 0 turns it off); running sessions younger than --max-age stay")
	keep := fs.Int("keep", 0, "also trim every session to its newest N checkpoints (0 leaves them)")
	dryRun := fs.Bool("dry-run", false, "list what would be removed and remove nothing")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("gc takes no arguments, got %q", pos[0])
	}
	age, err := parseMaxAge(*maxAge)
	if err != nil {
		return err
	}
	capBytes, err := parseMaxSize(*maxSize)
	if err != nil {
		return err
	}
	if *keep < 0 {
		return usagef("--keep must not be negative")
	}
	return answer(ctx, io, f, (*engine.Engine).GCSessions, engine.GCRequest{MaxAge: age, MaxBytes: capBytes, Keep: *keep, DryRun: *dryRun}, func(rep *sessions.GCReport) {
		printGC(io.Out, rep)
		printProblems(io.Err, rep.Problems)
	})
}

// answer opens the engine, makes call with req and prints the result: as
// JSON with --json, else with text.
func answer[R, T any](ctx context.Context, io *IO, f *sessionFlags, call func(*engine.Engine, context.Context, R) (T, error), req R, text func(T)) error {
	return withEngine(io, f, func(e *engine.Engine) error {
		res, err := call(e, ctx, req)
		if err != nil {
			return err
		}
		if f.asJSON {
			return printJSON(io.Out, res)
		}
		text(res)
		return nil
	})
}

func withEngine(io *IO, f *sessionFlags, fn func(*engine.Engine) error) error {
	e, closeAll, err := f.open(io.Err)
	if err != nil {
		return err
	}
	defer closeAll()
	return fn(e)
}

// parseID parses the flags of sessions subcommand sub, which takes one
// session id, and returns the id.
func parseID(fs *flag.FlagSet, args []string, sub string) (string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("%s needs one session id", sub)
	}
	return pos[0], nil
}

// readErrorText takes the fork's error from --error or --error-file.
func readErrorText(text, file string, in io.Reader) (string, error) {
	switch {
	case text != "" && file != "":
		return "", usagef("--error and --error-file are exclusive")
	case file == "-":
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read the error from stdin: %w", err)
		}
		text = string(b)
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read the error: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return "", usagef("fork needs the failure to correct: --error TEXT or --error-file FILE")
	}
	return text, nil
}

// parseMaxAge reads a Go duration or a number of days ("30d"); "0" is 0.
func parseMaxAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" || s == "" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 {
			return 0, usagef("--max-age %q: want a duration such as 72h or 30d", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, usagef("--max-age %q: want a duration such as 72h or 30d", s)
	}
	return d, nil
}

// parseMaxSize reads a byte count with an optional binary suffix: K, M, G
// (or KB, KiB, ...; all powers of 1024).
func parseMaxSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"GB", 1 << 30}, {"G", 1 << 30}, {"MIB", 1 << 20}, {"MB", 1 << 20}, {"M", 1 << 20}, {"KIB", 1 << 10}, {"KB", 1 << 10}, {"K", 1 << 10}, {"B", 1}} {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n < 0 {
		return 0, usagef("--max-size %q: want a size such as 512MiB or 1GiB", s)
	}
	return int64(n * float64(mult)), nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// shortLine shortens a request for a table cell, its control
// characters escaped (ctxd.EscapeName: a checkpoint may come with the
// repository, and its text must not drive the terminal).
func shortLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return ctxd.EscapeName(s)
}

// esc shows a name or a word read from a checkpoint or the state
// directory (a session id, a path, a state) as data: control characters
// and bidirectional controls escaped.
func esc[S ~string](s S) string { return ctxd.EscapeName(string(s)) }

func printList(w io.Writer, l *sessions.Listing) {
	if len(l.Sessions) == 0 {
		fmt.Fprintln(w, "no sessions")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTATE\tUPDATED\tCHECKPOINTS\tCHUNKS\tTOKENS\tMESSAGES\tREQUEST")
	for _, s := range l.Sessions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", esc(s.SessionID), esc(s.State), s.Updated.Local().Format("2006-01-02 15:04"), s.Checkpoints, s.ContextSummary.ChunksIncluded, s.ContextSummary.TokensUsed, s.HistoryMessages, shortLine(s.UserRequest, 60))
	}
	tw.Flush()
	for _, s := range l.Sessions {
		if s.State == "running" {
			// "running" reads like a process; it is the task's state.
			fmt.Fprintln(w, "\nSTATE is the task's, not a process's: a session stays running until a client saves it completed, failed or abandoned (ctx/checkpoint/save); resume picks the newest running one.")
			break
		}
	}
}

func printProblems(w io.Writer, ps []sessions.Problem) {
	for _, p := range ps {
		fmt.Fprintf(w, "ctxd sessions: skipped %s: %s (left in place)\n", esc(p.Path), esc(p.Reason))
	}
}

func printCheckpoint(w io.Writer, r *sessions.Restored) {
	cp := r.Checkpoint
	fmt.Fprintf(w, "session     %s\ncheckpoint  %d (%s)\nstate       %s\ntime        %s\ntask        %s\nrequest     %s\n", esc(cp.SessionID), cp.Seq, esc(r.Path), esc(cp.State), cp.Timestamp.Local().Format(time.RFC3339), esc(cp.TaskType), shortLine(cp.UserRequest, 200))
	if cp.Parent != nil {
		fmt.Fprintf(w, "forked from %s at checkpoint %d\n", esc(cp.Parent.SessionID), cp.Parent.Seq)
	}
	if cp.Note != "" {
		fmt.Fprintf(w, "note        %s\n", shortLine(cp.Note, 200))
	}
	if r.MigratedFrom > 0 {
		fmt.Fprintf(w, "schema      migrated from version %d\n", r.MigratedFrom)
	}
	fmt.Fprintf(w, "context     %d chunks, %d tokens, %.0f%% of the budget\nhistory     %d messages\n", cp.ContextSummary.ChunksIncluded, cp.ContextSummary.TokensUsed, 100*cp.ContextSummary.Utilization, cp.HistoryLen())
	for _, a := range cp.Artifacts {
		fmt.Fprintf(w, "artifact    %s %s\n", esc(a.Type), esc(a.Path))
	}
	if len(cp.Chunks) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\nSOURCE\tTYPE\tLEVEL\tTOKENS\tSCORE\tHASH")
		for _, c := range cp.Chunks {
			level := cmp.Or(c.Truncation, ctxd.ViewFull)
			h := c.Hash
			if len(h) > 12 {
				h = h[:12]
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.0f\t%s\n", esc(c.Source), esc(c.ChunkType), esc(level), c.Tokens, c.Score, esc(h))
		}
		tw.Flush()
	}
}

func printResume(w io.Writer, res *engine.ResumeResult, prompt bool) {
	if !res.Resumed {
		fmt.Fprintf(w, "nothing to resume: %s\n", esc(res.Reason))
		return
	}
	cp := res.Checkpoint
	fmt.Fprintf(w, "resumed %s at checkpoint %d (%s): %s\n", esc(res.SessionID), cp.Seq, esc(cp.State), shortLine(cp.UserRequest, 100))
	fmt.Fprintf(w, "sources: %d unchanged, %d changed, %d missing\n", res.Unchanged, res.Changed, res.Missing)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range res.Sources {
		in := ""
		if s.Included {
			in = "in context"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", esc(s.Status), esc(s.Source), in)
	}
	tw.Flush()
	if res.Envelope != nil {
		fmt.Fprintf(w, "context rebuilt: %d chunks, %d of %d tokens\n", len(res.Envelope.Context.Chunks), res.Envelope.Context.TokensUsed, res.Envelope.Context.Budget)
		if prompt {
			fmt.Fprintf(w, "\n%s", res.Envelope.Prompt)
		}
	}
}

func printTimeline(w io.Writer, tl *sessions.Timeline) {
	if tl.Parent != nil {
		fmt.Fprintf(w, "%s, forked from %s at checkpoint %d\n", esc(tl.SessionID), esc(tl.Parent.SessionID), tl.Parent.Seq)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tTIME\tSTATE\tCHUNKS\tTOKENS\tMESSAGES\tREQUEST / NOTE")
	for _, e := range tl.Entries {
		if e.Problem != "" {
			fmt.Fprintf(tw, "%d\t-\tunreadable\t-\t-\t-\t%s\n", e.Seq, shortLine(e.Problem, 80))
			continue
		}
		text := e.UserRequest
		if e.Note != "" {
			text = e.Note
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%s\n", e.Seq, e.Timestamp.Local().Format("2006-01-02 15:04:05"), esc(e.State), e.Chunks, e.ContextSummary.TokensUsed, e.HistoryMessages, shortLine(text, 60))
	}
	tw.Flush()
}

func printGC(w io.Writer, rep *sessions.GCReport) {
	verb := "removed"
	if rep.DryRun {
		verb = "would remove"
	}
	for _, t := range rep.Trimmed {
		fmt.Fprintf(w, "%s %d old checkpoints of %s (%s)\n", verb, t.Checkpoints, esc(t.SessionID), byteSize(t.Bytes))
	}
	for _, r := range rep.Removed {
		fmt.Fprintf(w, "%s %s (%s, updated %s, %s): %s\n", verb, esc(r.SessionID), esc(r.State), r.Updated.Local().Format("2006-01-02"), byteSize(r.Bytes), esc(r.Reason))
	}
	if rep.TempFiles > 0 {
		fmt.Fprintf(w, "%s %d orphaned temporary files\n", verb, rep.TempFiles)
	}
	fmt.Fprintf(w, "%d sessions kept; store %s -> %s\n", rep.Kept, byteSize(rep.BytesBefore), byteSize(rep.BytesAfter))
}
