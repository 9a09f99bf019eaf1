package eval

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/patience"
	"github.com/ctxd/ctxd/tokens"
)

// Instance is one SWE-bench task: an issue of a repository at a commit,
// and the gold patch that resolved it (docs/eval.md).
type Instance struct {
	Repo             string `json:"repo"`
	InstanceID       string `json:"instance_id"`
	BaseCommit       string `json:"base_commit"`
	ProblemStatement string `json:"problem_statement"`
	Patch            string `json:"patch"`
}

// ReadInstances reads SWE-bench instances in any of the dataset's forms:
// JSON lines, a JSON array, or CSV with a header row. Each instance needs
// a repo, a base_commit, a problem_statement and a patch.
func ReadInstances(r io.Reader) ([]Instance, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []Instance
	switch t := bytes.TrimSpace(data); {
	case len(t) == 0:
		return nil, errors.New("no instances: the file is empty")
	case t[0] == '[':
		if err := json.Unmarshal(t, &out); err != nil {
			return nil, fmt.Errorf("read the JSON array: %w", err)
		}
	case t[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(t))
		for dec.More() {
			var in Instance
			if err := dec.Decode(&in); err != nil {
				return nil, fmt.Errorf("read JSON line %d: %w", len(out)+1, err)
			}
			out = append(out, in)
		}
	default:
		if out, err = readCSV(t); err != nil {
			return nil, err
		}
	}
	for i, in := range out {
		var missing []string
		for _, f := range []struct{ name, v string }{{"repo", in.Repo}, {"base_commit", in.BaseCommit}, {"problem_statement", in.ProblemStatement}, {"patch", in.Patch}} {
			if strings.TrimSpace(f.v) == "" {
				missing = append(missing, f.name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("instance %d (%q) has no %s", i+1, in.InstanceID, strings.Join(missing, ", "))
		}
		if out[i].InstanceID == "" {
			out[i].InstanceID = fmt.Sprintf("%s#%d", in.Repo, i+1)
		}
	}
	return out, nil
}

// readCSV reads instances from CSV with a header row naming the fields.
func readCSV(data []byte) ([]Instance, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read the CSV header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range []string{"repo", "base_commit", "problem_statement", "patch"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the CSV header has no %q column (want repo, instance_id, base_commit, problem_statement, patch; or JSON lines)", need)
		}
	}
	field := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var out []Instance
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read CSV: %w", err)
		}
		out = append(out, Instance{
			Repo:             field(rec, "repo"),
			InstanceID:       field(rec, "instance_id"),
			BaseCommit:       field(rec, "base_commit"),
			ProblemStatement: field(rec, "problem_statement"),
			Patch:            field(rec, "patch"),
		})
	}
}

// ClonesIn returns the clones under dir of the instances' repositories,
// named as SWE-bench names them: owner/name in dir/owner__name.
func ClonesIn(dir string, instances []Instance) map[string]string {
	repos := map[string]string{}
	for _, in := range instances {
		p := filepath.Join(dir, strings.ReplaceAll(in.Repo, "/", "__"))
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			repos[in.Repo] = p
		}
	}
	return repos
}

// SWEOptions configure a SWE-bench run.
type SWEOptions struct {
	// Repos maps a repository name as the instances spell it
	// ("owner/name") to a local clone holding its base commits.
	// Instances of other repositories are skipped.
	Repos map[string]string
	// Budgets are the total token budgets (default 13000, 27000 and
	// 50000, the published table's).
	Budgets []int
	// PerRepo is the most instances to run per repository, in file order
	// (0: all).
	PerRepo  int
	Progress io.Writer
	Logger   *slog.Logger
}

// SWEScore is one method's score at one budget over a set of instances.
// Of Score, All is "every edited file present (any view)", AllFull every
// edited file whole or at the bodies view, AllLines every changed line
// visible; AllWhole is every edited file whole (no part elided).
type SWEScore struct {
	Score
	AllWhole float64
}

