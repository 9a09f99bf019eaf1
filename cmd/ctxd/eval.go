package main

import (
	"context"
	"flag"
	"fmt"
	goio "io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/eval"
)

func init() {
	register(&command{
		name: "eval",
		args: "recall --repo PATH [--commits N] [--budgets 8000,32000] [--json] [-v] [--dump DIR] [--oracle] [--skip N] [--features FILE]\n" +
			"  eval swebench --instances FILE (--repos DIR | --repo owner/name=PATH...) [--budgets 13000,27000,50000] [--per-repo N] [--json] [-v]",
		summary: `Measure how well ctxd finds the code a task needs (docs/eval.md).
recall replays eligible commits of a repository's own history: the parent checked out in a
temporary worktree, the commit message as the request, the modified source files as the
answer; it prints recall, all-files-found and any-file-found per budget beside a BM25 baseline.
swebench runs SWE-bench instances (JSON lines, JSON array or CSV): each issue's text as the
request at its base commit, from local clones; the gold patch's files and changed lines as
the answer; per-repository and total tables beside the same BM25 baseline.`,
		run: runEval,
	})
}

func runEval(ctx context.Context, io *IO, args []string) error {
	c := commands["eval"]
	if len(args) > 0 && args[0] == "swebench" {
		return runSWEBench(ctx, io, args[1:])
	}
	if len(args) == 0 || args[0] != "recall" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			newFlagSet(c, io.Err).Usage()
			fmt.Fprintf(io.Err, "\nRun 'ctxd eval recall -h' or 'ctxd eval swebench -h' for their flags.\n")
			return flag.ErrHelp
		}
		return usagef("want the subcommand recall or swebench")
	}
	fs := newFlagSet(c, io.Err)
	repo := fs.String("repo", ".", "the git repository to replay")
	commits := fs.Int("commits", 50, "most eligible commits to replay, newest first")
	budgets := fs.String("budgets", "8000,32000", "total token budgets, comma-separated")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	verbose := fs.Bool("v", false, "print one line per commit on stderr, and the misses")
	dump := fs.String("dump", "", "write, per commit and budget, what ctxd and the baseline showed to files in this `directory`")
	oracle := fs.Bool("oracle", false, "tell the engine each commit's answer files (as open files without a cursor): perfect retrieval, measuring the views and the fitter alone")
	skip := fs.Int("skip", 0, "replay the eligible commits after the newest N (training data apart from the evaluated ones)")
	features := fs.String("features", "", "write every scored chunk's score terms and facts, and whether it is an answer file, to this `file` (JSON lines)")
	if err := parseNone(fs, args[1:]); err != nil {
		return err
	}
	if *commits <= 0 {
		return usagef("--commits must be positive")
	}
	if *skip < 0 {
		return usagef("--skip must not be negative")
	}
	bs, err := parseBudgets(*budgets)
	if err != nil {
		return err
	}
	if err := checkRecallRepo(ctx, *repo); err != nil {
		return err
	}
	opts := eval.Options{Commits: *commits, Budgets: bs, Dump: *dump, Oracle: *oracle, Skip: *skip}
	if *features != "" {
		f, err := os.Create(*features)
		if err != nil {
			return err
		}
		defer f.Close()
		opts.Features = f
	}
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
	return writeReport(io.Out, rep, *asJSON)
}

// parseBudgets reads --budgets: positive numbers, comma-separated.
func parseBudgets(s string) ([]int, error) {
	var bs []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, usagef("--budgets: %q is not a positive number", f)
		}
		bs = append(bs, n)
	}
	return bs, nil
}

