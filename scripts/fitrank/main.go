// Command fitrank fits prioritize's score term scales to the training
// commits of the development repositories, offline: it reads the feature
// lines `ctxd eval recall --skip 100 --features FILE` writes (every chunk
// the scorer saw per request, its score terms and facts, and whether the
// commit changed it), rescores every chunk with a candidate set of
// scales, and measures where the answer files land in the new order.
// A coordinate search maximises the objective: the mean over requests of
// the answer files' recall in the first k files (k the number of files
// the fitter showed for that request) plus their mean reciprocal rank.
//
// Only commits past the evaluated ones (--skip) of the development set
// may be given to it (docs/eval.md): the newest 100 stay the evaluation.
//
//	go run ./scripts/fitrank -rounds 3 /tmp/train/gin.jsonl /tmp/train/httpx.jsonl ...
//
// With -cv it also fits once per repository left out and reports the
// left-out repository's objective before and after: whether the fit
// carries to commits and repositories it did not see.
//
// The objective is a ranking's, not eval's all-lines: which view each
// file gets depends on the fitter, which weighs files by their score
// and rank, and a better order measured here did not raise all-lines
// (BENCHMARKS.md, "hrank"). Eval's answers are never test files, so a
// fitted test penalty (-axes test) or a test task's boost at 0 says what
// the measure cannot see, not what a test task needs.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/prioritize"
)

// item is one scored chunk, reduced to what the model reads.
type item struct {
	source   string
	file     bool
	critical bool
	answer   bool
	terms    map[string]float64
	lex, gr  int
	co       int
	test     bool
	share    float64 // lexical share (0..1)
	path     float64 // BM25 path share of the lexical match
	defs     float64 // BM25 definitions share
	task     string  // the request's task type
	role     string
}

type request struct {
	repo  string
	items []item
	shown int // files the fitter showed
	nans  int // answer files of the case (scored or not)
}

// params are the scales: each term's value is multiplied by its weight;
// the rank terms are recomputed from the ranks with their own scale and
// K.
type params struct {
	Priority, Task, Recency, Mention, Relevance, Size float64
	Rank, RankK                                       float64
	Graph, CoChange, FusionK                          float64
	Test, Path, Defs                                  float64 // new features: off at 0
	// The task term's scale per task type, times Task.
	TaskImplement, TaskRefactor, TaskTest, TaskDebug float64
	// TaskRefactorDeps scales the refactor boost of a target's dependents.
	TaskRefactorDeps float64
}

func current() params {
	fusion := prioritize.DefaultFusion()
	return params{
		Priority: 1, Task: 1, Recency: 1, Mention: 1, Relevance: 1, Size: 1,
		Rank: prioritize.RankScale, RankK: prioritize.RankK,
		Graph: fusion.Graph, CoChange: fusion.CoChange, FusionK: fusion.K,
		TaskImplement: 1, TaskRefactor: 1, TaskTest: 1, TaskDebug: 1, TaskRefactorDeps: 1,
	}
}

// fused is prioritize's rank term, none for an unranked file or a term
// switched off.
func fused(scale, k float64, rank int) float64 {
	if rank <= 0 || scale == 0 {
		return 0
	}
	return prioritize.RankTerm(scale, k, rank)
}

func (p *params) score(it *item) float64 {
	t := it.terms
	if it.critical {
		// an open file or error location: the user's pointing, kept
		s := 0.0
		for _, v := range t {
			s += v
		}
		return s
	}
	task := p.Task
	switch it.task {
	case "implement":
		task *= p.TaskImplement
	case "refactor":
		task *= p.TaskRefactor
		if it.role == ctxd.RoleDependent {
			task *= p.TaskRefactorDeps
		}
	case "test":
		task *= p.TaskTest
	case "debug":
		task *= p.TaskDebug
	}
	s := p.Priority*t[ctxd.TermPriority] + task*t[ctxd.TermTask] + p.Recency*t[ctxd.TermRecency] +
		p.Mention*t[ctxd.TermMention] + p.Relevance*t[ctxd.TermRelevance] + p.Size*t[ctxd.TermSize] + t[ctxd.TermCustom]
	s += fused(p.Rank, p.RankK, it.lex) + fused(p.Graph, p.FusionK, it.gr) + fused(p.CoChange, p.FusionK, it.co)
	if it.test {
		s += p.Test
	}
	if it.lex > 0 {
		s += p.Path*it.path*it.share + p.Defs*it.defs*it.share
	}
	return s
}

