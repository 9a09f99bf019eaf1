// Command fitalloc fits the fitter's value constants (compress.Values: each
// view's quality, the weight's curve over rank and answer odds, the
// presence pass's cut) with eval recall's all-lines as the objective.
//
// Gathering and ranking a case take nearly all of eval's time and do not
// depend on the fitter's constants, so the tool records each case's
// fitter input once (-record: eval.Recall with Options.Fits, the chunks in
// score order with every structural view the engine gave them and the
// case's changed lines, one gob file per repository) and then runs
// compress.Fit again on it for each setting it tries (Options.Values),
// several cases at once, counting the changed
// lines shown by eval's rule (eval.VisibleLines): seconds per setting
// instead of minutes. At the recorded constants the run again gives the
// recorded cells (the tool checks it first and says when not).
//
// Fit only on commits that are not evaluated (-skip 100: the newest 100
// are the evaluation, docs/eval.md), and only on development
// repositories:
//
//	go run ./scripts/fitalloc -record /tmp/x -skip 100 -commits 50 /work/data/gin /work/data/httpx
//	go run ./scripts/fitalloc -rounds 2 /tmp/x/*.gob
//	go run ./scripts/fitalloc -set global.odds=0.8,weight.rankpow=1.25 -nofit /tmp/x/*.gob
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/gob"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
)

// grids are the values the search tries per knob (the current value is
// always one more).
var grids = map[string][]float64{
	"whole":          {0.9, 1.1, 1.25, 1.5},
	"outline":        {0.05, 0.1, 0.2, 0.3},
	"view.base":      {0.1, 0.2, 0.3, 0.4},
	"view.shown":     {0.3, 0.45, 0.8, 1},
	"middle.base":    {0, 0.1},
	"middle.shown":   {0.25, 0.75},
	"focus.more":     {0, 0.05, 0.2, 0.3},
	"focus.shareof":  {1, 1.5, 3, 4},
	"global.more":    {0, 0.25, 0.75, 1},
	"global.odds":    {0.3, 0.45, 0.8, 1},
	"weight.rankpow": {0.5, 0.75, 1.25, 1.5, 2},
	"weight.oddspow": {0, 0.5, 0.75, 1.25, 1.5},
	"weight.test":    {0.25, 0.75, 1},
	"odds.tokens":    {0, 0.2, 0.5},
	"presence.full":  {1, 2, 4, 6},
	"presence.cap":   {0.1, 0.25},
	"presence.scale": {0.5, 0.75, 1.25},
}

func main() {
	record := flag.String("record", "", "record the fitter input of the repositories named as arguments into this directory")
	skip := flag.Int("skip", 100, "with -record: replay the eligible commits after the newest N (eval recall --skip)")
	commits := flag.Int("commits", 50, "with -record: cases per repository")
	budgets := flag.String("budgets", "8000,32000", "with -record: total budgets")
	set := flag.String("set", "", "knob=value,... to start from")
	nofit := flag.Bool("nofit", false, "score the start only")
	rounds := flag.Int("rounds", 1, "passes over the knobs")
	only := flag.String("knobs", "", "search only these knobs (comma-separated)")
	allFound := flag.Float64("found-loss", 0.005, "the most mean all-found a setting may lose against the start")
	jobs := flag.Int("j", 2, "cases fitted at once")
	cv := flag.Bool("cv", false, "fit once per repository left out and score it")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *record != "" {
		var bs []int
		for _, s := range strings.Split(*budgets, ",") {
			b, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				fail(err)
			}
			bs = append(bs, b)
		}
		for _, repo := range flag.Args() {
			rep, err := recordRepo(ctx, repo, *record, eval.Options{Skip: *skip, Commits: *commits, Budgets: bs})
			if err != nil {
				fail(err)
			}
			rep.Print(os.Stdout)
		}
		return
	}
	vals := compress.DefaultValues()
	if err := setKnobs(&vals, *set); err != nil {
		fail(err)
	}
	var sets []*caseSet
	for _, p := range flag.Args() {
		s, err := load(p)
		if err != nil {
			fail(err)
		}
		sets = append(sets, s)
	}
	if len(sets) == 0 {
		fail(errors.New("no recorded cases: name the -record output files"))
	}
	r := &runner{sets: sets, jobs: *jobs, counter: counter()}
	start, err := r.score(ctx, vals)
	if err != nil {
		fail(err)
	}
	if n := r.mismatches; n > 0 && *set == "" {
		fmt.Printf("warning: %d cases differ from their recorded fit at the recorded constants\n", n)
	}
	fmt.Printf("start %s\n  %s\n", current(vals), start)
	if *nofit {
		return
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	} else {
		for _, k := range vals.Knobs() {
			names = append(names, k.Name)
		}
	}
	s := search{names: names, rounds: *rounds, foundLoss: *allFound}
	if *cv {
		// Each repository left out: fit on the others, score it at the
		// start and at their fit.
		for k, held := range sets {
			h := &runner{sets: []*caseSet{held}, jobs: *jobs, counter: r.counter}
			before, err := h.score(ctx, vals)
			if err != nil {
				fail(err)
			}
			rest := &runner{sets: slices.Delete(slices.Clone(sets), k, k+1), jobs: *jobs, counter: r.counter}
			_, fit, err := s.run(ctx, rest, vals, io.Discard)
			if err != nil {
				fail(err)
			}
			after, err := h.score(ctx, fit)
			if err != nil {
				fail(err)
			}
			fmt.Printf("held out %s: fit %s\n  before %s\n  after  %s\n", held.name, current(fit), before, after)
		}
		return
	}
	best, fit, err := s.run(ctx, r, vals, os.Stdout)
	if err != nil {
		fail(err)
	}
	fmt.Printf("best %s\n  %s\n", current(fit), best)
}