func runSWEBench(ctx context.Context, io *IO, args []string) error {
	fs := newFlagSet(commands["eval"], io.Err)
	instances := fs.String("instances", "", "the SWE-bench instances: JSON lines, a JSON array or CSV")
	reposDir := fs.String("repos", "", "a directory of clones named owner__name (SWE-bench's naming)")
	var repoFlags multiFlag
	fs.Var(&repoFlags, "repo", "a clone of one repository, owner/name=PATH (repeatable)")
	budgets := fs.String("budgets", "13000,27000,50000", "total token budgets, comma-separated")
	perRepo := fs.Int("per-repo", 0, "most instances per repository, in file order (0: all)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	verbose := fs.Bool("v", false, "print one line per instance on stderr (always on a terminal)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *instances == "" {
		return usagef("want --instances FILE")
	}
	if *perRepo < 0 {
		return usagef("--per-repo must not be negative")
	}
	bs, err := parseBudgets(*budgets)
	if err != nil {
		return err
	}
	f, err := os.Open(*instances)
	if err != nil {
		return err
	}
	ins, err := eval.ReadInstances(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *instances, err)
	}
	repos := map[string]string{}
	if *reposDir != "" {
		if st, err := os.Stat(*reposDir); err != nil || !st.IsDir() {
			return usagef("--repos %s: not a directory (give the directory holding owner__name clones)", *reposDir)
		}
		repos = eval.ClonesIn(*reposDir, ins)
		if len(repos) == 0 && len(repoFlags) == 0 {
			// Not "give --repos": it was given, and holds none of them.
			return usagef("--repos %s: no clone of the instances' repositories in it (looked for %s; name each clone owner__name, or give --repo owner/name=PATH)", *reposDir, cloneNames(*reposDir, ins))
		}
	}
	for _, r := range repoFlags {
		name, dir, ok := strings.Cut(r, "=")
		if !ok || strings.Count(name, "/") != 1 || dir == "" {
			return usagef("--repo %q: want owner/name=PATH", r)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return usagef("--repo %s: %s is not a directory", name, dir)
		}
		repos[name] = dir
	}
	if len(repos) == 0 {
		return usagef("no clones: give --repos DIR (holding owner__name clones) or --repo owner/name=PATH")
	}
	opts := eval.SWEOptions{Repos: repos, Budgets: bs, PerRepo: *perRepo}
	if *verbose || isTerminal(io.Err) {
		opts.Progress = io.Err
	}
	rep, err := eval.SWEBench(ctx, ins, opts)
	if err != nil {
		return err
	}
	if *verbose {
		for _, r := range rep.Results {
			if r.Err != "" {
				fmt.Fprintf(io.Err, "failed %s: %s\n", r.InstanceID, r.Err)
			}
		}
	}
	return writeReport(io.Out, rep, *asJSON)
}

// cloneNames are the directories --repos DIR would hold for the
// instances' repositories, the first three and how many more.
func cloneNames(dir string, ins []eval.Instance) string {
	var names []string
	seen := map[string]bool{}
	for _, in := range ins {
		if !seen[in.Repo] {
			seen[in.Repo] = true
			names = append(names, filepath.Join(dir, strings.ReplaceAll(in.Repo, "/", "__")))
		}
	}
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + fmt.Sprintf(" and %d more", len(names)-3)
	}
	return strings.Join(names, ", ")
}

// writeReport prints an eval report as JSON or as its tables.
func writeReport(w goio.Writer, rep interface{ Print(goio.Writer) }, asJSON bool) error {
	if asJSON {
		return printJSON(w, rep)
	}
	rep.Print(w)
	return nil
}

// checkRecallRepo says, as a usage error, why --repo cannot be replayed:
// a missing directory, a directory outside git, a repository without a
// commit. Each was git's own message ("git log in DIR: exit status 128:
// fatal: ...", three lines for an empty repository).
func checkRecallRepo(ctx context.Context, repo string) error {
	fi, err := os.Stat(repo)
	switch {
	case err != nil && os.IsNotExist(err):
		return usagef("--repo %s: no such directory", repo)
	case err != nil:
		return usagef("--repo %s: %v", repo, err)
	case !fi.IsDir():
		return usagef("--repo %s: not a directory (give the repository's directory)", repo)
	}
	git := func(args ...string) error {
		return exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...).Run()
	}
	if git("rev-parse", "--is-inside-work-tree") != nil {
		return usagef("--repo %s: not a git repository (eval recall replays the commits of a repository's history)", repo)
	}
	if git("rev-parse", "--verify", "--quiet", "HEAD^{commit}") != nil {
		return usagef("--repo %s: the repository has no commit to replay", repo)
	}
	return nil
}