// metrics of one ordering over a set of requests.
type metrics struct {
	recallK, allK, mrr, top1 float64
	n                        int
}

func (m metrics) objective() float64 { return m.recallK + m.mrr }

func (m metrics) String() string {
	return fmt.Sprintf("obj %.4f  recall@k %.4f  all@k %.4f  mrr %.4f  top1 %.4f  (n %d)", m.objective(), m.recallK, m.allK, m.mrr, m.top1, m.n)
}

func evaluate(p params, rs []*request) metrics {
	var m metrics
	sc := make([]float64, 0, 64)
	idx := make([]int, 0, 64)
	for _, r := range rs {
		sc, idx = sc[:0], idx[:0]
		for i := range r.items {
			sc = append(sc, p.score(&r.items[i]))
			idx = append(idx, i)
		}
		sort.SliceStable(idx, func(a, b int) bool { return sc[idx[a]] > sc[idx[b]] })
		rank, found, rr, top1 := 0, 0, 0.0, 0.0
		for _, i := range idx {
			it := &r.items[i]
			if !it.file {
				continue
			}
			rank++
			if it.answer {
				if rank <= r.shown {
					found++
				}
				rr += 1 / float64(rank)
				if rank == 1 {
					top1 = 1
				}
			}
		}
		m.recallK += float64(found) / float64(r.nans)
		if found == r.nans {
			m.allK++
		}
		m.mrr += rr / float64(r.nans)
		m.top1 += top1
		m.n++
	}
	if m.n > 0 {
		n := float64(m.n)
		m.recallK, m.allK, m.mrr, m.top1 = m.recallK/n, m.allK/n, m.mrr/n, m.top1/n
	}
	return m
}

type axis struct {
	name   string
	ptr    func(*params) *float64
	values []float64
}

func axes() []axis {
	mult := []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3}
	scale := []float64{0, 50, 100, 150, 200, 300, 400, 500, 700}
	ks := []float64{1, 2, 4, 8, 16, 32}
	return []axis{
		{"priority", func(p *params) *float64 { return &p.Priority }, mult},
		{"task", func(p *params) *float64 { return &p.Task }, mult},
		{"recency", func(p *params) *float64 { return &p.Recency }, mult},
		{"mention", func(p *params) *float64 { return &p.Mention }, mult},
		{"relevance", func(p *params) *float64 { return &p.Relevance }, mult},
		{"size", func(p *params) *float64 { return &p.Size }, mult},
		{"rank", func(p *params) *float64 { return &p.Rank }, scale},
		{"rank_k", func(p *params) *float64 { return &p.RankK }, ks},
		{"graph", func(p *params) *float64 { return &p.Graph }, scale},
		{"cochange", func(p *params) *float64 { return &p.CoChange }, scale},
		{"fusion_k", func(p *params) *float64 { return &p.FusionK }, ks},
		{"task_implement", func(p *params) *float64 { return &p.TaskImplement }, mult},
		{"task_refactor", func(p *params) *float64 { return &p.TaskRefactor }, mult},
		{"task_refactor_deps", func(p *params) *float64 { return &p.TaskRefactorDeps }, mult},
		{"task_test", func(p *params) *float64 { return &p.TaskTest }, mult},
		{"task_debug", func(p *params) *float64 { return &p.TaskDebug }, mult},
		{"test", func(p *params) *float64 { return &p.Test }, []float64{-300, -200, -100, -50, 0, 50}},
		{"path", func(p *params) *float64 { return &p.Path }, []float64{-200, -100, 0, 100, 200, 400}},
		{"defs", func(p *params) *float64 { return &p.Defs }, []float64{-200, -100, 0, 100, 200, 400}},
	}
}

// gain is the least objective gain a step must bring (-min-gain).
var gain = 1e-4

