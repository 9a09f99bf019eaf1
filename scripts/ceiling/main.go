// Command ceiling measures how high eval recall's all-lines can go: for
// each replayed commit and budget, whether any context within the same
// context budget could show every changed line of every answer file with
// ctxd's own views, and splits ctxd's misses into feasible and infeasible.
//
// For each case (eval.Cases, eval.ChangedLines: eval's own answer files
// and changed lines) and answer file it takes the cheapest view ctxd
// renders that shows all the file's changed lines (cheapest: the whole
// file, the bodies and signatures views keeping the functions around the
// lines, the focus views on exactly the definitions holding them), costed
// as the envelope renders the chunk with the real counter. A case is
// feasible at a budget when the sum over its answer files fits the case's
// context budget, read from the dump of `ctxd eval recall --dump` (the
// context part of the budget depends on the request). Beside it two
// looser ceilings: the content of the changed definitions alone (no
// outline lines, header or fences), and the changed lines alone in place.
//
// The dump also gives ctxd's own result per case (all-lines, BM25's), and
// at -classify's budget each feasible miss's answer files with a hidden
// line are classified by what happened to them.
//
//	go run ./scripts/ceiling -repo /work/data/gin -dump DIR [-skip 100] [-commits 100] [-budgets 8000,32000] [-classify 8000] [-v]
//
// Several repositories: -repo R1,R2 -dump D1,D2.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/internal/udiff"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
)

func main() {
	repos := flag.String("repo", "", "repositories (comma-separated), one per dump directory")
	dumps := flag.String("dump", "", "`eval recall --dump` directories (comma-separated) of the same commits")
	commits := flag.Int("commits", 100, "cases per repository (as eval recall --commits)")
	skip := flag.Int("skip", 0, "the eligible commits after the newest N (as eval recall --skip: the training split)")
	budgets := flag.String("budgets", "8000,32000", "budgets, each with dumps")
	classify := flag.Int("classify", 8000, "the budget whose feasible misses are classified (0: none)")
	verbose := flag.Bool("v", false, "one line per case and budget")
	flag.Parse()
	rs, ds := strings.Split(*repos, ","), strings.Split(*dumps, ",")
	if *repos == "" || len(rs) != len(ds) {
		fmt.Fprintln(os.Stderr, "ceiling: -repo and -dump, as many of each")
		os.Exit(2)
	}
	var bs []int
	for _, s := range strings.Split(*budgets, ",") {
		b, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ceiling: -budgets:", err)
			os.Exit(2)
		}
		bs = append(bs, b)
	}
	ctx := context.Background()
	cfg := config.Default()
	counter, _ := tokens.ForModel(cfg.Model, 0)
	var all []*repoResult
	for i := range rs {
		r, err := runRepo(ctx, counter, cfg.Format, rs[i], ds[i], *skip, *commits, bs, *classify, *verbose)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ceiling:", err)
			os.Exit(1)
		}
		all = append(all, r)
	}
	print(all, bs, *classify)
}

// tallies are one repository's counts at one budget.
type tallies struct {
	cases, feasible, defsFeasible, linesFeasible int
	ctxdHit, bm25Hit, hitFeasible, hitInfeasible int
	missFeasible                                 int
	quarter, half                                int // cases whose need fits a quarter, a half of the context budget
	contextSum                                   int
}

type repoResult struct {
	name string
	at   map[int]*tallies
	// classes counts, at the classified budget, the answer files with a
	// hidden line of feasible misses, by class; classReqs the misses by
	// their files' classes (a miss counts once per class it has).
	classes, classReqs map[string]int
	// ladder counts the same files with a hidden line inside a function
	// by class and where the focus ladder ranked that function.
	ladder map[string]int
	// noLadder counts the files of ladder "no ladder" in the context and
	// of at least 1,500 tokens whole, by whether the file's newest
	// previous commit touched every function holding a hidden line
	// (touched: at most 3 functions, as the history rule adds).
	noLadder map[string]int
	// otherTokens sums the tokens the feasible misses gave to non-answer
	// files, answerNeed what their answer files' cheapest views need.
	otherTokens, answerNeed, answerGot int
	mismatch                           int // cases whose changed lines differ from the dump's
}

