package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/patience"
	"github.com/ctxd/ctxd/prioritize"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Options configure a recall run.
type Options struct {
	// Commits is the most cases to replay (default 50).
	Commits int
	// Budgets are the total token budgets to measure at (default 8000
	// and 32000).
	Budgets []int
	// Progress, when set, receives one line per replayed case.
	Progress io.Writer
	// Step, when set, is called before each case is replayed with its
	// 0-based index, the number of cases and the commit: a terminal's
	// progress line.
	Step   func(i, n int, commit string)
	Logger *slog.Logger
	// Dump, when set, is a directory that receives, per case and budget,
	// what ctxd showed beside what the baseline showed (dumpCase): the
	// chunks with their views, costs and scores, the skipped chunks, and
	// each changed line of the answer files, seen or not.
	Dump string
	// Oracle tells the engine each case's answer files, as open files
	// without a cursor (PromptRequest.OpenFiles): retrieval is then
	// perfect and all-lines measures the views and the fitter alone
	// (scripts/ceiling has the ceiling they are measured against). Not a
	// measure of ctxd: the answer is never known to a real request.
	Oracle bool
	// Skip replays the eligible commits after the newest Skip (CasesAfter):
	// with Skip 100 and Commits 300, the 101st to the 400th. A ranker is
	// fit on those; the evaluation is the newest (Skip 0).
	Skip int
	// Features, when set, receives one JSON line per case and budget
	// (FeatureCase): every chunk the scorer saw, with its score terms,
	// its facts and whether it is an answer file.
	Features io.Writer
	// Fits, when set, receives per case and budget the fitter's input and
	// the case's changed lines (FitCase), for scripts/fitalloc.
	Fits func(FitCase)
	// Fusion and Links are the ranking's link weights and options the
	// engine replays with (engine.Options); zero: the defaults. A weight
	// search (scripts/fitweights) sets them.
	Fusion prioritize.FusionWeights
	Links  tree.LinkOptions
}

// Score is the recall of one method at one budget.
type Score struct {
	// Recall is the mean fraction of a case's answer files found.
	Recall float64
	// All is the fraction of cases with every answer file found; Any
	// with at least one.
	All, Any float64
	// AllFull is the fraction of cases with every answer file found whole
	// or at the bodies view (bodies collapsed only where they do not
	// matter), not just as an outline, signatures or a cut. The baseline's
	// files are always whole.
	AllFull float64
	// AllLines is the fraction of cases where every line the commit
	// changed (in the parent's text) is shown verbatim: the answer file's
	// chunk is included and the line is not in its elided ranges. It says
	// whether the code that matters is visible, at any view. LineRecall is
	// the mean over cases of the fraction of changed lines visible.
	AllLines, LineRecall float64
	// Rank is where the method ranked the answer files, before any
	// allocation: ctxd's score order over every file it gathered, the
	// baseline's BM25 order over every source file.
	Rank Rank
}

// BudgetResult is ctxd's and the baseline's score at one budget.
type BudgetResult struct {
	Budget        int
	ContextBudget int // the context part of Budget, which both methods fill
	Ctxd, BM25    Score
}

// Report is the result of a recall run.
type Report struct {
	Repo    string
	Cases   int
	Budgets []BudgetResult
	// Misses are, per budget, the cases ctxd did not find whole.
	Misses   map[int][]Miss
	Duration time.Duration
	// HistoryFailures counts the commits whose line histories (the
	// history rule of the focus ladder) could not be read: their requests
	// ranked without them, so the cells are not the history's.
	HistoryFailures int `json:",omitempty"`
	// ParseTimeouts and GitTimeouts count the tree-sitter parses and git
	// commands that ran out of time even so: eval lifts the limits a
	// request has (patience.Unbounded), so that its cells do not depend on
	// the machine's load; a count above zero says some still may.
	ParseTimeouts int `json:",omitempty"`
	GitTimeouts   int `json:",omitempty"`
}

