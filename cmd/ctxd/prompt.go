package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/workspace/tree"
)

func init() {
	register(&command{
		name: "prompt",
		args: "[flags] REQUEST  (REQUEST '-' reads standard input)",
		summary: `Build a prompt-ready context for a coding task in the repository at hand.
Prints the prompt; with --json, the whole envelope (chunks, scores, budget).`,
		run: runPrompt,
	})
}

type promptFlags struct {
	root, task, model, format, session, logLevel, logFile string
	budget, contextBudget, contextWindow, maxFiles        int
	open, patterns                                        multiFlag
	asJSON, explain                                       bool
}

func runPrompt(ctx context.Context, io *IO, args []string) error {
	c := commands["prompt"]
	fs := newFlagSet(c, io.Err)
	var f promptFlags
	fs.StringVar(&f.root, "root", "", "workspace root (default: the git top-level of the current directory)")
	fs.StringVar(&f.task, "task", "", "task type: implement, debug, refactor, test, analyze (default: detected from the request)")
	fs.StringVar(&f.model, "model", "", "model the prompt is for (sets the tokenizer and window; default from config)")
	fs.IntVar(&f.contextWindow, "context-window", 0, "model context window in tokens (overrides the registry)")
	fs.IntVar(&f.budget, "budget", 0, "total token budget, split by the configured shares, > 0 (default: budget.total of the configuration, else an eighth of the model's context window within 8000-32000: 16000 for gpt-4o)")
	fs.IntVar(&f.contextBudget, "context-budget", 0, "token budget of the context part alone (for callers with their own system prompt)")
	fs.Var(&f.open, "open", "an open file, FILE or FILE:LINE; FILE:LINE:COL as compilers print it reads as FILE:LINE (repeatable)")
	fs.Var(&f.patterns, "pattern", "a glob of files to gather, doublestar syntax read as in .gitignore: *.rs matches at any depth, src/*.rs from the root (repeatable)")
	fs.IntVar(&f.maxFiles, "max-files", 0, "most files to gather from patterns and relevance (default 50)")
	fs.StringVar(&f.format, "format", "", "prompt format: markdown or xml")
	fs.StringVar(&f.session, "session", "", "save a checkpoint of this prompt under this session id (ctxd sessions list shows it; without --session nothing is saved)")
	fs.BoolVar(&f.asJSON, "json", false, "print the whole envelope as JSON")
	fs.BoolVar(&f.explain, "explain", false, "print on stderr what reached the context and why: each chunk's view, tokens, score and largest score terms, and each skipped chunk's reason")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	fs.StringVar(&f.logFile, "log-file", "", "write logs to this file instead of stderr")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	request, err := readRequest(pos, io.In, io.Err)
	if err != nil {
		return err
	}
	for _, n := range []struct {
		flag  string
		value int
	}{{"budget", f.budget}, {"context-budget", f.contextBudget}, {"context-window", f.contextWindow}, {"max-files", f.maxFiles}} {
		if n.value < 0 {
			return usagef("--%s must not be negative (got %d)", n.flag, n.value)
		}
	}
	// 0 is the flags' "not given"; said explicitly it is a mistake, not a
	// request for the default.
	var zero []string
	fs.Visit(func(fl *flag.Flag) {
		if (fl.Name == "budget" || fl.Name == "context-budget") && fl.Value.String() == "0" {
			zero = append(zero, "--"+fl.Name)
		}
	})
	if len(zero) > 0 {
		return usagef("%s 0: a token budget must be positive (leave the flag out for the configured default)", strings.Join(zero, " and "))
	}
	if _, err := ctxd.ParseTaskType(f.task); err != nil {
		return usagef("--task: %s", ctxd.Message(err))
	}
	if _, err := ctxd.ParseFormat(f.format); err != nil {
		return usagef("--format: %s", ctxd.Message(err))
	}
	root, err := engine.ResolveRoot(f.root)
	if err != nil {
		return err
	}
	if fellBack(f.root, root) {
		fmt.Fprintf(io.Err, "ctxd: not in a git repository: using %s as the workspace (pass --root DIR to choose)\n", root)
	}
	if os.Getenv("GOGC") == "" {
		// A run lives a fraction of a second, most of its heap live to
		// the end: collecting a quarter as often saves CPU the run
		// waits for, and the exit returns the memory at once.
		debug.SetGCPercent(cliGCPercent)
	}
	eng, done, err := openEngine(io.Err, fs, root, &f.logLevel, &f.logFile, engine.Options{})
	if err != nil {
		return err
	}
	defer done()
	req := engine.PromptRequest{
		UserRequest:   request,
		TaskType:      f.task,
		Model:         f.model,
		ContextWindow: f.contextWindow,
		Patterns:      f.patterns,
		MaxFiles:      f.maxFiles,
		Format:        ctxd.Format(f.format),
		SessionID:     f.session,
	}
	switch {
	case f.budget > 0 && f.contextBudget > 0:
		// The context part is set directly; the other parts keep their
		// shares of --budget.
		b := ctxd.NewBudget(f.budget, eng.Config().Budget.Shares)
		req.TokenBudget = &engine.BudgetRequest{System: b.System, Context: f.contextBudget, UserRequest: b.UserRequest, Response: b.Response}
	case f.budget > 0:
		req.TokenBudget = &engine.BudgetRequest{Total: f.budget}
	case f.contextBudget > 0:
		req.TokenBudget = &engine.BudgetRequest{Context: f.contextBudget}
	}
	for _, o := range f.open {
		of, err := parseOpen(o)
		if err != nil {
			return err
		}
		p, st := openPath(of.Path, root)
		if st == nil {
			p, st = openColumn(&of, p, root)
		}
		if err := badOpenLine(o, of, st, root); err != nil {
			return err
		}
		if _, _, err := tree.Resolve(root, p); errors.Is(err, ctxd.ErrOutsideRoot) {
			// How ctxd was called, not a failure (it said "gather: open
			// file: resolve path ...", exit 1). A link says where it
			// leads, or "outside" would puzzle.
			via := ""
			if abs, err := filepath.Abs(p); err == nil {
				if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
					via = " (it resolves to " + real + ")"
				}
			}
			return usagef("--open %s%s: outside the workspace %s (ctxd reads files inside it; --root DIR names another)", o, via, root)
		}
		of.Path = p
		req.OpenFiles = append(req.OpenFiles, of)
	}

	prog := startProgress(io.Err)
	env, err := eng.BuildPrompt(ctx, req, prog.stage)
	prog.stop()
	if err != nil {
		return err
	}
	// Warnings are for the person at the terminal: plain lines on stderr,
	// not log records (they are in the envelope too). The notice that a
	// model's counts are estimates, the same on every run, comes with
	// --explain only.
	for _, w := range env.Warnings {
		if !f.explain && engine.IsEstimateNotice(w) {
			continue
		}
		fmt.Fprintf(io.Err, "ctxd: %s\n", w)
	}
	if env.Stats.FilesScanned == 0 && len(req.OpenFiles) == 0 {
		// An empty directory, or a wrong --root: the prompt is the
		// request and an empty tree, which said nothing of why.
		fmt.Fprintf(io.Err, "ctxd: the workspace %s has no file to read (empty, or every file ignored): the prompt holds no code (pass --root DIR to choose another)\n", root)
	}
	if f.session == "" {
		// The engine saves a checkpoint only under a session id the caller
		// chose; the one it generated otherwise names nothing that
		// ctxd sessions could list, so it is not shown.
		env.SessionID = ""
	}
	if f.explain {
		if err := writeExplain(io.Err, env); err != nil {
			return err
		}
	}
	if f.asJSON {
		return printJSON(io.Out, env)
	}
	_, err = fmt.Fprint(io.Out, env.Prompt)
	return err
}

