// Command defmiss lists, per answer file of an `eval recall --dump` with a
// hidden changed line, where each hidden line sits (the innermost function
// around it, or the module-level line), which of the request's focus words
// that function holds and how many of the file's functions hold each, whether
// its name holds one, and where the file's focus ladder ranked it: the
// material for a definition-ranking rule.
//
//	go run ./scripts/defmiss -repo /work/data/gin -dump DIR [-budget 8000]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

var reqRe = regexp.MustCompile(`(?m)^request: (.*)$`)

func main() {
	repo := flag.String("repo", "", "the repository")
	dump := flag.String("dump", "", "the dump directory")
	budget := flag.Int("budget", 8000, "the budget")
	stats := flag.Bool("stats", false, "count, per candidate rule, the functions it would add to ladders and those holding changed lines")
	flag.Parse()
	if *stats {
		defer printStats()
	}
	ctx := context.Background()
	files, _ := filepath.Glob(filepath.Join(*dump, fmt.Sprintf("*-%d.txt", *budget)))
	sort.Strings(files)
	for _, name := range files {
		d, err := eval.ReadDump(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		raw, _ := os.ReadFile(name)
		req := ""
		if m := reqRe.FindSubmatch(raw); m != nil {
			req = string(m[1])
		}
		miss := slices.ContainsFunc(d.Answers, func(a eval.DumpAnswer) bool { return len(a.Hidden) > 0 })
		if *stats {
			q := query.Parse(req)
			for _, a := range d.Answers {
				if a.Whole < 1500 {
					continue
				}
				src, err := exec.CommandContext(ctx, "git", "-C", *repo, "show", d.Commit+"^:"+a.Path).Output()
				if err == nil {
					tally(ctx, a, src, q)
				}
			}
			continue
		}
		if !miss {
			continue
		}
		fmt.Printf("\n== %s %.10s %q\n", filepath.Base(name)[:2], d.Commit, req)
		q := query.Parse(req)
		fmt.Printf("  focus words %q\n", q.FocusWords)
		for _, a := range d.Answers {
			if len(a.Hidden) == 0 {
				continue
			}
			src, err := exec.CommandContext(ctx, "git", "-C", *repo, "show", d.Commit+"^:"+a.Path).Output()
			if err != nil {
				continue
			}
			_ = 0
			fmt.Printf("  %s view=%s whole=%d hidden=%v ladder=%v\n", a.Path, a.View, a.Whole, a.Hidden, ladder(a))
			describe(ctx, a, src, q)
		}
	}
}

// counts per rule: added functions, added holding a changed line, added
// holding a hidden line; files with a hidden function fixed (every
// hidden function in the ladder or added).
var counts = map[string]*[4]int{}

func count(rule string, k int) {
	if counts[rule] == nil {
		counts[rule] = &[4]int{}
	}
	counts[rule][k]++
}

func tally(ctx context.Context, a eval.DumpAnswer, src []byte, q *query.Query) {
	lang := treesitter.Detect(a.Path, src)
	if lang == "" {
		return
	}
	syms, err := treesitter.Symbols(ctx, lang, src)
	if err != nil {
		return
	}
	var fns []treesitter.Symbol
	for _, s := range syms.Symbols {
		if (s.Kind == "function" || s.Kind == "method") && s.End > s.Start {
			fns = append(fns, s)
		}
	}
	if len(fns) == 0 {
		return
	}
	spans := make([]tree.DefSpan, len(fns))
	for i, s := range fns {
		spans[i] = tree.DefSpan{Start: s.Start, End: s.End}
	}
	dt := tree.NewDefTerms(src, spans)
	inner := func(l int) int {
		in := -1
		for i, s := range fns {
			if s.Start <= l && l <= s.End && (in < 0 || s.Start >= fns[in].Start) {
				in = i
			}
		}
		return in
	}
	changed, hidden := map[int]bool{}, map[int]bool{}
	for _, l := range a.Seen {
		if k := inner(l); k >= 0 {
			changed[k] = true
		}
	}
	for _, l := range a.Hidden {
		if k := inner(l); k >= 0 {
			changed[k] = true
			hidden[k] = true
		}
	}
	inLadder := map[int]int{} // fn -> rank
	for r, d := range a.FocusDefs {
		if k := inner(d.Line); k >= 0 {
			if _, ok := inLadder[k]; !ok {
				inLadder[k] = r
			}
		}
	}
	// body df and name df per focus term
	fq := tree.NewFocusQuery(q)
	_ = fq
	bodyHolds := make([]map[string]bool, len(fns))
	nameHolds := make([]map[string]bool, len(fns))
	bdf, ndf := map[string]int{}, map[string]int{}
	for i := range fns {
		bodyHolds[i], nameHolds[i] = map[string]bool{}, map[string]bool{}
	}
	for _, w := range q.FocusWords {
		if _, ok := bdf[w]; ok {
			continue
		}
		bdf[w] = 0
		wt := tree.TermsOf([]string{w})
		st := tree.NewDefStats(tree.NewFocusQuery(&query.Query{FocusWords: []string{w}}))
		st.Add(dt, nil)
		for i, s := range fns {
			if sc, _ := st.Score(dt, i); sc > 0 {
				bodyHolds[i][w] = true
				bdf[w]++
			}
			if len(wt) > 0 && slices.Contains(tree.TermsOf([]string{s.Name}), wt[0]) {
				nameHolds[i][w] = true
				ndf[w]++
			}
		}
	}
	top := map[string]bool{} // names of the ladder's best 3
	for k, r := range inLadder {
		if r < 3 {
			top[fns[k].Name] = true
		}
	}
	// holdsRare: definition i holds a word of holds[i] that no more than
	// most definitions hold (df).
	holdsRare := func(holds []map[string]bool, df map[string]int, most int) func(i int) bool {
		return func(i int) bool {
			for w := range holds[i] {
				if df[w] <= most {
					return true
				}
			}
			return false
		}
	}
	rules := map[string]func(i int) bool{
		"name<=3": holdsRare(nameHolds, ndf, 3),
		"name<=1": holdsRare(nameHolds, ndf, 1),
		"rare<=3": holdsRare(bodyHolds, bdf, 3),
		"rare<=2": holdsRare(bodyHolds, bdf, 2),
		"twin":    func(i int) bool { return top[fns[i].Name] },
	}
	for name, rule := range rules {
		fixed := true
		for i := range fns {
			if _, ok := inLadder[i]; ok {
				continue
			}
			if rule(i) {
				count(name, 0)
				if changed[i] {
					count(name, 1)
				}
				if hidden[i] {
					count(name, 2)
				}
			} else if hidden[i] {
				fixed = false
			}
		}
		if fixed && len(hidden) > 0 {
			notIn := false
			for i := range hidden {
				if _, ok := inLadder[i]; !ok {
					notIn = true
				}
			}
			if notIn {
				count(name, 3)
			}
		}
	}
	for i := range hidden {
		if _, ok := inLadder[i]; !ok {
			count("hidden fns not in ladder", 0)
		}
	}
	count("files", 0)
}

func printStats() {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		c := counts[k]
		fmt.Printf("%-26s added %5d changed %4d hidden %4d files-fixed %4d\n", k, c[0], c[1], c[2], c[3])
	}
}