// fit runs the coordinate search from p over the axes named in use.
func fit(p params, rs []*request, rounds int, use map[string]bool, log bool) params {
	best := evaluate(p, rs).objective()
	for r := 0; r < rounds; r++ {
		improved := false
		for _, a := range axes() {
			if !use[a.name] {
				continue
			}
			ptr := a.ptr(&p)
			keep := *ptr
			for _, v := range a.values {
				*ptr = v
				if o := evaluate(p, rs).objective(); o > best+gain {
					best, keep, improved = o, v, true
				}
			}
			*ptr = keep
			if log {
				fmt.Printf("  round %d %-10s = %-6g obj %.4f\n", r+1, a.name, keep, best)
			}
		}
		if !improved {
			break
		}
	}
	return p
}

func load(paths []string) ([]*request, error) {
	var rs []*request
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		fcs, err := eval.ReadFeatures(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		repo := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		for _, fc := range fcs {
			r := &request{repo: repo, nans: len(fc.Answer)}
			for _, c := range fc.Chunks {
				it := item{
					source: c.Source,
					file:   c.Type == ctxd.ChunkFile, critical: c.Priority >= int(ctxd.PriorityCritical),
					answer: c.Answer, terms: c.Terms, lex: c.LexicalRank, gr: c.GraphRank, co: c.CoChangeRank,
					test: c.Test, share: c.LexicalShare, task: fc.Task, role: c.Role,
				}
				if c.Lexical != nil {
					it.path, it.defs = c.Lexical.Path, c.Lexical.Definitions
				}
				if it.file && c.Included {
					r.shown++
				}
				r.items = append(r.items, it)
			}
			rs = append(rs, r)
		}
	}
	return rs, nil
}

func main() {
	rounds := flag.Int("rounds", 3, "passes over the axes")
	cv := flag.Bool("cv", false, "also fit with each repository left out and report it")
	set := flag.String("set", "", "start from these values, name=value comma-separated (the axes' names)")
	nofit := flag.Bool("nofit", false, "only evaluate the start (-set) beside the current scales")
	minGain := flag.Float64("min-gain", 1e-4, "the least objective gain a step must bring")
	only := flag.String("axes", "priority,task,recency,mention,relevance,size,rank,rank_k,graph,cochange,fusion_k", "the axes to search, comma-separated (test, path, defs: new features)")
	flag.Parse()
	rs, err := load(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitrank:", err)
		os.Exit(1)
	}
	use := map[string]bool{}
	for _, a := range strings.Split(*only, ",") {
		use[strings.TrimSpace(a)] = true
	}
	repos := map[string][]*request{}
	for _, r := range rs {
		repos[r.repo] = append(repos[r.repo], r)
	}
	names := make([]string, 0, len(repos))
	for n := range repos {
		names = append(names, n)
	}
	slices.Sort(names)
	base := current()
	fmt.Printf("current  %s\n", evaluate(base, rs))
	start := base
	if *set != "" {
		for _, kv := range strings.Split(*set, ",") {
			k, v, _ := strings.Cut(kv, "=")
			f, err := strconv.ParseFloat(v, 64)
			i := slices.IndexFunc(axes(), func(a axis) bool { return a.name == k })
			if err != nil || i < 0 {
				fmt.Fprintf(os.Stderr, "fitrank: -set: %q\n", kv)
				os.Exit(2)
			}
			*axes()[i].ptr(&start) = f
		}
		fmt.Printf("start    %s\n", evaluate(start, rs))
	}
	gain = *minGain
	p := start
	if !*nofit {
		p = fit(start, rs, *rounds, use, true)
	}
	fmt.Printf("fitted   %s\n%+v\n", evaluate(p, rs), p)
	for _, n := range names {
		fmt.Printf("  %-10s current %s\n  %-10s fitted  %s\n", n, evaluate(base, repos[n]), "", evaluate(p, repos[n]))
	}
	if !*cv {
		return
	}
	fmt.Println("leave one repository out:")
	for _, n := range names {
		var train []*request
		for _, m := range names {
			if m != n {
				train = append(train, repos[m]...)
			}
		}
		q := p
		if !*nofit {
			q = fit(start, train, *rounds, use, false)
		}
		b, a := evaluate(base, repos[n]), evaluate(q, repos[n])
		fmt.Printf("  %-10s obj %.4f -> %.4f  all@k %.4f -> %.4f  mrr %.4f -> %.4f  %+v\n", n, b.objective(), a.objective(), b.allK, a.allK, b.mrr, a.mrr, q)
	}
}