// cliGCPercent is the garbage collector's GOGC for a prompt run (unless
// $GOGC sets it): at 10k files, 6 collections at the default 100, 2 here.
const cliGCPercent = 400

// readRequest joins the positional arguments into the request; "-" reads
// standard input.
func readRequest(pos []string, in io.Reader, errw io.Writer) (string, error) {
	if len(pos) == 1 && pos[0] == "-" {
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read request from stdin: %w", err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			// A command that printed nothing (tests that passed, a
			// redirect of an empty file): "missing REQUEST" named the
			// wrong mistake, the REQUEST '-' was there.
			return "", usagef("standard input is empty (%d bytes): REQUEST '-' reads the task from it; pipe in the text (an error log) or give the task as words", len(b))
		}
		if tree.IsBinary(b) {
			// A core dump or an archive redirected by mistake became a
			// request of thousands of tokens of noise.
			return "", usagef("standard input is binary (%d bytes), not text: REQUEST '-' reads the task as text, such as an error log", len(b))
		}
		if len(b) > engine.MaxUserRequestBytes {
			// A CI log piped in (README) is refused past the bound every
			// door has; its head and tail are what a debug task reads.
			n := len(b)
			b = cutLines(b, engine.MaxUserRequestBytes, engine.RequestTailRatio)
			fmt.Fprintf(errw, "ctxd: standard input is %d bytes, over the %d a request may be: its middle was left out (%d bytes kept, head and tail)\n", n, engine.MaxUserRequestBytes, len(b))
		}
		pos = []string{string(b)}
	}
	request := strings.TrimSpace(strings.Join(pos, " "))
	if request == "" {
		return "", usagef("missing REQUEST: say what the task is, e.g. ctxd prompt \"fix the failing login test\"")
	}
	return request, nil
}

