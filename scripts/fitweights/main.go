// Command fitweights fits the weights of the link signals (graph and
// co-change: prioritize.FusionWeights and tree.LinkOptions, given to the
// replay as eval.Options.Fusion and Links) by coordinate search on
// a development set, with `ctxd eval recall`'s replay (package eval) as
// the objective: the mean over the repositories of all-files-found at each
// budget. The large repositories count as much as the others together
// when -large names them, so that the search cannot trade the large
// repository for the small ones or the reverse.
//
// Repositories come from the environment, never from the code: only the
// development set may be fit on (see docs/eval.md).
//
//	CTXD_FIT_REPOS=/work/data/gin-gonic+gin,/work/data/psf+requests \
//	CTXD_FIT_LARGE=/work/data/hashicorp+terraform \
//	go run ./scripts/fitweights -commits 50 -rounds 2
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/prioritize"
	"github.com/ctxd/ctxd/workspace/tree"
)

// weights are what the search moves, from the defaults.
type weights struct {
	fusion prioritize.FusionWeights
	links  tree.LinkOptions
}

// param is one weight the search moves.
type param struct {
	name   string
	values []float64
	get    func(*weights) float64
	set    func(*weights, float64)
}

func params() []param {
	return []param{
		{"fusion.graph", []float64{0, 75, 150, 300, 450}, func(w *weights) float64 { return w.fusion.Graph }, func(w *weights, v float64) { w.fusion.Graph = v }},
		{"fusion.cochange", []float64{0, 75, 150, 300, 450}, func(w *weights) float64 { return w.fusion.CoChange }, func(w *weights, v float64) { w.fusion.CoChange = v }},
		{"links.graph_depth", []float64{0, 2, 4, 8}, func(w *weights) float64 { return float64(w.links.GraphDepth) }, func(w *weights, v float64) { w.links.GraphDepth = int(v) }},
		{"links.cochange_depth", []float64{0, 2, 4, 8}, func(w *weights) float64 { return float64(w.links.CoChangeDepth) }, func(w *weights, v float64) { w.links.CoChangeDepth = int(v) }},
		{"links.lexical_seeds", []float64{3, 5, 10, 20}, func(w *weights) float64 { return float64(w.links.LexicalSeeds) }, func(w *weights, v float64) { w.links.LexicalSeeds = int(v) }},
		{"links.restart", []float64{0.15, 0.3, 0.5}, func(w *weights) float64 { return w.links.Restart }, func(w *weights, v float64) { w.links.Restart = v }},
	}
}

func main() {
	commits := flag.Int("commits", 50, "cases per repository")
	rounds := flag.Int("rounds", 1, "passes over the parameters")
	jobs := flag.Int("j", 2, "repositories replayed at once")
	flag.Parse()
	small := split(os.Getenv("CTXD_FIT_REPOS"))
	large := split(os.Getenv("CTXD_FIT_LARGE"))
	if len(small)+len(large) == 0 {
		fmt.Fprintln(os.Stderr, "fitweights: set CTXD_FIT_REPOS (and CTXD_FIT_LARGE) to development repositories")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	f := &fitter{small: small, large: large, commits: *commits, jobs: *jobs,
		w: weights{fusion: prioritize.DefaultFusion(), links: tree.DefaultLinks()}}
	best, err := f.score(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitweights:", err)
		os.Exit(1)
	}
	fmt.Printf("start %s  objective %.4f  %s\n", current(&f.w), best, f.last)
	ps := params()
	for r := 0; r < *rounds; r++ {
		improved := false
		for _, p := range ps {
			keep := p.get(&f.w)
			start := keep
			for _, v := range p.values {
				if v == start {
					continue
				}
				p.set(&f.w, v)
				s, err := f.score(ctx)
				if err != nil {
					fmt.Fprintln(os.Stderr, "fitweights:", err)
					os.Exit(1)
				}
				fmt.Printf("try %s=%g  objective %.4f  %s\n", p.name, v, s, f.last)
				if s > best+1e-9 {
					best, keep, improved = s, v, true
				}
			}
			p.set(&f.w, keep)
			fmt.Printf("keep %s=%g  objective %.4f\n", p.name, keep, best)
		}
		if !improved {
			break
		}
	}
	fmt.Printf("best %s  objective %.4f\n", current(&f.w), best)
}

func current(w *weights) string {
	var b strings.Builder
	for _, p := range params() {
		fmt.Fprintf(&b, "%s=%g ", p.name, p.get(w))
	}
	return strings.TrimSpace(b.String())
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

type fitter struct {
	small, large []string
	commits      int
	jobs         int
	last         string  // per-repository all-found of the last score
	w            weights // the weights the replays use
}

// score replays every repository and returns the objective: the mean of
// all-found over budgets and small repositories, averaged with the same
// mean over the large ones when there are both.
func (f *fitter) score(ctx context.Context) (float64, error) {
	repos := append(append([]string(nil), f.small...), f.large...)
	res := make([][]float64, len(repos))
	errs := make([]error, len(repos))
	sem := make(chan struct{}, max(f.jobs, 1))
	var wg sync.WaitGroup
	for i, r := range repos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep, err := eval.Recall(ctx, r, eval.Options{Commits: f.commits, Budgets: []int{8000, 32000}, Fusion: f.w.fusion, Links: f.w.links})
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", r, err)
				return
			}
			for _, b := range rep.Budgets {
				res[i] = append(res[i], b.Ctxd.All)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	mean := func(lo, hi int) float64 {
		var s float64
		var n int
		for i := lo; i < hi; i++ {
			for _, v := range res[i] {
				s += v
				n++
			}
		}
		if n == 0 {
			return 0
		}
		return s / float64(n)
	}
	var b strings.Builder
	for i, r := range repos {
		name := r[strings.LastIndexByte(r, '/')+1:]
		fmt.Fprintf(&b, "%s=", name)
		for k, v := range res[i] {
			if k > 0 {
				b.WriteByte('/')
			}
			fmt.Fprintf(&b, "%.0f", 100*v)
		}
		b.WriteByte(' ')
	}
	f.last = strings.TrimSpace(b.String())
	ns := len(f.small)
	switch {
	case len(f.large) == 0:
		return mean(0, ns), nil
	case ns == 0:
		return mean(ns, len(repos)), nil
	}
	return (mean(0, ns) + mean(ns, len(repos))) / 2, nil
}