// dumpCase is a dump (eval.ReadDump) with what the classes ask of it by
// path: BM25's answer files, their whole tokens, the skipped files, and
// the tokens the included answer and non-answer chunks took.
type dumpCase struct {
	context  int
	answers  []eval.DumpAnswer
	bm25     map[string]bool
	other    int            // tokens of included non-answer chunks
	answerTk int            // tokens of included answer chunks
	whole    map[string]int // answer files' whole tokens (OriginalTokens)
	skipped  map[string]bool
}

func readDump(path string) (*dumpCase, error) {
	dump, err := eval.ReadDump(path)
	if err != nil {
		return nil, err
	}
	d := &dumpCase{context: dump.Context, answers: dump.Answers, bm25: map[string]bool{}, skipped: map[string]bool{}, whole: map[string]int{}}
	for _, a := range dump.Answers {
		d.bm25[a.Path] = a.BM25
		if a.Whole > 0 {
			d.whole[a.Path] = a.Whole
		}
	}
	for _, c := range dump.Included {
		if c.Answer {
			d.answerTk += c.Tokens
		} else {
			d.other += c.Tokens
		}
	}
	for _, s := range dump.Skipped {
		d.skipped[s] = true
	}
	if d.context == 0 {
		return nil, fmt.Errorf("%s: no context budget", path)
	}
	return d, nil
}

func runRepo(ctx context.Context, counter tokens.Counter, format ctxd.Format, repo, dumpDir string, skip, n int, bs []int, classify int, verbose bool) (*repoResult, error) {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return nil, err
	}
	cases, err := eval.CasesAfter(ctx, repo, skip, n)
	if err != nil {
		return nil, err
	}
	res := &repoResult{name: filepath.Base(repo), at: map[int]*tallies{}, classes: map[string]int{}, classReqs: map[string]int{}, ladder: map[string]int{}, noLadder: map[string]int{}}
	for _, b := range bs {
		res.at[b] = &tallies{}
	}
	for i, c := range cases {
		changed, err := eval.ChangedLines(ctx, repo, c)
		if err != nil {
			return nil, err
		}
		costs := map[string]cost{}
		srcs := map[string][]byte{}
		need, defs, lines := 0, 0, 0
		for _, a := range c.Answer {
			src, err := exec.CommandContext(ctx, "git", "-C", repo, "show", c.Parent+":"+a).Output()
			if err != nil {
				return nil, fmt.Errorf("%s: git show %s:%s: %w", res.name, c.Parent, a, err)
			}
			srcs[a] = src
			k := cheapest(ctx, counter, format, a, src, changed[a])
			costs[a] = k
			need += k.Tokens
			defs += k.Defs
			lines += k.Lines
		}
		for _, b := range bs {
			name := filepath.Join(dumpDir, fmt.Sprintf("%02d-%.12s-%d.txt", i+1, c.Commit, b))
			d, err := readDump(name)
			if err != nil {
				return nil, err
			}
			t := res.at[b]
			t.cases++
			t.contextSum += d.context
			if b == bs[0] && !sameLines(d.answers, changed) {
				res.mismatch++
			}
			hit, bm := true, true
			for _, a := range d.answers {
				if len(a.Hidden) > 0 {
					hit = false
				}
				if !d.bm25[a.Path] {
					bm = false
				}
			}
			feasible := need <= d.context
			if feasible {
				t.feasible++
			}
			if 4*need <= d.context {
				t.quarter++
			}
			if 2*need <= d.context {
				t.half++
			}
			if defs <= d.context {
				t.defsFeasible++
			}
			if lines <= d.context {
				t.linesFeasible++
			}
			if hit {
				t.ctxdHit++
				if feasible {
					t.hitFeasible++
				} else {
					t.hitInfeasible++
				}
			} else if feasible {
				t.missFeasible++
			}
			if bm {
				t.bm25Hit++
			}
			var cls []string
			if b == classify && !hit && feasible {
				for _, a := range d.answers {
					if len(a.Hidden) == 0 {
						continue
					}
					k, lad := classOf(ctx, a, srcs[a.Path], d)
					res.classes[k]++
					if lad != "" {
						res.ladder[k+" | "+lad]++
					}
					if lad == "no ladder" && a.View != "-" && d.whole[a.Path] >= 1500 {
						res.noLadder[newestTouches(ctx, repo, c.Parent, a, srcs[a.Path])]++
					}
					if !slices.Contains(cls, k) {
						cls = append(cls, k)
						res.classReqs[k]++
					}
				}
				res.otherTokens += d.other
				res.answerGot += d.answerTk
				res.answerNeed += need
			}
			if verbose {
				var parts []string
				for _, a := range c.Answer {
					parts = append(parts, fmt.Sprintf("%s=%s:%d/%d", a, costs[a].View, costs[a].Tokens, costs[a].Whole))
				}
				fmt.Printf("%s %02d %.12s %d context %d need %d defs %d lines %d feasible %v ctxd %v bm25 %v %s %s\n",
					res.name, i+1, c.Commit, b, d.context, need, defs, lines, feasible, hit, bm, strings.Join(parts, " "), strings.Join(cls, ","))
			}
		}
	}
	return res, nil
}