// openEngine opens the engine on the worktree wt, checked out at the
// commit a case or an instance is asked at, and reads before any request
// what the daemon's background analysis reads once per HEAD: the line
// histories of wt's HEAD (that commit's: no later one is seen), which the
// focus ladder's history rule reads (engine/defhistory.go). Recall and
// SWEBench both open their engines here, so both measure the rule. A
// failed read is logged and histOK is false: the engine is still returned
// and its requests rank without the histories, as a daemon's do when its
// read failed. err is an engine that did not open, or ctx's end.
func openEngine(ctx context.Context, wt string, cfg *config.Config, log *slog.Logger, opts engine.Options) (eng *engine.Engine, histOK bool, err error) {
	opts.Config, opts.Logger = cfg, log
	eng, err = engine.New(wt, opts)
	if err != nil {
		return nil, false, err
	}
	if err := eng.ReadLineHistories(ctx); err != nil {
		if ctx.Err() != nil {
			eng.Close()
			return nil, false, ctx.Err()
		}
		log.Warn("line histories not read", "err", err)
		return eng, false, nil
	}
	return eng, true, nil
}

// Miss is a case ctxd did not find every file of.
type Miss struct {
	Commit  string
	Subject string
	Missing []string
	// Why says, per missing file, whether it was gathered and skipped
	// (with the fitter's reason) or not gathered at all.
	Why []string
}