// cutLines keeps tailRatio of max from b's tail and the rest from its
// head, whole lines, with a line saying how much was left out between: at
// most max bytes.
func cutLines(b []byte, max int, tailRatio float64) []byte {
	marker := fmt.Sprintf("\n... [%d bytes left out by ctxd] ...\n", len(b))
	room := max - len(marker)
	head := b[:room-int(float64(room)*tailRatio)]
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	tail := b[len(b)-(room-len(head)):]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	marker = fmt.Sprintf("\n... [%d bytes left out by ctxd] ...\n", len(b)-len(head)-len(tail))
	return append(append(append([]byte(nil), head...), marker...), tail...)
}

// openPath resolves --open's FILE. Like outline and truncate, a relative
// path is relative to the current directory; when no such file is there
// but one is under the workspace root (`--root REPO --open pkg/x.go` run
// from elsewhere), it is the root's. st describes what is at the path, nil
// when nothing is (a file: URI is left to the engine).
func openPath(p, root string) (string, os.FileInfo) {
	if strings.HasPrefix(p, "file:") {
		return p, nil
	}
	if wd, err := os.Getwd(); err == nil && !filepath.IsAbs(p) {
		for _, dir := range []string{wd, root} {
			if st, err := os.Stat(filepath.Join(dir, p)); err == nil {
				return filepath.Join(dir, p), st
			}
		}
		return filepath.Join(wd, p), nil
	}
	if st, err := os.Stat(p); err == nil {
		return p, st
	}
	return p, nil
}

// openColumn reads --open FILE:LINE:COL, a location as compilers, linters
// and stack traces print it (entry.go:20:5), as FILE:LINE: parseOpen took
// COL for the line and "FILE:LINE" for the file, which was skipped as "no
// such file". It changes of and returns the file's path and what is
// there when FILE is a file; else p unchanged and nil.
func openColumn(of *ctxd.OpenFile, p, root string) (string, os.FileInfo) {
	i := strings.LastIndexByte(of.Path, ':')
	if i <= 0 || of.Line == 0 || strings.HasPrefix(of.Path, "file:") {
		return p, nil
	}
	n, err := strconv.Atoi(of.Path[i+1:])
	if err != nil || n <= 0 {
		return p, nil
	}
	fp, st := openPath(of.Path[:i], root)
	if st == nil || st.IsDir() {
		return p, nil
	}
	of.Path, of.Line = of.Path[:i], n
	return fp, st
}

// badOpenLine is a usage error for --open FILE:X where X is not a line
// number and FILE exists while FILE:X does not (it was skipped as "no such
// file", which sent the user looking for the file); st is what openPath
// found for of.
func badOpenLine(arg string, of ctxd.OpenFile, st os.FileInfo, root string) error {
	i := strings.LastIndexByte(arg, ':')
	if of.Line != 0 || i <= 0 || strings.HasPrefix(arg, "file:") || st != nil {
		return nil
	}
	if _, st := openPath(arg[:i], root); st != nil && !st.IsDir() {
		return usagef("--open %s: %q is not a line number (FILE:LINE, lines from 1)", arg, arg[i+1:])
	}
	return nil
}

// parseOpen parses FILE or FILE:LINE.
func parseOpen(s string) (ctxd.OpenFile, error) {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil {
			if n <= 0 {
				return ctxd.OpenFile{}, usagef("--open %s: line numbers start at 1", s)
			}
			return ctxd.OpenFile{Path: s[:i], Line: n}, nil
		}
	}
	if s == "" {
		return ctxd.OpenFile{}, usagef("--open needs a file")
	}
	return ctxd.OpenFile{Path: s}, nil
}

// progress shows the pipeline's stage on a terminal's stderr once work has
// taken over a second; it stays silent on pipes and for quick runs.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	current string
	shown   bool
	done    chan struct{}
	wg      sync.WaitGroup
}

func startProgress(w io.Writer) *progress { return newProgress(w, isTerminal(w), time.Second) }

// newProgress is startProgress with the terminal test and the delay
// given (tests).
func newProgress(w io.Writer, terminal bool, delay time.Duration) *progress {
	p := &progress{w: w, done: make(chan struct{})}
	if !terminal {
		return p
	}
	p.wg.Go(func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		for {
			p.mu.Lock()
			fmt.Fprintf(p.w, "\r\033[Kctxd: %s…", p.current)
			p.shown = true
			p.mu.Unlock()
			select {
			case <-p.done:
				return
			case <-tick.C:
			}
		}
	})
	return p
}

func (p *progress) stage(s string) {
	p.mu.Lock()
	p.current = s
	p.mu.Unlock()
}

func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// isTerminal reports a writer (or reader: standard input) that is a
// terminal: a character device other than the null device (`ctxd pack >
// /dev/null` is no terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}