// SWEBudget is ctxd's and the baseline's score at one budget. BM25 fills
// the context budget ctxd fills; BM25Prompt fills the whole budget less
// the issue's tokens, as the published SWE-bench table does (its budget
// covers the prompt, not the context alone).
type SWEBudget struct {
	Budget                 int
	ContextBudget          int
	Ctxd, BM25, BM25Prompt SWEScore
}

// SWEGroup is the score of one repository's instances, or of all.
type SWEGroup struct {
	Repo      string
	Instances int
	Budgets   []SWEBudget
}

// SWEOutcome is one method's result on one instance at one budget.
type SWEOutcome struct {
	Found, Full, Whole int    // edited files present, whole or bodies, whole
	Seen               int    // changed lines visible
	Views              string `json:",omitempty"` // ctxd's view of each edited file
}

// SWEResult is one instance's result.
type SWEResult struct {
	InstanceID string
	Repo       string
	Files      []string // the edited files (existing at the base commit)
	Lines      int      // changed lines
	// Unplaced counts hunks whose text was not found at the base commit;
	// their lines are taken from the hunk header.
	Unplaced               int `json:",omitempty"`
	Budgets                []int
	ContextBudget          []int
	Ctxd, BM25, BM25Prompt []SWEOutcome
	// NoHistory is set when the base commit's line histories could not
	// be read: ctxd's requests ranked without the history rule.
	NoHistory bool `json:",omitempty"`
	// Timeouts counts the parses and git commands of the instance that
	// ran out of time even with eval's limits lifted (see Report's).
	Timeouts int    `json:",omitempty"`
	Err      string `json:",omitempty"`
}

// SWEReport is the result of a SWE-bench run.
type SWEReport struct {
	Instances int
	Repos     []SWEGroup // per repository, in file order
	Total     SWEGroup
	// Skipped counts, per repository, the instances with no clone given
	// or past PerRepo; Failed the instances that could not be run (see
	// their Err).
	Skipped map[string]int `json:",omitempty"`
	Failed  int            `json:",omitempty"`
	// HistoryFailures counts the instances run without their base
	// commit's line histories (SWEResult.NoHistory), as Report's does.
	HistoryFailures int `json:",omitempty"`
	// ParseTimeouts and GitTimeouts are Report's.
	ParseTimeouts int `json:",omitempty"`
	GitTimeouts   int `json:",omitempty"`
	Results       []SWEResult
	Duration      time.Duration
}

