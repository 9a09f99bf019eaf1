package main

import (
	"math"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/prioritize"
)

// TestCurrentIsPrioritize: at the current scales the model's score is
// prioritize's, term for term recomputed from the ranks, so a fit starts
// from the order ctxd has; it fails when prioritize's terms change shape
// and this model does not follow.
func TestCurrentIsPrioritize(t *testing.T) {
	cs := []ctxd.Chunk{
		{Source: "a.go", ChunkType: ctxd.ChunkFile, Priority: ctxd.PriorityHigh, Tokens: 4000, Facts: ctxd.Facts{
			Relevance: 1, LexicalShare: 0.6, LexicalRank: 3, GraphRank: 2, CoChangeRank: 7, CommitRank: 2, Mentioned: true, MentionedSymbols: []string{"Run"}, Role: ctxd.RoleTarget}},
		{Source: "b.go", ChunkType: ctxd.ChunkFile, Priority: ctxd.PriorityMedium, Tokens: 900, Facts: ctxd.Facts{
			Relevance: 0.4, LexicalRank: 12, CoChangeRank: 1, Role: ctxd.RoleDependent}},
		{Source: "b_test.go", ChunkType: ctxd.ChunkFile, Priority: ctxd.PriorityLow, Tokens: 2500, Facts: ctxd.Facts{
			Relevance: 0.7, LexicalShare: 0.9, LexicalRank: 1, Test: true, Role: ctxd.RoleTest}},
		{Source: "structure", ChunkType: ctxd.ChunkStructure, Priority: ctxd.PriorityLow, Tokens: 300},
	}
	for _, task := range []ctxd.TaskType{ctxd.TaskImplement, ctxd.TaskRefactor, ctxd.TaskTest, ctxd.TaskDebug} {
		scored := append([]ctxd.Chunk(nil), cs...)
		prioritize.Score(scored, prioritize.Options{Task: task})
		p := current()
		for _, c := range scored {
			it := item{source: c.Source, file: c.ChunkType == ctxd.ChunkFile, terms: map[string]float64{},
				lex: c.Facts.LexicalRank, gr: c.Facts.GraphRank, co: c.Facts.CoChangeRank, task: string(task), role: c.Facts.Role}
			for _, term := range c.ScoreBreakdown {
				it.terms[term.Term] += term.Value
			}
			if got := p.score(&it); math.Abs(got-c.Score) > 0.5 {
				t.Errorf("%s %s: model %.1f, prioritize %.1f (%v)", task, c.Source, got, c.Score, c.ScoreBreakdown)
			}
		}
	}
	// And the order it measures: a at the current scales first, the
	// answer found at rank 1.
	r := &request{shown: 2, nans: 1, items: []item{
		{file: true, answer: true, terms: map[string]float64{ctxd.TermPriority: 800}, lex: 1},
		{file: true, terms: map[string]float64{ctxd.TermPriority: 500}, lex: 2},
	}}
	if m := evaluate(current(), []*request{r}); m.top1 != 1 || m.mrr != 1 || m.allK != 1 {
		t.Errorf("metrics %s", m)
	}
	r.items[0].answer, r.items[1].answer = false, true
	if m := evaluate(current(), []*request{r}); m.top1 != 0 || m.mrr != 0.5 || m.recallK != 1 {
		t.Errorf("metrics with the answer second: %s", m)
	}
}