// Recall replays the eligible commits of the repository at repo and
// measures, at each budget, how many of each commit's modified source
// files ctxd puts into the context built for the commit message, beside a
// BM25-over-source baseline that fills the same context budget with whole
// files in rank order.
func Recall(ctx context.Context, repo string, opts Options) (*Report, error) {
	start := time.Now()
	if opts.Commits <= 0 {
		opts.Commits = 50
	}
	if len(opts.Budgets) == 0 {
		opts.Budgets = []int{8000, 32000}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	repo, err := filepath.Abs(repo)
	if err != nil {
		return nil, err
	}
	// Eval's parses and git commands run without a request's time limits
	// (a parse past treesitter.DefaultTimeout on a loaded machine gives a
	// head-and-tail cut where a quiet one does not): the same cells on
	// both; tl counts what times out anyway.
	var tl patience.Tally
	ctx = patience.Unbounded(ctx, &tl)
	cases, err := CasesAfter(ctx, repo, opts.Skip, opts.Commits)
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no eligible commits in %s (see docs/eval.md for the rules)", repo)
	}
	tmp, err := os.MkdirTemp("", "ctxd-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "wt")
	if err := git(ctx, repo, "worktree", "add", "--detach", "--quiet", wt, cases[0].Parent); err != nil {
		return nil, err
	}
	defer func() {
		_ = git(context.WithoutCancel(ctx), repo, "worktree", "remove", "--force", wt)
	}()
	// The user's configuration and state stay out of the measurement.
	cfg := config.Default()

	counter, _ := tokens.ForModel(cfg.Model, 0)
	ct := make([]tally, len(opts.Budgets))
	bt := make([]tally, len(opts.Budgets))
	cr := make([]rankTally, len(opts.Budgets))
	br := make([]rankTally, len(opts.Budgets))
	ctxBudgets := make([]int, len(opts.Budgets))
	rep := &Report{Repo: repo, Cases: len(cases), Misses: map[int][]Miss{}}
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if opts.Step != nil {
			opts.Step(i, len(cases), c.Commit)
		}
		timeouts := tl.ParseTimeouts() + tl.GitTimeouts() // before the engine reads the histories
		if err := git(ctx, wt, "checkout", "--detach", "--quiet", "--force", c.Parent); err != nil {
			return nil, err
		}
		eng, histOK, err := openEngine(ctx, wt, cfg, log.With("commit", c.Commit), engine.Options{Fusion: opts.Fusion, Links: opts.Links})
		if err != nil {
			return nil, err
		}
		if !histOK {
			rep.HistoryFailures++
		}
		changed, err := changedLines(ctx, wt, c)
		if err != nil {
			eng.Close()
			return nil, err
		}
		var ranks map[string]int // lexical ranks of this case, computed on the first miss
		base, err := newBaseline(wt)
		if err != nil {
			eng.Close()
			return nil, err
		}
		bmRanked := base.rank(c.Request)
		bmRanks := listRanks(bmRanked)
		line := fmt.Sprintf("%3d/%d %s", i+1, len(cases), c.Commit[:12])
		for bi, b := range opts.Budgets {
			req := engine.PromptRequest{
				UserRequest: c.Request,
				TokenBudget: &engine.BudgetRequest{Total: b},
			}
			if opts.Oracle {
				for _, a := range c.Answer {
					req.OpenFiles = append(req.OpenFiles, ctxd.OpenFile{Path: a})
				}
			}
			var scored []ctxd.Chunk
			if opts.Features != nil {
				req.Scored = func(cs []ctxd.Chunk) { scored = slices.Clone(cs) }
			}
			var fc FitCase
			if opts.Fits != nil {
				req.Fitting = fittingHook(ctx, &fc)
			}
			env, err := eng.Gather(ctx, req, nil)
			if err != nil {
				eng.Close()
				return nil, fmt.Errorf("commit %s: %w", c.Commit, err)
			}
			if opts.Features != nil {
				if err := writeFeatures(opts.Features, featureCase(i, c, b, scored, env)); err != nil {
					eng.Close()
					return nil, err
				}
			}
			ctxBudgets[bi] = env.Context.Budget
			in := map[string]bool{}
			for _, ch := range env.Context.Chunks {
				if ch.Content != "" {
					in[ch.Source] = true
				}
			}
			_, full, _ := shown(env.Context.Chunks, c.Answer)
			skipped := map[string]string{}
			for _, sk := range env.Context.Skipped {
				skipped[sk.Source] = sk.Reason
			}
			var missing, why []string
			for _, a := range c.Answer {
				if !in[a] {
					missing = append(missing, a)
					w := "not gathered"
					if r, ok := skipped[a]; ok {
						w = "skipped: " + r
					}
					why = append(why, w+lexicalRank(ctx, eng, c.Request, a, &ranks))
				}
			}
			ct[bi].add(len(c.Answer)-len(missing), full, len(c.Answer))
			fr := fileRanks(env)
			for _, a := range c.Answer {
				cr[bi].add(fr[a])
				br[bi].add(bmRanks[a])
			}
			seen, total := VisibleLines(env.Context.Chunks, changed)
			ct[bi].addLines(seen, total)
			if opts.Fits != nil {
				fc.Case, fc.Commit, fc.Budget, fc.Answer, fc.Changed = i+1, c.Commit, b, c.Answer, changed
				fc.Format, fc.Seen, fc.Total, fc.Found = env.Format, seen, total, len(c.Answer)-len(missing)
				opts.Fits(fc)
			}
			if len(missing) > 0 {
				rep.Misses[b] = append(rep.Misses[b], Miss{Commit: c.Commit, Subject: subject(c.Request), Missing: missing, Why: why})
			}
			got := base.fill(c.Request, counter, env.Context.Budget)
			if opts.Dump != "" {
				if err := dumpCase(opts.Dump, i, c, b, env, changed, got, bmRanked); err != nil {
					eng.Close()
					return nil, err
				}
			}
			found := 0
			for _, a := range c.Answer {
				if slices.Contains(got, a) {
					found++
				}
			}
			bt[bi].add(found, found, len(c.Answer))
			if found == len(c.Answer) {
				bt[bi].addLines(total, total) // whole files
			} else {
				bt[bi].addLines(0, total)
			}
			line += fmt.Sprintf("  %d: ctxd %d/%d bm25 %d/%d lines %d/%d%s", b, len(c.Answer)-len(missing), len(c.Answer), found, len(c.Answer), seen, total, answerViews(env.Context.Chunks, c.Answer))
		}
		eng.Close()
		if n := tl.ParseTimeouts() + tl.GitTimeouts() - timeouts; n > 0 {
			line += fmt.Sprintf(" (%d timeouts)", n)
		}
		if opts.Progress != nil {
			fmt.Fprintln(opts.Progress, line)
		}
	}
	n := float64(len(cases))
	for bi, b := range opts.Budgets {
		res := BudgetResult{
			Budget:        b,
			ContextBudget: ctxBudgets[bi],
			Ctxd:          ct[bi].score(n),
			BM25:          bt[bi].score(n),
		}
		res.Ctxd.Rank, res.BM25.Rank = cr[bi].rank(), br[bi].rank()
		rep.Budgets = append(rep.Budgets, res)
	}
	rep.ParseTimeouts, rep.GitTimeouts = int(tl.ParseTimeouts()), int(tl.GitTimeouts())
	rep.Duration = time.Since(start)
	return rep, nil
}

// printTimeouts writes what timed out in a run, if anything did.
func printTimeouts(w io.Writer, parses, git int) {
	if parses > 0 || git > 0 {
		fmt.Fprintf(w, "%d parses and %d git commands timed out even with eval's limits lifted: cells may depend on the machine's load\n", parses, git)
	}
}