// SWEBench runs ctxd's pipeline on each instance, the problem statement as
// the request, at its base commit (checked out in a temporary worktree of
// the repository's clone, whose own checkout is never touched), and
// measures whether the context holds every file the gold patch edits and
// every line it changes, beside the BM25 whole-file baseline filling the
// same context budget.
func SWEBench(ctx context.Context, instances []Instance, opts SWEOptions) (*SWEReport, error) {
	start := time.Now()
	if len(opts.Budgets) == 0 {
		opts.Budgets = []int{13000, 27000, 50000}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rep := &SWEReport{Skipped: map[string]int{}}
	var tl patience.Tally
	ctx = patience.Unbounded(ctx, &tl) // as Recall's
	var order []string
	byRepo := map[string][]Instance{}
	for _, in := range instances {
		if _, ok := opts.Repos[in.Repo]; !ok || opts.PerRepo > 0 && len(byRepo[in.Repo]) >= opts.PerRepo {
			rep.Skipped[in.Repo]++
			continue
		}
		if byRepo[in.Repo] == nil {
			order = append(order, in.Repo)
		}
		byRepo[in.Repo] = append(byRepo[in.Repo], in)
		rep.Instances++
	}
	if rep.Instances == 0 {
		return nil, fmt.Errorf("no instance has a clone given: the instances' repositories are %s", strings.Join(slices.Sorted(maps.Keys(rep.Skipped)), ", "))
	}
	tmp, err := os.MkdirTemp("", "ctxd-swebench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cfg := config.Default()
	counter, _ := tokens.ForModel(cfg.Model, 0)
	n := 0
	for ri, repo := range order {
		clone, err := filepath.Abs(opts.Repos[repo])
		if err != nil {
			return nil, err
		}
		wt := filepath.Join(tmp, fmt.Sprint("wt", ri))
		if err := git(ctx, clone, "worktree", "add", "--detach", "--no-checkout", "--quiet", wt, "HEAD"); err != nil {
			return nil, fmt.Errorf("repository %s: %w", repo, err)
		}
		for _, in := range byRepo[repo] {
			if err := ctx.Err(); err != nil {
				_ = git(context.WithoutCancel(ctx), clone, "worktree", "remove", "--force", wt)
				return nil, err
			}
			n++
			timeouts := tl.ParseTimeouts() + tl.GitTimeouts()
			res := runInstance(ctx, wt, in, opts.Budgets, cfg, counter, log)
			res.Timeouts = int(tl.ParseTimeouts() + tl.GitTimeouts() - timeouts)
			rep.Results = append(rep.Results, res)
			if res.Err != "" {
				rep.Failed++
			}
			if res.NoHistory {
				rep.HistoryFailures++
			}
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "%3d/%d %s\n", n, rep.Instances, res.line())
			}
		}
		if err := git(context.WithoutCancel(ctx), clone, "worktree", "remove", "--force", wt); err != nil {
			log.Warn("remove the temporary worktree", "repo", repo, "err", err)
		}
	}
	for _, repo := range order {
		rep.Repos = append(rep.Repos, group(repo, rep.Results, opts.Budgets))
	}
	rep.Total = group("", rep.Results, opts.Budgets)
	rep.ParseTimeouts, rep.GitTimeouts = int(tl.ParseTimeouts()), int(tl.GitTimeouts())
	rep.Duration = time.Since(start)
	return rep, nil
}

// runInstance measures one instance in the worktree wt.
func runInstance(ctx context.Context, wt string, in Instance, budgets []int, cfg *config.Config, counter tokens.Counter, log *slog.Logger) SWEResult {
	res := SWEResult{InstanceID: in.InstanceID, Repo: in.Repo, Budgets: budgets}
	fail := func(err error) SWEResult {
		res.Err = err.Error()
		return res
	}
	if err := checkout(ctx, wt, in.BaseCommit); err != nil {
		return fail(err)
	}
	hunks := parseHunks([]byte(in.Patch))
	old := map[string][]string{}
	for _, h := range hunks {
		if _, ok := old[h.file]; ok {
			continue
		}
		text, err := os.ReadFile(filepath.Join(wt, filepath.FromSlash(h.file)))
		if err != nil {
			return fail(fmt.Errorf("edited file %s at the base commit: %w", h.file, err))
		}
		old[h.file] = strings.Split(string(text), "\n")
		res.Files = append(res.Files, h.file)
	}
	if len(res.Files) == 0 {
		return fail(errors.New("the patch edits no existing file"))
	}
	changed, unplaced := hunkLines(hunks, func(f string) []string { return old[f] })
	res.Unplaced = unplaced
	for _, ls := range changed {
		res.Lines += len(ls)
	}
	eng, histOK, err := openEngine(ctx, wt, cfg, log.With("instance", in.InstanceID), engine.Options{})
	if err != nil {
		return fail(err)
	}
	defer eng.Close()
	res.NoHistory = !histOK
	base, err := newBaseline(wt)
	if err != nil {
		return fail(err)
	}
	issue := counter.Count(in.ProblemStatement)
	for _, b := range budgets {
		env, err := eng.Gather(ctx, engine.PromptRequest{
			UserRequest: in.ProblemStatement,
			TokenBudget: &engine.BudgetRequest{Total: b},
		}, nil)
		if err != nil {
			return fail(err)
		}
		res.ContextBudget = append(res.ContextBudget, env.Context.Budget)
		var c SWEOutcome
		c.Found, c.Full, c.Whole = shown(env.Context.Chunks, res.Files)
		c.Seen, _ = VisibleLines(env.Context.Chunks, changed)
		c.Views = answerViews(env.Context.Chunks, res.Files)
		res.Ctxd = append(res.Ctxd, c)
		res.BM25 = append(res.BM25, baselineOutcome(base.fill(in.ProblemStatement, counter, env.Context.Budget), res.Files, changed))
		res.BM25Prompt = append(res.BM25Prompt, baselineOutcome(base.fill(in.ProblemStatement, counter, max(b-issue, 0)), res.Files, changed))
	}
	return res
}

