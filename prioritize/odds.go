package prioritize

import (
	"fmt"
	"math"

	"github.com/ctxd/ctxd"
)

// AnswerFit holds the coefficients of the answer odds (answerOdds): per
// point of each score term (written per the term's full scale) and of
// the log of the chunk's size in tokens, at most TokensCap. A term it
// does not list counts 0: a new term has no coefficient until a refit.
// It is a conditional logit fit on the development set's commits
// (scripts/answerodds, set "order-cap": eval recall --dump of main
// 86e0e7f, 100 commits each of gin, cli, requests, httpx, express, vite
// and fastapi at 8k: every candidate file's score terms against whether
// the commit changed it, the log of the score a fixed offset, no rank;
// BENCHMARKS.md, "h25score (2026-11-30"). Left out of the fit, each
// repository's answers were better predicted than by the score: held-out
// log-likelihood per answer -1.453 against -1.655, an answer among the
// first three files 80.0% against 76.0% of the time. What it says: a
// point of lexical relevance, lexical rank or co-change predicts a file
// the task changes better than a point of mention, graph rank or
// priority, and a larger file is likelier: the log of its size up to
// 1,500 tokens, then the size penalty's points (-0.290 per 100) up to
// the penalty's cap (4,243 tokens), none past it.
var AnswerFit = struct {
	Tokens float64
	// TokensCap bounds the size's part: a file larger counts as this
	// large (0: no bound).
	TokensCap int
	Terms     map[string]float64
}{
	Tokens:    0.464,
	TokensCap: 1500,
	Terms: map[string]float64{
		ctxd.TermRelevance: 0.896 / 100,
		ctxd.TermRank:      0.789 / 300,
		ctxd.TermCoChange:  0.777 / 150,
		ctxd.TermGraph:     0.226 / 150,
		ctxd.TermMention:   0.348 / 100,
		ctxd.TermRecency:   0.352 / 100,
		ctxd.TermSize:      -0.290 / 100,
		ctxd.TermPriority:  -0.060 / 100,
	},
}

// oddsRef is the chunk whose odds are 1: a MEDIUM file of oddsRefTokens
// tokens with no other term. Only the odds' ratios between chunks
// matter (the order, the fitter's weight); the reference keeps a score
// near what its other terms sum to.
const (
	oddsRefPriority = ctxd.PriorityMedium
	oddsRefTokens   = 1500
)

// answerOdds is how much likelier than the reference chunk (oddsRef) the
// fit (AnswerFit) makes it that c is a file the task changes, given its
// score terms and its size: exp of the sum over its terms of each
// coefficient times the term's points, plus AnswerFit.Tokens times the
// log of its tokens. A critical chunk's priority (an open file, an error
// location) is the user's pointing, not the gatherer's guess: it is not
// counted.
func answerOdds(c *ctxd.Chunk, terms []ctxd.ScoreTerm) float64 {
	n := max(c.Tokens, 1)
	if AnswerFit.TokensCap > 0 {
		n = min(n, AnswerFit.TokensCap)
	}
	x := AnswerFit.Tokens * (math.Log(float64(n)) - math.Log(oddsRefTokens))
	x -= AnswerFit.Terms[ctxd.TermPriority] * float64(oddsRefPriority)
	for _, t := range terms {
		if t.Term == ctxd.TermPriority && c.Priority >= ctxd.PriorityCritical {
			continue
		}
		x += AnswerFit.Terms[t.Term] * t.Value
	}
	return math.Exp(x)
}

// oddsTerm is the answer odds as a score term: the other terms' sum (at
// least 1) times the odds less 1, so the score is that sum times the
// odds, and the order by score is the order by the fit (AnswerFit).
// Files that a request's rare words match and that changed with its
// files rise over those ranked by a common word, their priority or their
// links alone. A test file outside test tasks counts the square root of
// its odds: the fit saw no tests (a commit's tests are not the answer the
// eval asks for); with the whole odds a test that says the request's
// words most ranks over the code it tests (engine TestLexicalTargets),
// without any a test the request is about falls behind every matching
// source file (engine TestViewsRequests, vitest-nested). It returns false
// when the term is 0 to the tenth of a point.
func oddsTerm(c *ctxd.Chunk, terms []ctxd.ScoreTerm, task ctxd.TaskType) (ctxd.ScoreTerm, bool) {
	var sum float64
	for _, t := range terms {
		sum += t.Value
	}
	odds := answerOdds(c, terms)
	if c.Facts.Test && task != ctxd.TaskTest {
		odds = math.Sqrt(odds)
	}
	v := math.Round(max(sum, 1)*(odds-1)*10) / 10
	if v == 0 {
		return ctxd.ScoreTerm{}, false
	}
	return ctxd.ScoreTerm{Term: ctxd.TermOdds, Value: v, Reason: fmt.Sprintf("answer odds ×%.2f: how much likelier its other terms and its size (%d tokens) make it a file the task changes, by a fit on the development set's commits", odds, c.Tokens)}, true
}
