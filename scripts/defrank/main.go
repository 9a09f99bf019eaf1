// Command defrank measures the focus ladder's definition ranking offline:
// for each answer file of an `ctxd eval recall --dump` whose dump lists
// focus definitions ("focus def L score S: ..."), the fewest best-ranked
// definitions that hold every changed line of the file (kmin), and
// P(the best k hold them all) for k = 1, 2, 3, 5, 8 over those files.
//
//	go run ./scripts/defrank -repo /work/data/httpx -dump DIR [-budget 8000] [-v]
//
// The changed lines are the dump's seen and hidden lines (the parent's
// numbering); a definition's lines are the parent's symbol at its first
// line, or, for a run of a long function (focused by its middle line),
// the treesitter.LongWindow lines around it. Paths of several dump
// directories (one per repository, -repo each) are given as
// -dump DIR1,DIR2 with -repo R1,R2.
//
// -v -hist N adds, per answer file, the newest of the file's last N
// commits before the replayed commit (the parent's history, no leakage)
// touching each function that holds a changed line. -sim W,ADD,RANKS,MAX,N
// re-ranks each dumped ladder by that history as engine's byHistory does
// (a definition the k-th newest change touched scores 1+W/k times as
// much; one the words did not rank, touched by a change of rank <= RANKS
// that touched at most MAX of them, joins at ADD/k of the best), so a
// rule is measured on a base dump without an eval run. The ladder in a
// dump is cut (13 definitions, 0.25 of the best), so the simulation sees
// only those the words ranked there.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

var histN int

type answer struct {
	path    string
	changed []int
	defs    []int
	scores  []float64
}

// sim, when set (-sim W,ADD,RANKS,MAX,N), re-ranks each ladder as engine's
// byHistory would with those knobs, from the file's last N commits before
// the commit (git log -n N -U0 of the file alone), before measuring.
var sim struct {
	on            bool
	w, add        float64
	ranks, max, n int
}

