package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/eval"
)

func init() {
	register(&command{
		name: "eval",
		args: "recall --repo PATH [--commits N] [--budgets 8000,32000] [--json] [-v]",
		summary: `Measure how well ctxd finds the code a task needs on a repository's own history.
recall replays eligible commits (docs/eval.md): the parent checked out in a temporary
worktree, the commit message as the request, the modified source files as the answer;
it prints recall, all-files-found and any-file-found per budget beside a BM25 baseline.`,
		run: runEval,
	})
}

func runEval(ctx context.Context, io *IO, args []string) error {
	c := commands["eval"]
	if len(args) == 0 || args[0] != "recall" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			newFlagSet(c, io.Err).Usage()
			return nil
		}
		return usagef("want the subcommand recall")
	}
	fs := newFlagSet(c, io.Err)
	repo := fs.String("repo", ".", "the git repository to replay")
	commits := fs.Int("commits", 50, "most eligible commits to replay, newest first")
	budgets := fs.String("budgets", "8000,32000", "total token budgets, comma-separated")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	verbose := fs.Bool("v", false, "print one line per commit on stderr, and the misses")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if *commits <= 0 {
		return usagef("--commits must be positive")
	}
	var bs []int
	for _, f := range strings.Split(*budgets, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return usagef("--budgets: %q is not a positive number", f)
		}
		bs = append(bs, n)
	}
	opts := eval.Options{Commits: *commits, Budgets: bs}
	if *verbose {
		opts.Progress = io.Err
	}
	// Without -v a run of minutes would be silent: on a terminal, a
	// progress line says which commit is replayed.
	var p *progress
	if !*verbose {
		p = startProgress(io.Err)
		p.stage("preparing the replay")
		opts.Step = func(i, n int, commit string) {
			p.stage(fmt.Sprintf("replaying commit %d/%d (%.12s)", i+1, n, commit))
		}
	}
	rep, err := eval.Recall(ctx, *repo, opts)
	if p != nil {
		p.stop()
	}
	if err != nil {
		return err
	}
	if *verbose {
		for _, b := range rep.Budgets {
			for _, m := range rep.Misses[b.Budget] {
				fmt.Fprintf(io.Err, "miss@%d %s %s\n", b.Budget, m.Commit[:12], m.Subject)
				for i, f := range m.Missing {
					fmt.Fprintf(io.Err, "    %s (%s)\n", f, m.Why[i])
				}
			}
		}
	}
	if *asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	rep.Print(io.Out)
	return nil
}
