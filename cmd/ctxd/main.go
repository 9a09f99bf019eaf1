// Command ctxd is the context daemon for code editors and its command
// line. `ctxd serve` speaks JSON-RPC over stdio (or a socket); the other
// subcommands run the same engine once, in the current repository.
//
// Exit codes: 0 ok, 1 error, 2 usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/editdist"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the module's build info.
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	endProfile := startProfile()
	code := Run(ctx, os.Args[1:], &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	endProfile()
	stop()
	os.Exit(code)
}

// IO are a command's standard streams.
type IO struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// command is one subcommand. Each lives in its own file and registers
// itself in init.
type command struct {
	name    string
	args    string // usage after the name, e.g. "[flags] REQUEST"
	summary string
	// run executes the command; a *usageError exits 2, any other error 1.
	run func(ctx context.Context, io *IO, args []string) error
}

// usage is the command's usage line without "usage: " (no trailing
// space for a command without arguments).
func (c *command) usage() string { return strings.TrimSpace("ctxd " + c.name + " " + c.args) }

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("ctxd: command " + c.name + " registered twice")
	}
	commands[c.name] = c
}

// usageError is a mistake in how a command was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// Run runs ctxd with args (without the program name) and returns the exit
// code.
func Run(ctx context.Context, args []string, io *IO) int {
	if len(args) == 0 {
		printHelp(io.Err)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] != "help" && !strings.HasPrefix(args[1], "-") {
			if c, ok := commands[args[1]]; ok {
				// The command's own --help prints its usage and flags.
				if err := c.run(ctx, &IO{In: io.In, Out: io.Out, Err: io.Out}, []string{"--help"}); err != nil && !errors.Is(err, flag.ErrHelp) {
					fmt.Fprintf(io.Out, "usage: %s\n\n%s\n", c.usage(), c.summary)
				}
				return 0
			}
			unknownCommand(io.Err, args[1])
			return 2
		}
		printHelp(io.Out)
		return 0
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		unknownCommand(io.Err, name)
		return 2
	}
	err := c.run(ctx, io, args[1:])
	var ue *usageError
	var es exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &es):
		return int(es)
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		// A flag's value checked by a parser shared with JSON-RPC ends in
		// ": invalid params", a protocol term the command line drops.
		fmt.Fprintf(io.Err, "ctxd %s: %s\nusage: %s\n", c.name, ctxd.Message(err), c.usage())
		return 2
	default:
		fmt.Fprintf(io.Err, "ctxd %s: %s\n", c.name, ctxd.MessageOf(c.name, err))
		return 1
	}
}

// unknownCommand says name is no command: with the one it most likely
// meant (ctxd promt: prompt), else with the list of commands.
func unknownCommand(w io.Writer, name string) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names) // map order: two names as near would take turns
	if best := nearest(name, names); best != "" {
		fmt.Fprintf(w, "ctxd: unknown command %q (did you mean %s?); ctxd help lists the commands\n", name, best)
		return
	}
	fmt.Fprintf(w, "ctxd: unknown command %q\n\n", name)
	printHelp(w)
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "ctxd: a context daemon for code editors and agents\n\nusage: ctxd COMMAND [flags] [args]\n\ncommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		lines := wrapWords(firstSentence(commands[n].summary), helpWidth-helpIndent)
		fmt.Fprintf(w, "  %-14s %s\n", n, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", helpIndent), l)
		}
	}
	fmt.Fprintf(w, "\nRun 'ctxd help COMMAND' or 'ctxd COMMAND -h' for a command's flags.\n")
	fmt.Fprintf(w, "\nenvironment:\n")
	fmt.Fprintf(w, "  CTXD_CONFIG      user configuration file (default $XDG_CONFIG_HOME/ctxd/config.toml)\n")
	fmt.Fprintf(w, "  CTXD_STATE_DIR   state directory for sessions and artifacts (default <workspace>/.ctxd)\n")
	fmt.Fprintf(w, "  CTXD_TOKENIZER   BPE implementation: ctxd (the comparison ones exist in tests only)\n")
	fmt.Fprintf(w, "  CTXD_CPUPROFILE, CTXD_MEMPROFILE  write a CPU / heap profile of this process (pprof format);\n                                    CTXD_MEMPROFILE_EVERY=30s also writes $CTXD_MEMPROFILE.1, .2, ... while it runs\n")
	fmt.Fprintf(w, "  CTXD_SMART_CONTEXT_SHADOW=1          optimize computes decisions and telemetry but returns the original\n")
	fmt.Fprintf(w, "  CTXD_SMART_CONTEXT_CANARY_PERCENT=N  optimize rewrites a deterministic N%% of sessions\n")
}