func main() {
	repos := flag.String("repo", "", "repositories (comma-separated), one per dump directory")
	dumps := flag.String("dump", "", "dump directories (comma-separated)")
	budget := flag.String("budget", "8000", "the budget whose dumps are read")
	verbose := flag.Bool("v", false, "one line per answer file")
	simFlag := flag.String("sim", "", "W,ADD,RANKS,MAX,N: re-rank each ladder by the file's history before measuring")
	flag.IntVar(&histN, "hist", 0, "with -v, also the newest of the file's last N commits (at the parent) touching each function holding a changed line")
	flag.Parse()
	if *simFlag != "" {
		if _, err := fmt.Sscanf(*simFlag, "%g,%g,%d,%d,%d", &sim.w, &sim.add, &sim.ranks, &sim.max, &sim.n); err != nil {
			fmt.Fprintln(os.Stderr, "defrank: -sim W,ADD,RANKS,MAX,N:", err)
			os.Exit(2)
		}
		sim.on = true
	}
	rs, ds := strings.Split(*repos, ","), strings.Split(*dumps, ",")
	if *repos == "" || len(rs) != len(ds) {
		fmt.Fprintln(os.Stderr, "defrank: -repo and -dump, as many of each")
		os.Exit(2)
	}
	ks := []int{1, 2, 3, 5, 8}
	var total, none int
	hits := make([]int, len(ks))
	for i := range rs {
		t, n, h := measure(rs[i], ds[i], *budget, ks, *verbose)
		total, none = total+t, none+n
		for k := range h {
			hits[k] += h[k]
		}
		fmt.Printf("%s: %d answer files with a ladder, %d with a changed line in no ranked definition;", filepath.Base(rs[i]), t, n)
		for k, kk := range ks {
			fmt.Printf(" P(%d)=%.1f%%", kk, pct(h[k], t))
		}
		fmt.Println()
	}
	if len(rs) > 1 {
		fmt.Printf("all: %d answer files with a ladder, %d with a changed line in no ranked definition;", total, none)
		for k, kk := range ks {
			fmt.Printf(" P(%d)=%.1f%%", kk, pct(hits[k], total))
		}
		fmt.Println()
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// measure reads one repository's dumps.
func measure(repo, dir, budget string, ks []int, verbose bool) (total, none int, hits []int) {
	hits = make([]int, len(ks))
	files, _ := filepath.Glob(filepath.Join(dir, "*-"+budget+".txt"))
	for _, f := range files {
		commit, answers := readDump(f)
		if commit == "" {
			continue
		}
		for _, a := range answers {
			if len(a.defs) == 0 || len(a.changed) == 0 {
				continue
			}
			src, err := exec.Command("git", "-C", repo, "show", commit+"^:"+a.path).Output()
			if err != nil {
				continue
			}
			if sim.on {
				a = simulate(repo, commit, a, src)
			}
			spans := spansOf(a.path, src, a.defs)
			kmin := kMin(a.changed, spans)
			total++
			if kmin == 0 {
				none++
			}
			for k, kk := range ks {
				if kmin > 0 && kmin <= kk {
					hits[k]++
				}
			}
			if verbose {
				fmt.Printf("%s %s %s kmin=%d defs=%v%s\n", filepath.Base(repo), commit[:12], a.path, kmin, a.defs, histOf(repo, commit, a, src))
			}
		}
	}
	return total, none, hits
}

// histOf describes where the file's last histN commits before commit
// landed against the functions holding its changed lines: "fn=F/G
// newest=R" (R the worst, over those functions, of the newest change
// touching each: 0 when one was not touched; fn=- when a changed line is
// in no function), and the focus definitions' newest changes.
func histOf(repo, commit string, a answer, src []byte) string {
	if histN <= 0 {
		return ""
	}
	h, err := fileHistory(repo, commit, a.path, histN)
	if err != nil {
		return " hist=err"
	}
	var syms []treesitter.Symbol
	if lang := treesitter.Detect(a.path, src); lang != "" {
		if fs, err := treesitter.Symbols(context.Background(), lang, src); err == nil {
			syms = fs.Symbols
		}
	}
	worst, inFn := -1, true
	var fns []string
	for _, l := range a.changed {
		best := -1
		for k, s := range syms {
			if (s.Kind == "function" || s.Kind == "method") && s.Start <= l && l <= s.End && (best < 0 || s.Start >= syms[best].Start) {
				best = k
			}
		}
		if best < 0 {
			inFn = false
			continue
		}
		s := syms[best]
		if !slices.Contains(fns, s.Name) {
			fns = append(fns, s.Name)
		}
		r := h.Newest(s.Start, s.End)
		if r == 0 {
			r = 99
		}
		worst = max(worst, r)
	}
	if !inFn || worst < 0 {
		return " fn=- newest=-"
	}
	return fmt.Sprintf(" fn=%s newest=%d", strings.Join(fns, "/"), worst)
}

// readDump returns a dump's commit and its answer files (eval.ReadDump).
func readDump(path string) (string, []answer) {
	d, err := eval.ReadDump(path)
	if err != nil {
		return "", nil
	}
	commit, as := d.Commit, d.Answers
	out := make([]answer, len(as))
	for k, a := range as {
		out[k] = answer{path: a.Path, changed: slices.Concat(a.Seen, a.Hidden)}
		for _, d := range a.FocusDefs {
			out[k].defs = append(out[k].defs, d.Line)
			out[k].scores = append(out[k].scores, d.Score)
		}
	}
	return commit, out
}

// spansOf returns the lines of each focus definition (its first line,
// or a long function's run's middle line) in src.
func spansOf(rel string, src []byte, defs []int) [][2]int {
	var syms []treesitter.Symbol
	if lang := treesitter.Detect(rel, src); lang != "" {
		if fs, err := treesitter.Symbols(context.Background(), lang, src); err == nil {
			syms = fs.Symbols
		}
	}
	half := (treesitter.LongWindow - 1) / 2
	out := make([][2]int, len(defs))
	for k, l := range defs {
		out[k] = [2]int{l - half, l + half}
		for _, s := range syms {
			if s.Start == l && s.End > s.Start && s.End-s.Start <= treesitter.LongBody {
				out[k] = [2]int{s.Start, s.End}
				break
			}
		}
	}
	return out
}

// kMin is the fewest best-ranked spans holding every changed line, 0
// when all of them do not.
func kMin(changed []int, spans [][2]int) int {
	worst := 0
	for _, l := range changed {
		k := 0
		for i, s := range spans {
			if s[0] <= l && l <= s[1] {
				k = i + 1
				break
			}
		}
		if k == 0 {
			return 0
		}
		worst = max(worst, k)
	}
	return worst
}

// fileHistory is the line history of path from its last n commits
// before commit (the parent's: the answer commit is never read), in the
// log shape tree.LineHistories reads.
func fileHistory(repo, commit, path string, n int) (*tree.LineHistory, error) {
	out, err := exec.Command("git", "-C", repo, "log", "--no-merges", "--no-renames", "-U0", "--format=%x01", fmt.Sprintf("-n%d", n), commit+"^", "--", path).Output()
	if err != nil {
		return nil, err
	}
	return tree.LineHistoriesOfLog(out)[path], nil
}

// simulate re-ranks a's ladder by the file's history before commit.
func simulate(repo, commit string, a answer, src []byte) answer {
	h, err := fileHistory(repo, commit, a.path, sim.n)
	if err != nil {
		return a
	}
	if h == nil || len(a.defs) == 0 {
		return a
	}
	spans := spansOf(a.path, src, a.defs)
	type def struct {
		line  int
		score float64
	}
	var ds []def
	best := a.scores[0]
	for k, l := range a.defs {
		s := a.scores[k]
		if n := h.Newest(spans[k][0], spans[k][1]); n > 0 {
			s *= 1 + sim.w/float64(n)
		}
		ds = append(ds, def{l, s})
	}
	var syms []treesitter.Symbol
	if lang := treesitter.Detect(a.path, src); lang != "" {
		if fs, err := treesitter.Symbols(context.Background(), lang, src); err == nil {
			syms = fs.Symbols
		}
	}
	added := 0
	for n := 1; n <= sim.ranks; n++ {
		var touched []int
		for _, s := range syms {
			if s.Kind != "function" && s.Kind != "method" || s.End <= s.Start || s.End-s.Start > treesitter.LongBody || slices.Contains(a.defs, s.Start) || slices.Contains(touched, s.Start) {
				continue
			}
			if strings.HasPrefix(s.Name, "test_") || strings.HasPrefix(s.Name, "Test") {
				continue
			}
			if h.Newest(s.Start, s.End) == n {
				touched = append(touched, s.Start)
			}
		}
		if added+len(touched) > sim.max {
			continue
		}
		for _, l := range touched {
			ds = append(ds, def{l, best * sim.add / float64(n)})
			added++
		}
	}
	slices.SortStableFunc(ds, func(x, y def) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	b := a
	b.defs, b.scores = nil, nil
	for _, d := range ds {
		if len(b.defs) == 13 || d.score < 0.25*ds[0].score {
			break
		}
		b.defs = append(b.defs, d.line)
		b.scores = append(b.scores, d.score)
	}
	return b
}