// sameLines reports whether the dump's seen and hidden lines are the
// changed lines computed here.
func sameLines(answers []eval.DumpAnswer, changed map[string][]int) bool {
	if len(answers) != len(changed) {
		return false
	}
	for _, a := range answers {
		got := slices.Sorted(slices.Values(slices.Concat(a.Seen, a.Hidden)))
		if !slices.Equal(got, changed[a.Path]) {
			return false
		}
	}
	return true
}

// classOf says what happened to an answer file with a hidden changed
// line: not gathered, gathered but skipped, placed at the outline (or
// signatures, a presence line), cut in the middle, bodies collapsed, or
// at a focus view on the wrong definitions (a hidden line is inside a
// function the view does not show) or on the right ones with the hidden
// lines outside every function.
//
// ladder says, for a file with a hidden line inside a function, where the
// file's focus ladder (the dump's focus defs, best first) ranked the
// innermost function around each such line, the worst of them: "ladder
// 1-3", "ladder 4+", "not in ladder" (no focus def in it), "no ladder" (the
// file has no focus defs).
func classOf(ctx context.Context, a eval.DumpAnswer, src []byte, d *dumpCase) (class, ladder string) {
	switch a.View {
	case "-":
		if d.skipped[a.Path] {
			class = "gathered, not placed"
		} else {
			class = "not gathered"
		}
	case "outline", "signatures":
		class = "outline/signatures"
	case "middle":
		class = "middle cut"
	case "bodies":
		class = "bodies collapsed"
	case "focus", "focus-only":
		class = "focus, lines outside definitions"
	default:
		class = a.View
	}
	lang := treesitter.Detect(a.Path, src)
	if lang == "" {
		return class, ""
	}
	syms, err := treesitter.Symbols(ctx, lang, src)
	if err != nil {
		return class, ""
	}
	worst := 0 // 1: ladder 1-3, 2: 4+, 3: not in ladder, 4: no ladder
	for _, l := range a.Hidden {
		in := -1 // the innermost function around l
		for i, s := range syms.Symbols {
			if s.Callable() && s.Start <= l && l <= s.End && (in < 0 || s.Start >= syms.Symbols[in].Start) {
				in = i
			}
		}
		if in < 0 {
			continue
		}
		s := syms.Symbols[in]
		r := slices.IndexFunc(a.FocusDefs, func(d eval.DumpDef) bool { return s.Start <= d.Line && d.Line <= s.End })
		w := 3
		switch {
		case len(a.FocusDefs) == 0:
			w = 4
		case r >= 0 && r < 3:
			w = 1
		case r >= 3:
			w = 2
		}
		worst = max(worst, w)
	}
	if worst > 0 && class == "focus, lines outside definitions" {
		class = "focus, wrong definitions"
	}
	return class, [...]string{"", "ladder 1-3", "ladder 4+", "not in ladder", "no ladder"}[worst]
}