// firstSentence is a summary's first sentence on one line (up to a
// period or a colon that ends a clause, outside parentheses: "(from the
// symbol index: kind, lines)" does not end one), whole: ctxd help wraps it.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	depth := 0
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		}
		if depth == 0 && (s[i] == '.' || s[i] == ':') && s[i+1] == ' ' {
			s = s[:i]
			if s[len(s)-1] != ')' && !strings.HasSuffix(s, "...") {
				s += "."
			}
			break
		}
	}
	return strings.TrimSuffix(strings.TrimSuffix(s, ":"), ".") + "."
}

// ctxd help's layout: lines of at most helpWidth columns, a summary's
// continuation lines indented to its first line's column.
const (
	helpWidth  = 100
	helpIndent = 17
)

// wrapWords breaks s at spaces into lines of at most width bytes (a
// longer word stands alone on its line).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// newFlagSet returns a flag set for c that writes its usage to w and
// reports errors instead of exiting.
func newFlagSet(c *command, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ctxd "+c.name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: %s\n\n%s\n", c.usage(), c.summary)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(w, "\nflags:\n")
			printFlags(w, fs)
		}
	}
	return fs
}

// printFlags lists fs's flags as flag.PrintDefaults does, but spelled
// with two dashes, as the README and the error messages write them
// (--budget; the flag package takes one or two), and a one-letter flag
// with one, as the usage line and the README write it (-v, not --v).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  " + flagName(f.Name)
		if kind != "" {
			line += " " + kind
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		switch {
		case f.DefValue == "" || f.DefValue == "0" || f.DefValue == "false" || f.DefValue == "[]":
		case kind == "string":
			line += fmt.Sprintf(" (default %q)", f.DefValue)
		default:
			line += fmt.Sprintf(" (default %v)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

// parseNone parses the flags of a command that takes no positional
// arguments.
func parseNone(fs *flag.FlagSet, args []string) error {
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	return nil
}

// parseOne parses the flags of a command that takes one positional
// argument (what names it in the message) and returns the argument.
func parseOne(fs *flag.FlagSet, args []string, what string) (string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", usagef("want one %s, got %d arguments", what, len(pos))
	}
	return pos[0], nil
}

// parse parses flags that may come before, between or after positional
// arguments ("ctxd prompt 'fix it' --task debug"), and returns the
// positional ones. "--" ends flag parsing.
//
// A bad flag is one line (Run adds the usage line), with the nearest
// flag when one is a typo away: "flag provided but not defined:
// -bugdet" and the whole flag list said it less clearly, twice.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
				return nil, err
			}
			return nil, &usageError{flagMessage(fs, err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagName is a flag as help and messages spell it: --budget, and -v for
// a one-letter flag, as usage lines and the README write it.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagMessage rewrites the flag package's error for a person: flags with
// two dashes, and for an unknown one the nearest defined flag.
func flagMessage(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: -")
	if !ok {
		return strings.Replace(msg, " -", " --", 1)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	best := nearest(name, names)
	msg = "unknown flag --" + name
	if best != "" {
		msg += " (did you mean " + flagName(best) + "?)"
	}
	return msg + "; ctxd help " + strings.TrimPrefix(fs.Name(), "ctxd ") + " lists the flags"
}

// nearest is the name among names a mistyped one most likely meant:
// within two edits, or three when the name is a prefix of it ("" when
// none is).
func nearest(name string, names []string) string {
	return editdist.Nearest(name, names, func(n string) int {
		if strings.HasPrefix(n, name) {
			return 3
		}
		return 2
	})
}

// printJSON writes v as indented JSON and a newline: the --json output of
// every command.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// newLogger returns the slog logger for a command: text records to w at
// level, or to file when given. Source text is never logged at any level.
func newLogger(w io.Writer, level, file string) (*slog.Logger, func(), error) {
	return openLogger(w, level, file, false)
}

// openLogger is newLogger, writing JSON when the log goes to a file and
// jsonFile is set.
func openLogger(w io.Writer, level, file string, jsonFile bool) (*slog.Logger, func(), error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, usagef("log level %q: want debug, info, warn or error", level)
	}
	closer := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("open log file: %w", err)
		}
		w = f
		closer = func() { f.Close() }
	}
	if file != "" && jsonFile {
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lv})), closer, nil
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv})), closer, nil
}

