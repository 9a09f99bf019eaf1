package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
)

// dumpCase writes what one case showed at one budget to dir, as
// <index>-<commit>-<budget>.txt: the request, the answer files with their
// changed lines (seen or elided) and the lines the request pointed at in
// them (Facts.DeclLines, Facts.MatchLines), every included chunk (view, tokens,
// score, reasons) in the order the fitter placed them, the skipped ones,
// and the files the baseline filled the same budget with; each answer
// file's rank in ctxd's score order and in BM25's. It is for
// finding out why a line was not shown; its layout is not a format.
func dumpCase(dir string, i int, c Case, budget int, env *ctxd.Envelope, changed map[string][]int, bm25, bm25Ranked []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "commit %s  budget %d (context %d, used %d)\n", c.Commit, budget, env.Context.Budget, env.Context.TokensUsed)
	fmt.Fprintf(&b, "task %s\nrequest: %s\n\n", env.TaskType, strings.TrimSpace(c.Request))
	by := map[string]*ctxd.Chunk{}
	for k := range env.Context.Chunks {
		if env.Context.Chunks[k].Content != "" {
			by[env.Context.Chunks[k].Source] = &env.Context.Chunks[k]
		}
	}
	ranks := fileRanks(env)
	bmRanks := listRanks(bm25Ranked)
	b.WriteString("answer:\n")
	for _, a := range c.Answer {
		ch := by[a]
		view := "-"
		if ch != nil {
			view = string(ch.Shown())
		}
		var seen, hidden []int
		for _, l := range changed[a] {
			if ch != nil && !elided(ch, l) {
				seen = append(seen, l)
			} else {
				hidden = append(hidden, l)
			}
		}
		fmt.Fprintf(&b, "  %s rank=%d bm25rank=%d view=%s bm25=%v seen=%v hidden=%v\n", a, ranks[a], bmRanks[a], view, slices.Contains(bm25, a), seen, hidden)
		if ch != nil {
			fmt.Fprintf(&b, "    tokens %d of %d, focus %v, mentioned %v, elided %v\n", ch.Tokens, ch.OriginalTokens, ch.Facts.FocusLines, ch.Facts.MentionedSymbols, ch.Elided)
			fmt.Fprintf(&b, "    decl %v, match %v\n", ch.Facts.DeclLines, ch.Facts.MatchLines)
			for _, d := range ch.Facts.FocusDefs {
				fmt.Fprintf(&b, "    focus def %d score %.2f: %s\n", d.Line, d.Score, strings.Join(d.Why, " "))
			}
			if slices.ContainsFunc(ch.Facts.FocusDefs, func(d ctxd.DefScore) bool { return d.Global > 0 }) {
				b.WriteString("    global")
				for _, d := range ch.Facts.FocusDefs {
					fmt.Fprintf(&b, " %d:%.2f", d.Line, d.Global)
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\nincluded (score order):\n")
	for _, ch := range env.Context.Chunks {
		mark := " "
		if slices.Contains(c.Answer, ch.Source) {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %-50s %-11s %6d/%-6d score %7.1f  %s\n", mark, ch.Source, ch.Shown(), ch.Tokens, ch.OriginalTokens, ch.Score, strings.Join(ch.Facts.Reasons, "; "))
		fmt.Fprintf(&b, "      %s\n", terms(ch.ScoreBreakdown))
	}
	b.WriteString("\nskipped:\n")
	for _, sk := range env.Context.Skipped {
		fmt.Fprintf(&b, "  %-50s %6d score %7.1f  %s\n", sk.Source, sk.Tokens, sk.Score, sk.Reason)
		fmt.Fprintf(&b, "      %s\n", terms(sk.ScoreBreakdown))
	}
	fmt.Fprintf(&b, "\nbm25 whole files: %s\n", strings.Join(bm25, " "))
	name := filepath.Join(dir, fmt.Sprintf("%02d-%.12s-%d.txt", i+1, c.Commit, budget))
	if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	return nil
}

// terms writes a score breakdown on one line, "name=value" per term.
func terms(ts []ctxd.ScoreTerm) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s=%.0f", t.Term, t.Value)
	}
	return strings.Join(parts, " ")
}