// baselineOutcome scores the baseline's files: whole, nothing elided.
func baselineOutcome(got, files []string, changed map[string][]int) SWEOutcome {
	var o SWEOutcome
	var whole []ctxd.Chunk
	for _, p := range got {
		if slices.Contains(files, p) {
			o.Found++
			whole = append(whole, ctxd.Chunk{Source: p, Content: p})
		}
	}
	o.Full, o.Whole = o.Found, o.Found
	o.Seen, _ = VisibleLines(whole, changed)
	return o
}

// checkout checks out commit in the worktree wt. A clone that lacks some
// blobs (a snapshot that leaves out very large files) cannot check out
// every commit; then the missing files are left out of the worktree with
// a sparse checkout of this worktree alone (its own info/sparse-checkout,
// the setting given on the command line: the clone's configuration is
// not touched), and the rest is checked out.
func checkout(ctx context.Context, wt, commit string) error {
	gitDir, err := exec.CommandContext(ctx, "git", "-C", wt, "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		return fmt.Errorf("git rev-parse in %s: %w", wt, gitErr(err))
	}
	sparse := filepath.Join(strings.TrimSpace(string(gitDir)), "info", "sparse-checkout")
	if err := os.MkdirAll(filepath.Dir(sparse), 0o755); err != nil {
		return err
	}
	patterns := "/*\n"
	if err := os.WriteFile(sparse, []byte(patterns), 0o644); err != nil {
		return err
	}
	co := func() error {
		return git(ctx, wt, "-c", "core.sparseCheckout=true", "-c", "core.sparseCheckoutCone=false", "checkout", "--detach", "--quiet", "--force", commit)
	}
	err = co()
	if err == nil {
		return nil
	}
	missing, merr := missingBlobs(ctx, wt, commit)
	if merr != nil || len(missing) == 0 {
		return err
	}
	for _, p := range missing {
		patterns += "!/" + escapePattern(p) + "\n"
	}
	if err := os.WriteFile(sparse, []byte(patterns), 0o644); err != nil {
		return err
	}
	return co()
}

// missingBlobs lists the files of commit whose blobs the repository lacks.
func missingBlobs(ctx context.Context, dir, commit string) ([]string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "ls-tree", "-r", "-z", commit).Output()
	if err != nil {
		return nil, gitErr(err)
	}
	var oids, paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			oids = append(oids, f[2])
			paths = append(paths, path)
		}
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	out, err = cmd.Output()
	if err != nil {
		return nil, gitErr(err)
	}
	missing := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if oid, ok := strings.CutSuffix(l, " missing"); ok {
			missing[oid] = true
		}
	}
	var got []string
	for i, oid := range oids {
		if missing[oid] {
			got = append(got, paths[i])
		}
	}
	return got, nil
}