// Version returns ctxd's version string.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return "dev"
}

// configuredLog applies the configuration's log.level and log.file (the
// user file's, or root's .ctxd.toml: root "" is the current repository)
// where the command line did not set --log-level or --log-file, and
// returns the configuration; a value nothing sets keeps the command's
// own default (warn for one-shot commands, info for serve). A
// configuration that does not load is returned as the error, with the
// flags left as they are: the proxy, compress and optimize stop on it
// (they read context_window and secrets.redact_conversation from it, and
// went on without them, saying nothing), serve reports it at initialize
// for the root its client names.
func configuredLog(fs *flag.FlagSet, root string, level, file *string) (*config.Config, error) {
	cfg, err := workspaceConfig(root)
	if err != nil {
		return nil, err
	}
	logConfig(fs, cfg, level, file)
	return cfg, nil
}

// workspaceConfig loads the configuration of root's workspace (root ""
// is the current repository; outside one, the user file's alone).
func workspaceConfig(root string) (*config.Config, error) {
	dir, err := engine.ResolveRoot(root)
	if err != nil {
		dir = ""
	}
	return config.Load(dir)
}

// configAndLog loads root's configuration (root must be resolved) and
// makes the command's logger to w, with the configuration's log.level and
// log.file where the command line did not set --log-level or --log-file
// (as configuredLog): one read of the configuration files for a command
// that needs both. file nil: the command has no --log-file and logs to w.
func configAndLog(w io.Writer, fs *flag.FlagSet, root string, level, file *string) (*config.Config, *slog.Logger, func(), error) {
	cfg, err := config.Load(root)
	if err != nil {
		return nil, nil, nil, err
	}
	logConfig(fs, cfg, level, file)
	var path string
	if file != nil {
		path = *file
	}
	log, closeLog, err := newLogger(w, *level, path)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, log, closeLog, nil
}

// openEngine opens root's engine (root resolved) with its configuration
// and the command's logger, from one read of the configuration files
// (configAndLog); opts gives the rest. done closes the engine, then the
// log.
func openEngine(w io.Writer, fs *flag.FlagSet, root string, level, file *string, opts engine.Options) (eng *engine.Engine, done func(), err error) {
	cfg, log, closeLog, err := configAndLog(w, fs, root, level, file)
	if err != nil {
		return nil, nil, err
	}
	opts.Config, opts.Logger = cfg, log
	opts.OneShot = !opts.Watch // a command's one engine, closed as it exits
	if eng, err = engine.New(root, opts); err != nil {
		closeLog()
		return nil, nil, err
	}
	return eng, func() { eng.Close(); closeLog() }, nil
}

// logConfig is configuredLog for a command that loads cfg anyway (file
// nil: the command has no --log-file).
func logConfig(fs *flag.FlagSet, cfg *config.Config, level, file *string) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["log-level"] && cfg.Source("log.level") != config.SourceDefault {
		*level = cfg.Log.Level
	}
	if file != nil && !set["log-file"] && cfg.Source("log.file") != config.SourceDefault {
		*file = cfg.Log.File
	}
}
