// Command stepmiss reads fitalloc's recorded cases (-record), fits each
// again at the current constants and, for every answer file the fit
// placed with a hidden changed line, lists the views the engine gave it:
// each one's cost as rendered, its level, how many focus lines it shows
// and whether it shows every changed line; and where the rest of the
// context went. The material for the focus ladder's shape: was a view
// showing the lines there, what did it cost beside the one bought.
//
//	go run ./scripts/stepmiss [-budget 8000] [-v] /tmp/x/gin.gob ...
//	go run ./scripts/stepmiss -defs /tmp/x/*.gob > defs.txt; python3 scripts/stepmiss/order.py defs.txt
//
// -defs prints instead, per answer file with ranked focus definitions,
// each definition (its ladder place, score, global score, lines, bytes,
// and whether it holds a changed line); order.py fits which definition
// holds the change (a conditional logit on log score and log size) and
// compares ladder orders and step sets by the bytes each needs to show
// every changed definition.
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/gob"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
)

func main() {
	budget := flag.Int("budget", 8000, "the budget")
	verbose := flag.Bool("v", false, "every view of every missed file")
	defs := flag.Bool("defs", false, "print the answer files' ladder definitions instead: case file index score global lines bytes changed")
	flag.Parse()
	counter, _ := tokens.ForModel(config.Default().Model, 0)
	ctx := context.Background()
	class := map[string]int{}
	for _, p := range flag.Args() {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		dec := gob.NewDecoder(zr)
		for {
			var fc eval.FitCase
			if err := dec.Decode(&fc); err == io.EOF {
				break
			} else if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if fc.Budget != *budget {
				continue
			}
			if *defs {
				printDefs(ctx, &fc)
				continue
			}
			views := map[string][]compress.View{}
			for i, c := range fc.Chunks {
				if i < len(fc.Views) {
					views[c.Source] = fc.Views[i]
				}
			}
			format := fc.Format
			render := func(c ctxd.Chunk) string { return prompt.Section(c, format) }
			got, err := compress.Fit(ctx, fc.Chunks, compress.Options{
				Budget: fc.ContextBudget, Counter: counter, Render: render,
				Views: func(_ context.Context, c *ctxd.Chunk) []compress.View { return views[c.Source] },
				Task:  fc.Task,
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				continue
			}
			bysrc := map[string]ctxd.Chunk{}
			for _, c := range got.Chunks {
				bysrc[c.Source] = c
			}
			for _, a := range fc.Answer {
				lines := fc.Changed[a]
				if len(lines) == 0 {
					continue
				}
				pc, ok := bySrcOK(bysrc, a)
				if ok && !hides(pc, lines) {
					continue
				}
				var orig *ctxd.Chunk
				rank := -1
				for i := range fc.Chunks {
					if fc.Chunks[i].Source == a {
						orig, rank = &fc.Chunks[i], i
					}
				}
				if !ok || orig == nil {
					class["not placed"]++
					continue
				}
				whole := counter.Count(render(*orig))
				// The views, their costs, and whether each shows the lines.
				type vi struct {
					level     ctxd.View
					tok       int
					fshown, n int
					shows     bool
				}
				var vs []vi
				for _, v := range views[a] {
					c := *orig
					c.Content, c.Truncated, c.Truncation, c.Elided = v.Text, true, v.Level, v.Elided
					sh, n := 0, len(c.Facts.FocusLines)
					for _, l := range c.Facts.FocusLines {
						if !ctxd.InRanges(v.Elided, l) {
							sh++
						}
					}
					vs = append(vs, vi{v.Level, counter.Count(render(c)), sh, n, !hides(c, lines)})
				}
				cheapest := -1
				for k, v := range vs {
					if v.shows && (cheapest < 0 || v.tok < vs[cheapest].tok) {
						cheapest = k
					}
				}
				kind := "no view shows"
				if cheapest >= 0 {
					v := vs[cheapest]
					kind = string(v.level)
					if v.level == ctxd.ViewFocus || v.level == ctxd.ViewFocusOnly {
						kind = "focus 1-3" // the view keeps at most 3 focus lines' functions
						if v.fshown > 3 {
							kind = "focus 4+"
						}
					}
					if v.tok <= pc.Tokens {
						kind += " (cheaper than placed)"
					}
				}
				if whole <= fc.ContextBudget && cheapest < 0 {
					kind = "whole only"
				}
				class[kind]++
				other := 0
				for _, c := range got.Chunks {
					if !slices.Contains(fc.Answer, c.Source) {
						other += c.Tokens
					}
				}
				fmt.Printf("%s %d %s rank %d placed %s %d tok (whole %d); other files %d of %d; showing view: %s", fc.Commit[:8], fc.Budget, a, rank, pc.Truncation, pc.Tokens, whole, other, fc.ContextBudget, kind)
				if cheapest >= 0 {
					fmt.Printf(" %d tok", vs[cheapest].tok)
				}
				fmt.Println()
				if *verbose {
					for _, d := range orig.Facts.FocusDefs {
						fmt.Printf("    def %d %.2f g%.2f\n", d.Line, d.Score, d.Global)
					}
					for _, v := range vs {
						fmt.Printf("    %-12s %6d focus %d/%d shows %v\n", v.level, v.tok, v.fshown, v.n, v.shows)
					}
				}
			}
		}
	}
	fmt.Println(class)
}

func bySrcOK(m map[string]ctxd.Chunk, s string) (ctxd.Chunk, bool) {
	c, ok := m[s]
	return c, ok && c.Content != ""
}

func hides(c ctxd.Chunk, lines []int) bool {
	for _, l := range lines {
		if ctxd.InRanges(c.Elided, l) {
			return true
		}
	}
	return false
}

// printDefs prints, for each answer file of fc with ladder scores, each
// ladder definition that starts a symbol: its place, score, global
// score, size and whether it holds a changed line.
func printDefs(ctx context.Context, fc *eval.FitCase) {
	for _, c := range fc.Chunks {
		if !slices.Contains(fc.Answer, c.Source) || len(c.Facts.FocusDefs) < 2 {
			continue
		}
		lang := treesitter.Detect(c.Source, []byte(c.Content))
		if lang == "" {
			continue
		}
		fs, err := treesitter.Symbols(ctx, lang, []byte(c.Content))
		if err != nil {
			continue
		}
		lines := strings.SplitAfter(c.Content, "\n")
		for k, d := range c.Facts.FocusDefs {
			end, kind := -1, ""
			for _, s := range fs.Symbols {
				if s.Start == d.Line && s.End >= s.Start {
					end, kind = s.End, s.Kind
					break
				}
			}
			if end < 0 {
				fmt.Printf("%s %s %d %d run\n", fc.Commit[:8], c.Source, k, d.Line)
				continue
			}
			n := 0
			for l := d.Line; l <= end && l <= len(lines); l++ {
				n += len(lines[l-1])
			}
			ch := 0
			for _, l := range fc.Changed[c.Source] {
				if l >= d.Line && l <= end {
					ch = 1
				}
			}
			fmt.Printf("%s %s %d %d def %s %.3f %.3f %d %d %d\n", fc.Commit[:8], c.Source, k, d.Line, kind, d.Score, d.Global, end-d.Line+1, n, ch)
		}
	}
}