var classNames = []string{"not gathered", "gathered, not placed", "outline/signatures", "middle cut", "bodies collapsed", "focus, wrong definitions", "focus, lines outside definitions", "full"}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(n)/float64(d))
}

func print(all []*repoResult, bs []int, classify int) {
	for _, b := range bs {
		fmt.Printf("\nbudget %d: %% of cases (feasible = every answer file's cheapest view showing its changed lines fits the case's context budget)\n", b)
		fmt.Printf("%-9s %5s %7s %8s %8s %8s %8s %9s %9s %10s %10s %9s\n", "repo", "cases", "context", "need<=1/4", "need<=1/2", "feasible", "defs-txt", "lines-only", "ctxd", "hit/feas", "hit-infeas", "bm25")
		var m [9]float64
		for _, r := range all {
			t := r.at[b]
			fmt.Printf("%-9s %5d %7d %9s %9s %8s %8s %9s %10s %9s %10d %9s\n", r.name, t.cases, t.contextSum/max(t.cases, 1),
				pct(t.quarter, t.cases), pct(t.half, t.cases), pct(t.feasible, t.cases), pct(t.defsFeasible, t.cases), pct(t.linesFeasible, t.cases), pct(t.ctxdHit, t.cases),
				pct(t.hitFeasible, t.feasible), t.hitInfeasible, pct(t.bm25Hit, t.cases))
			for k, v := range []int{t.feasible, t.defsFeasible, t.linesFeasible, t.ctxdHit, t.bm25Hit} {
				m[k] += 100 * float64(v) / float64(t.cases)
			}
			m[5] += 100 * float64(t.hitFeasible) / float64(max(t.feasible, 1))
			m[6] += 100 * float64(t.quarter) / float64(t.cases)
			m[7] += 100 * float64(t.half) / float64(t.cases)
		}
		n := float64(len(all))
		fmt.Printf("%-9s %5s %7s %9.1f %9.1f %8.1f %8.1f %9.1f %10.1f %9.1f\n", "mean", "", "", m[6]/n, m[7]/n, m[0]/n, m[1]/n, m[2]/n, m[3]/n, m[5]/n)
		fmt.Printf("(bm25 mean %.1f)\n", m[4]/n)
	}
	if classify == 0 {
		return
	}
	fmt.Printf("\nbudget %d: ctxd's feasible misses, answer files with a hidden changed line by class (requests in parentheses)\n", classify)
	fmt.Printf("%-34s", "class")
	for _, r := range all {
		fmt.Printf(" %10s", r.name)
	}
	fmt.Printf(" %10s\n", "all")
	for _, k := range classNames {
		fmt.Printf("%-34s", k)
		f, q := 0, 0
		for _, r := range all {
			fmt.Printf(" %10s", fmt.Sprintf("%d (%d)", r.classes[k], r.classReqs[k]))
			f += r.classes[k]
			q += r.classReqs[k]
		}
		fmt.Printf(" %10s\n", fmt.Sprintf("%d (%d)", f, q))
	}
	fmt.Printf("\nthe same files with a hidden line inside a function, by where the focus ladder ranked its function (the worst)\n")
	for _, k := range classNames {
		for _, lad := range []string{"ladder 1-3", "ladder 4+", "not in ladder", "no ladder"} {
			key := k + " | " + lad
			f := 0
			for _, r := range all {
				f += r.ladder[key]
			}
			if f == 0 {
				continue
			}
			fmt.Printf("%-48s", key)
			for _, r := range all {
				fmt.Printf(" %8d", r.ladder[key])
			}
			fmt.Printf(" %8d\n", f)
		}
	}
	fmt.Printf("\nfiles without a ladder (in the context, >= 1,500 tokens whole) with a hidden line in a function: the file's newest previous commit touched\n")
	for _, k := range []string{"every hidden function", "not every hidden function", "over 3 functions", "no previous commit"} {
		f := 0
		for _, r := range all {
			f += r.noLadder[k]
		}
		fmt.Printf("%-34s", k)
		for _, r := range all {
			fmt.Printf(" %10d", r.noLadder[k])
		}
		fmt.Printf(" %10d\n", f)
	}
	fmt.Printf("%-34s", "feasible misses")
	tot := 0
	for _, r := range all {
		fmt.Printf(" %10d", r.at[classify].missFeasible)
		tot += r.at[classify].missFeasible
	}
	fmt.Printf(" %10d\n", tot)
	fmt.Printf("%-34s", "mean tokens to non-answer files")
	o := 0
	for _, r := range all {
		fmt.Printf(" %10d", r.otherTokens/max(r.at[classify].missFeasible, 1))
		o += r.otherTokens
	}
	fmt.Printf(" %10d\n", o/max(tot, 1))
	fmt.Printf("%-34s", "mean tokens answer got / needed")
	g, nd := 0, 0
	for _, r := range all {
		k := max(r.at[classify].missFeasible, 1)
		fmt.Printf(" %10s", fmt.Sprintf("%d/%d", r.answerGot/k, r.answerNeed/k))
		g += r.answerGot
		nd += r.answerNeed
	}
	fmt.Printf(" %10s\n", fmt.Sprintf("%d/%d", g/max(tot, 1), nd/max(tot, 1)))
	for _, r := range all {
		if r.mismatch > 0 {
			fmt.Printf("%s: %d cases' changed lines differ from the dump's\n", r.name, r.mismatch)
		}
	}
}