// escapePattern escapes the gitignore pattern characters of a path.
func escapePattern(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// line is an instance's progress line.
func (r SWEResult) line() string {
	if r.Err != "" {
		return r.InstanceID + " error: " + r.Err
	}
	s := r.InstanceID
	for i, b := range r.Budgets {
		c, m := r.Ctxd[i], r.BM25[i]
		s += fmt.Sprintf("  %d: ctxd %d/%d lines %d/%d bm25 %d/%d lines %d/%d", b, c.Found, len(r.Files), c.Seen, r.Lines, m.Found, len(r.Files), m.Seen, r.Lines)
	}
	if len(r.Ctxd) > 0 {
		s += r.Ctxd[len(r.Ctxd)-1].Views
	}
	if r.Unplaced > 0 {
		s += fmt.Sprintf(" (%d hunks placed by header)", r.Unplaced)
	}
	if r.Timeouts > 0 {
		s += fmt.Sprintf(" (%d timeouts)", r.Timeouts)
	}
	return s
}

// group scores the results of repo ("" for all) that ran without error.
func group(repo string, results []SWEResult, budgets []int) SWEGroup {
	g := SWEGroup{Repo: repo}
	t := make([][3]tally, len(budgets))   // ctxd, bm25, bm25 at the prompt budget
	w := make([][3]float64, len(budgets)) // every edited file whole
	ctxBudgets := make([]int, len(budgets))
	for _, r := range results {
		if r.Err != "" || repo != "" && r.Repo != repo {
			continue
		}
		g.Instances++
		nf := len(r.Files)
		for i := range budgets {
			ctxBudgets[i] = r.ContextBudget[i]
			for m, o := range []SWEOutcome{r.Ctxd[i], r.BM25[i], r.BM25Prompt[i]} {
				t[i][m].add(o.Found, o.Full, nf)
				t[i][m].addLines(o.Seen, r.Lines)
				if o.Whole == nf {
					w[i][m]++
				}
			}
		}
	}
	n := float64(max(g.Instances, 1))
	for i, b := range budgets {
		s := func(m int) SWEScore { return SWEScore{Score: t[i][m].score(n), AllWhole: w[i][m] / n} }
		g.Budgets = append(g.Budgets, SWEBudget{Budget: b, ContextBudget: ctxBudgets[i], Ctxd: s(0), BM25: s(1), BM25Prompt: s(2)})
	}
	return g
}

// Print writes the report as per-repository and total tables, one per
// budget.
func (r *SWEReport) Print(w io.Writer) {
	fmt.Fprintf(w, "%d instances in %s", r.Instances, r.Duration.Round(time.Second))
	if r.Failed > 0 {
		fmt.Fprintf(w, ", %d failed (see --json or -v)", r.Failed)
	}
	if r.HistoryFailures > 0 {
		fmt.Fprintf(w, ", %d without line histories", r.HistoryFailures)
	}
	fmt.Fprintln(w)
	printTimeouts(w, r.ParseTimeouts, r.GitTimeouts)
	for _, repo := range slices.Sorted(maps.Keys(r.Skipped)) {
		fmt.Fprintf(w, "skipped %d instances of %s\n", r.Skipped[repo], repo)
	}
	for bi := range r.Total.Budgets {
		b := r.Total.Budgets[bi]
		fmt.Fprintf(w, "\nbudget %d (context %d)   ctxd: found  whole  full   lines  line-recall   bm25: found  lines  line-recall   bm25 at the prompt budget: found\n", b.Budget, b.ContextBudget)
		rows := append(slices.Clone(r.Repos), r.Total)
		for _, g := range rows {
			name := g.Repo
			if name == "" {
				name = "total"
			}
			s := g.Budgets[bi]
			fmt.Fprintf(w, "%-30s %4d %11.1f%% %5.1f%% %5.1f%% %6.1f%% %10.1f%% %14.1f%% %5.1f%% %10.1f%% %30.1f%%\n", name, g.Instances,
				100*s.Ctxd.All, 100*s.Ctxd.AllWhole, 100*s.Ctxd.AllFull, 100*s.Ctxd.AllLines, 100*s.Ctxd.LineRecall,
				100*s.BM25.All, 100*s.BM25.AllLines, 100*s.BM25.LineRecall, 100*s.BM25Prompt.All)
		}
	}
}