// search is a coordinate search over knobs: each in turn set to each of
// its grid's values, the best kept, for rounds passes or until a pass
// gains nothing; a setting that loses more than foundLoss of mean
// all-found against the start is never kept.
type search struct {
	names     []string
	rounds    int
	foundLoss float64
}

// run searches from vals and returns the best metrics and the values
// that gave them.
func (s search) run(ctx context.Context, r *runner, vals compress.Values, w io.Writer) (metrics, compress.Values, error) {
	start, err := r.score(ctx, vals)
	if err != nil {
		return start, vals, err
	}
	best := start
	for range s.rounds {
		improved := false
		for _, name := range s.names {
			k := knob(&vals, name)
			if k == nil {
				return best, vals, fmt.Errorf("no knob %q", name)
			}
			keep := *k.P
			for _, v := range grids[name] {
				if v == keep {
					continue
				}
				*k.P = v
				m, err := r.score(ctx, vals)
				if err != nil {
					return best, vals, err
				}
				ok := m.found >= start.found-s.foundLoss
				fmt.Fprintf(w, "try %s=%g  %s%s\n", name, v, m, map[bool]string{false: "  (all-found down)"}[ok])
				if ok && m.objective() > best.objective()+1e-9 {
					best, keep, improved = m, v, true
				}
			}
			*k.P = keep
			fmt.Fprintf(w, "keep %s=%g  objective %.4f\n", name, keep, best.objective())
		}
		if !improved {
			break
		}
	}
	return best, vals, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fitalloc:", err)
	os.Exit(1)
}

func counter() tokens.Counter {
	c, _ := tokens.ForModel(config.Default().Model, 0)
	return c
}

// knob returns v's knob by name, nil when there is none.
func knob(v *compress.Values, name string) *compress.Knob {
	for _, k := range v.Knobs() {
		if k.Name == name {
			return &k
		}
	}
	return nil
}

// setKnobs sets "name=value,..." in v.
func setKnobs(v *compress.Values, s string) error {
	for _, kv := range strings.Split(s, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		name, val, _ := strings.Cut(kv, "=")
		k := knob(v, name)
		if k == nil {
			return fmt.Errorf("no knob %q", name)
		}
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", kv, err)
		}
		*k.P = x
	}
	return nil
}

// current returns v's knobs as "name=value ...".
func current(v compress.Values) string {
	var b strings.Builder
	for _, k := range v.Knobs() {
		fmt.Fprintf(&b, "%s=%g ", k.Name, *k.P)
	}
	return strings.TrimSpace(b.String())
}

// recordRepo replays repo's cases with eval.Recall and writes every
// case's fitter input to dir/<repo's base name>.gob (gzipped gob, one
// eval.FitCase after another).
func recordRepo(ctx context.Context, repo, dir string, opts eval.Options) (*eval.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(repo))
	f, err := os.Create(filepath.Join(dir, name+".gob"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	enc := gob.NewEncoder(zw)
	var encErr error
	opts.Fits = func(fc eval.FitCase) {
		if encErr == nil {
			encErr = enc.Encode(&fc)
		}
	}
	rep, err := eval.Recall(ctx, repo, opts)
	if err != nil {
		return nil, err
	}
	if encErr != nil {
		return nil, encErr
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return rep, f.Close()
}

// caseSet is one repository's recorded cases.
type caseSet struct {
	name  string
	cases []eval.FitCase
	views []map[string][]compress.View // by case: each chunk's views by source
}

func load(path string) (*caseSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dec := gob.NewDecoder(zr)
	s := &caseSet{name: strings.TrimSuffix(filepath.Base(path), ".gob")}
	for {
		var fc eval.FitCase
		if err := dec.Decode(&fc); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		vs := make(map[string][]compress.View, len(fc.Chunks))
		for i, c := range fc.Chunks {
			if i < len(fc.Views) {
				vs[c.Source] = fc.Views[i]
			}
		}
		fc.Views = nil
		s.cases = append(s.cases, fc)
		s.views = append(s.views, vs)
	}
	return s, nil
}

// runner fits every recorded case again (score, at the values given).
type runner struct {
	sets       []*caseSet
	jobs       int
	counter    tokens.Counter
	mismatches int // cases whose last run differs from their record
}

// cell is one repository's result at one budget.
type cell struct {
	cases                   int
	found, lines, lineShare float64
}

// metrics are a run's cells and their means over repositories and
// budgets (every repository counts alike, as tab.py's mean).
type metrics struct {
	cells              map[string]map[int]*cell
	found, lines, recl float64
}

// objective is what the search maximises: mean all-lines, with a
// quarter of mean line-recall to break ties between settings that show
// every line of as many cases.
func (m metrics) objective() float64 { return m.lines + 0.25*m.recl }

func (m metrics) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "objective %.4f  found %.2f lines %.2f recall %.2f |", m.objective(), 100*m.found, 100*m.lines, 100*m.recl)
	names := make([]string, 0, len(m.cells))
	for n := range m.cells {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, " %s", n)
		bs := make([]int, 0)
		for bud := range m.cells[n] {
			bs = append(bs, bud)
		}
		slices.Sort(bs)
		for k, bud := range bs {
			c := m.cells[n][bud]
			sep := "="
			if k > 0 {
				sep = "/"
			}
			fmt.Fprintf(&b, "%s%.0f", sep, 100*c.lines/float64(c.cases))
		}
	}
	return b.String()
}