// newestTouches says whether the newest commit before parent that changed
// a's file touched every function holding one of a's hidden lines: its
// new side is the parent's text (no later commit changed the file), so
// its hunks' new lines are the parent's lines.
func newestTouches(ctx context.Context, repo, parent string, a eval.DumpAnswer, src []byte) string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "log", "-1", "-U0", "--no-color", "--format=", parent, "--", a.Path).Output()
	if err != nil || len(out) == 0 {
		return "no previous commit"
	}
	var touched []ctxd.LineRange
	for _, l := range strings.Split(string(out), "\n") {
		if _, n, ok := udiff.HunkHeader(l); ok {
			touched = append(touched, ctxd.LineRange{Start: max(n.Start, 1), End: max(n.Start+n.Lines-1, n.Start, 1)})
		}
	}
	syms, err := treesitter.Symbols(ctx, treesitter.Detect(a.Path, src), src)
	if err != nil {
		return "no previous commit"
	}
	isFn := treesitter.Symbol.Callable
	innermost := func(l int) int {
		in := -1
		for i, s := range syms.Symbols {
			if isFn(s) && s.Start <= l && l <= s.End && (in < 0 || s.Start >= syms.Symbols[in].Start) {
				in = i
			}
		}
		return in
	}
	hit := map[int]bool{}
	for i, s := range syms.Symbols {
		if isFn(s) && slices.ContainsFunc(touched, func(r ctxd.LineRange) bool { return r.Start <= s.End && s.Start <= r.End }) {
			// The innermost function of a touched line only, as the
			// ladder's definitions are.
			for _, r := range touched {
				for l := max(r.Start, s.Start); l <= min(r.End, s.End); l++ {
					if innermost(l) == i {
						hit[i] = true
					}
				}
			}
		}
	}
	if len(hit) > 3 {
		return "over 3 functions"
	}
	for _, l := range a.Hidden {
		if in := innermost(l); in >= 0 && !hit[in] {
			return "not every hidden function"
		}
	}
	return "every hidden function"
}