// shown counts the answer files the context shows (found), shows whole
// or with only bodies elided (full: the rule of all-full, in eval recall
// and swebench alike) and shows whole.
func shown(chunks []ctxd.Chunk, answer []string) (found, full, whole int) {
	for _, ch := range chunks {
		if ch.Content == "" || !slices.Contains(answer, ch.Source) {
			continue
		}
		found++
		if !ch.Truncated || ch.Truncation == ctxd.ViewBodies {
			full++
		}
		if !ch.Truncated {
			whole++
		}
	}
	return found, full, whole
}

// answerViews names the view each answer file got, " [a.go=bodies]",
// "-" for a file not in the context.
func answerViews(chunks []ctxd.Chunk, answer []string) string {
	var parts []string
	for _, a := range answer {
		v := "-"
		for _, ch := range chunks {
			if ch.Source == a && ch.Content != "" {
				v = string(ch.Shown())
			}
		}
		parts = append(parts, a+"="+v)
	}
	return " [" + strings.Join(parts, " ") + "]"
}

// tally sums one method's per-case results at one budget.
type tally struct{ recall, all, any, full, lines, lineRecall float64 }

// add counts a case with found of its total answer files in the context,
// full of them whole or at the bodies view.
func (t *tally) add(found, full, total int) {
	t.recall += float64(found) / float64(total)
	if found == total {
		t.all++
	}
	if full == total {
		t.full++
	}
	if found > 0 {
		t.any++
	}
}

// addLines counts a case with seen of its total changed lines visible.
func (t *tally) addLines(seen, total int) {
	if total == 0 {
		t.lines++
		t.lineRecall++
		return
	}
	t.lineRecall += float64(seen) / float64(total)
	if seen == total {
		t.lines++
	}
}

func (t tally) score(n float64) Score {
	return Score{Recall: t.recall / n, All: t.all / n, Any: t.any / n, AllFull: t.full / n, AllLines: t.lines / n, LineRecall: t.lineRecall / n}
}

// lexicalRank returns ", lexical rank N" for file in the workspace's
// lexical ranking against the request ("no lexical match" when absent),
// ranking once per case.
func lexicalRank(ctx context.Context, eng *engine.Engine, request, file string, ranks *map[string]int) string {
	if *ranks == nil {
		*ranks = map[string]int{}
		hits, err := eng.Rank(ctx, request, 0)
		if err != nil {
			return ""
		}
		for i, h := range hits {
			(*ranks)[h.Path] = i + 1
		}
	}
	if r, ok := (*ranks)[file]; ok {
		return fmt.Sprintf(", lexical rank %d", r)
	}
	return ", no lexical match"
}

func subject(req string) string {
	for i, r := range req {
		if r == '\n' {
			return req[:i]
		}
	}
	return req
}

// Print writes a report as a table.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "repo %s: %d commits replayed in %s\n", r.Repo, r.Cases, r.Duration.Round(time.Second))
	printTimeouts(w, r.ParseTimeouts, r.GitTimeouts)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-8s %-8s %-6s %8s %10s %10s %10s %10s %12s\n", "budget", "context", "method", "recall", "all-found", "any-found", "all-full", "all-lines", "line-recall")
	for _, b := range r.Budgets {
		for _, m := range []struct {
			name string
			s    Score
		}{{"ctxd", b.Ctxd}, {"bm25", b.BM25}} {
			fmt.Fprintf(w, "%-8d %-8d %-6s %7.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%% %11.1f%%\n", b.Budget, b.ContextBudget, m.name, 100*m.s.Recall, 100*m.s.All, 100*m.s.Any, 100*m.s.AllFull, 100*m.s.AllLines, 100*m.s.LineRecall)
		}
	}
	fmt.Fprintf(w, "\nanswer rank (share of answer files ranked 1st, in the top 3/5/10; mean rank, past 50 or absent = %d)\n", rankCap)
	fmt.Fprintf(w, "%-8s %-6s %7s %7s %7s %7s %6s\n", "budget", "method", "top1", "top3", "top5", "top10", "mean")
	for _, b := range r.Budgets {
		for _, m := range []struct {
			name string
			r    Rank
		}{{"ctxd", b.Ctxd.Rank}, {"bm25", b.BM25.Rank}} {
			fmt.Fprintf(w, "%-8d %-6s %6.1f%% %6.1f%% %6.1f%% %6.1f%% %6.1f\n", b.Budget, m.name, 100*m.r.Top1, 100*m.r.Top3, 100*m.r.Top5, 100*m.r.Top10, m.r.Mean)
		}
	}
}