func ladder(a eval.DumpAnswer) []int {
	var out []int
	for _, d := range a.FocusDefs {
		out = append(out, d.Line)
	}
	return out
}

func describe(ctx context.Context, a eval.DumpAnswer, src []byte, q *query.Query) {
	lang := treesitter.Detect(a.Path, src)
	if lang == "" {
		return
	}
	syms, err := treesitter.Symbols(ctx, lang, src)
	if err != nil {
		return
	}
	isFn := func(s treesitter.Symbol) bool { return s.Kind == "function" || s.Kind == "method" }
	var fns []treesitter.Symbol
	for _, s := range syms.Symbols {
		if isFn(s) && s.End > s.Start {
			fns = append(fns, s)
		}
	}
	spans := make([]tree.DefSpan, len(fns))
	for i, s := range fns {
		spans[i] = tree.DefSpan{Start: s.Start, End: s.End}
	}
	dt := tree.NewDefTerms(src, spans)
	// holders[w]: the functions holding focus word w.
	holders := map[string][]int{}
	for _, w := range q.FocusWords {
		fq := tree.NewFocusQuery(&query.Query{FocusWords: []string{w}})
		st := tree.NewDefStats(fq)
		st.Add(dt, nil)
		for i := range fns {
			if sc, _ := st.Score(dt, i); sc > 0 {
				holders[w] = append(holders[w], i)
			}
		}
	}
	lines := strings.Split(string(src), "\n")
	seen := map[int]bool{}
	for _, l := range a.Hidden {
		in := -1
		for i, s := range fns {
			if s.Start <= l && l <= s.End && (in < 0 || s.Start >= fns[in].Start) {
				in = i
			}
		}
		if in < 0 {
			enc := ""
			for _, s := range syms.Symbols {
				if s.Start <= l && l <= s.End {
					enc += " " + s.Kind + ":" + s.Name
				}
			}
			txt := ""
			if l-1 < len(lines) {
				txt = strings.TrimSpace(lines[l-1])
			}
			fmt.Printf("    %d outside [%s] %.80q\n", l, strings.TrimSpace(enc), txt)
			continue
		}
		if seen[in] {
			continue
		}
		seen[in] = true
		s := fns[in]
		rank := slices.IndexFunc(a.FocusDefs, func(d eval.DumpDef) bool { return s.Start <= d.Line && d.Line <= s.End })
		var held []string
		for _, w := range q.FocusWords {
			if slices.Contains(holders[w], in) {
				tag := fmt.Sprintf("%s/%d", w, len(holders[w]))
				if slices.Contains(tree.TermsOf([]string{s.Name}), tree.TermsOf([]string{w})[0]) {
					tag += "*"
				}
				held = append(held, tag)
			}
		}
		fmt.Printf("    %d in %s %s %d-%d (%d lines) rank=%d holds=%v of %d fns\n", l, s.Kind, s.Name, s.Start, s.End, s.End-s.Start+1, rank, held, len(fns))
	}
}