// score fits every case again at vals and returns the metrics.
func (r *runner) score(ctx context.Context, vals compress.Values) (metrics, error) {
	type job struct{ s, k int }
	type res struct {
		seen, total, found int
		same               bool
	}
	var jobs []job
	out := make([][]res, len(r.sets))
	for s, set := range r.sets {
		out[s] = make([]res, len(set.cases))
		for k := range set.cases {
			jobs = append(jobs, job{s, k})
		}
	}
	// The largest first, so no core waits on one at the end.
	slices.SortStableFunc(jobs, func(a, b job) int {
		return cmp.Compare(len(r.sets[b.s].cases[b.k].Chunks), len(r.sets[a.s].cases[a.k].Chunks))
	})
	ch := make(chan job)
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	for range max(r.jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				fc := &r.sets[j.s].cases[j.k]
				seen, total, found, err := refit(ctx, fc, r.sets[j.s].views[j.k], r.counter, &vals)
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
					continue
				}
				out[j.s][j.k] = res{seen, total, found, seen == fc.Seen && total == fc.Total && found == fc.Found}
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		ch <- j
	}
	close(ch)
	wg.Wait()
	if err := cmp.Or(firstErr, ctx.Err()); err != nil {
		return metrics{}, err
	}
	m := metrics{cells: map[string]map[int]*cell{}}
	r.mismatches = 0
	for s, set := range r.sets {
		m.cells[set.name] = map[int]*cell{}
		for k, fc := range set.cases {
			c := m.cells[set.name][fc.Budget]
			if c == nil {
				c = &cell{}
				m.cells[set.name][fc.Budget] = c
			}
			o := out[s][k]
			if !o.same {
				r.mismatches++
			}
			c.cases++
			if o.found == len(fc.Answer) {
				c.found++
			}
			if o.seen == o.total {
				c.lines++
			}
			if o.total == 0 {
				c.lineShare++
			} else {
				c.lineShare += float64(o.seen) / float64(o.total)
			}
		}
	}
	n := 0
	for _, bs := range m.cells {
		for _, c := range bs {
			m.found += c.found / float64(c.cases)
			m.lines += c.lines / float64(c.cases)
			m.recl += c.lineShare / float64(c.cases)
			n++
		}
	}
	if n > 0 {
		m.found /= float64(n)
		m.lines /= float64(n)
		m.recl /= float64(n)
	}
	return m, nil
}

// refit runs compress.Fit on a recorded case (views: its chunks' views
// by source) at vals and counts what eval counts: the changed lines
// shown, all of them, and the answer files placed.
func refit(ctx context.Context, fc *eval.FitCase, views map[string][]compress.View, counter tokens.Counter, vals *compress.Values) (seen, total, found int, err error) {
	format := fc.Format
	got, err := compress.Fit(ctx, fc.Chunks, compress.Options{
		Budget:  fc.ContextBudget,
		Counter: counter,
		Render:  func(c ctxd.Chunk) string { return prompt.Section(c, format) },
		AppendRender: func(dst []byte, c ctxd.Chunk) []byte {
			return prompt.AppendSection(dst, c, format)
		},
		Views:  func(_ context.Context, c *ctxd.Chunk) []compress.View { return views[c.Source] },
		Task:   fc.Task,
		Values: vals,
	})
	if err != nil {
		return 0, 0, 0, err
	}
	seen, total = eval.VisibleLines(got.Chunks, fc.Changed)
	for _, c := range got.Chunks {
		if c.Content != "" && slices.Contains(fc.Answer, c.Source) {
			found++
		}
	}
	return seen, total, found, nil
}
