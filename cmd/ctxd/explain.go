package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
)

// explainTerms is how many score terms a line of --explain names.
const explainTerms = 3

// writeExplain prints, for a person at the terminal, what reached the
// context and why: each chunk's view, tokens, score and its largest score
// terms, then each skipped chunk with the reason it was left out. Names
// are escaped (esc): a file name must not drive the terminal.
func writeExplain(w io.Writer, env *ctxd.Envelope) error {
	c := env.Context
	var b strings.Builder
	fmt.Fprintf(&b, "ctxd: context %d of %d tokens (%.0f%%), %d chunks, %d skipped; task %s (%s); model %s\n",
		c.TokensUsed, c.Budget, 100*c.Utilization, len(c.Chunks), len(c.Skipped), env.TaskType, env.TaskTypeSource, env.Model.Name)
	width := 0
	for _, ch := range c.Chunks {
		width = max(width, len(esc(ch.Source)))
	}
	for _, s := range c.Skipped {
		width = max(width, len(esc(s.Source)))
	}
	width = min(width, 60)
	if len(c.Chunks) > 0 {
		b.WriteString("included:\n")
	}
	for i, ch := range c.Chunks {
		view := string(ch.Shown())
		if ch.Truncated {
			if ch.OriginalTokens > 0 {
				view += fmt.Sprintf(" of %d", ch.OriginalTokens)
			}
		}
		fmt.Fprintf(&b, "  %2d. %-*s %6d tok  %-20s score %7.1f  %s\n", i+1, width, esc(ch.Source), ch.Tokens, view, ch.Score, terms(ch.ScoreBreakdown))
	}
	if len(c.Skipped) > 0 {
		b.WriteString("skipped:\n")
	}
	for _, s := range c.Skipped {
		score := ""
		if s.Score != 0 || len(s.ScoreBreakdown) > 0 {
			score = fmt.Sprintf("  score %.1f: %s", s.Score, terms(s.ScoreBreakdown))
		}
		fmt.Fprintf(&b, "      %-*s %6d tok  %s%s\n", width, esc(s.Source), s.Tokens, esc(s.Reason), score)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// terms names a breakdown's largest terms by share: "reason (45%), …".
func terms(bd []ctxd.ScoreTerm) string {
	ts := slices.Clone(bd)
	vsort.StableFunc(ts, func(a, b ctxd.ScoreTerm) int { return cmp.Compare(math.Abs(b.Value), math.Abs(a.Value)) })
	var parts []string
	for _, t := range ts {
		if len(parts) == explainTerms {
			break
		}
		if t.Value == 0 {
			continue
		}
		name := cmp.Or(t.Reason, t.Term)
		if t.Share != 0 {
			name += fmt.Sprintf(" (%+.0f%%)", 100*t.Share)
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, "; ")
}
