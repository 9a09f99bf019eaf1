// Package prioritize turns what the gatherer learned about each chunk into
// a score, with a breakdown that says why, and detects the task type of a
// request when the caller does not give one.
//
// The formula is the design's:
//
//	score = priority base + task relevance + recency + mention + relevance
//	        + custom boosts - size penalty
//
// Every term that applies is recorded in the chunk's ScoreBreakdown with its
// reason; the terms sum to the score. docs/scoring.md has the table.
package prioritize

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxd/ctxd"
)

// Task relevance boosts of the design, and ctxd's ANALYZE boost for the
// structure and dependency chunks (the design's table has none for ANALYZE;
// without one an analysis prompt would fill up with files first). The
// ANALYZE boost keeps a HIGH overview chunk (800+150) below a CRITICAL one
// (an open file), which the user asked about.
const (
	BoostDebugError      = 300
	BoostInnermost       = 150 // on top of BoostDebugError
	BoostTestFiles       = 250
	BoostImplementTarget = 400
	BoostRefactorDeps    = 200
	BoostAnalyzeOverview = 150
	// BoostHowToDoc raises, for a question about how to use the project,
	// a Markdown document with sections that match it (their headings
	// are its focus lines) to the level of a good code match: those
	// sections are the answer, beside the code.
	BoostHowToDoc = 400
)

// Other term scales (see docs/scoring.md).
const (
	// MaxRecency is the boost for a file changed in the newest commit or
	// with uncommitted changes; older changes get proportionally less.
	MaxRecency = 150
	// MentionBoost applies when the request names the source; each symbol of
	// the request found in it adds MentionSymbolBoost, up to MaxMention.
	MentionBoost       = 300
	MentionSymbolBoost = 50
	MaxMention         = 400
	// RelevanceScale multiplies the lexical relevance (0..1).
	RelevanceScale = 300
	// RankScale and RankK set the rank term, a reciprocal-rank fusion of
	// the lexical ranking into the score: RankScale*RankK/(RankK+rank-1),
	// RankScale for the best file, half of it at rank RankK+1. Relevance
	// is capped at 1 and ties among the strong matches; the rank keeps
	// their order.
	RankScale = 300
	RankK     = 8.0
	// SizeFree is the size in tokens below which no penalty applies; above it
	// the penalty grows with the log of the size, up to MaxSizePenalty.
	SizeFree       = 1500
	MaxSizePenalty = 150
)

// FusionWeights scale the link signals' rank terms, fused like the
// lexical rank: Scale*K/(K+rank-1).
type FusionWeights struct {
	Graph, CoChange float64
	// Message weighs the rank among the files of the recent commits
	// whose subjects share the request's words (Facts.MessageRank).
	Message float64
	K       float64
}

// DefaultFusion returns the weights in use, fit on the development set
// by scripts/fitweights (see BENCHMARKS.md); a search tries others
// through Options.Fusion (and eval.Options.Fusion), never by changing
// these.
func DefaultFusion() FusionWeights {
	return FusionWeights{Graph: 150, CoChange: 150, Message: 150, K: RankK}
}

// orDefault is w, or DefaultFusion when w is the zero value.
func (w FusionWeights) orDefault() FusionWeights {
	if w == (FusionWeights{}) {
		return DefaultFusion()
	}
	return w
}

// Boost is a custom score boost for sources matching a doublestar pattern
// (the design's custom prioritizer, configured under [priority]).
type Boost struct {
	Pattern string
	Value   int
}

// Options configure scoring.
type Options struct {
	Task   ctxd.TaskType
	Boosts []Boost
	// Commits is how many recent commits the gatherer looked at, to scale
	// the recency boost (0 means 5).
	Commits int
	// Fusion weighs the link signals' rank terms; the zero value is
	// DefaultFusion.
	Fusion FusionWeights
	// HowTo: the request asks how to use the project
	// (query.Query.HowTo); a document whose sections answer it
	// (Facts.DocSections) gets BoostHowToDoc.
	HowTo bool
}

// BoostsFromMap turns the configuration's pattern → value map into a
// sorted list, so scoring is deterministic.
func BoostsFromMap(m map[string]int) []Boost {
	bs := make([]Boost, 0, len(m))
	for p, v := range m {
		bs = append(bs, Boost{Pattern: p, Value: v})
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Pattern < bs[j].Pattern })
	return bs
}

// Score fills each chunk's Score and ScoreBreakdown and sorts cs by score,
// highest first (ties: the better lexical match, then higher priority, then
// fewer tokens, then source), so
// the order is deterministic. Chunk.Tokens must already be counted.
func Score(cs []ctxd.Chunk, opts Options) {
	opts.Fusion = opts.Fusion.orDefault()
	for i := range cs {
		terms := Terms(&cs[i], opts)
		var sum, abs float64
		for _, t := range terms {
			sum += t.Value
			abs += math.Abs(t.Value)
		}
		if abs > 0 {
			for k := range terms {
				terms[k].Share = math.Round(terms[k].Value/abs*1000) / 1000
			}
		}
		cs[i].ScoreBreakdown = terms
		cs[i].Score = math.Round(sum*10) / 10
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := &cs[i], &cs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Facts.LexicalShare != b.Facts.LexicalShare {
			return a.Facts.LexicalShare > b.Facts.LexicalShare
		}
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if a.Tokens != b.Tokens {
			return a.Tokens < b.Tokens
		}
		return a.Source < b.Source
	})
}

// Terms computes the score terms of one chunk.
func Terms(c *ctxd.Chunk, opts Options) []ctxd.ScoreTerm {
	f := &c.Facts
	w := opts.Fusion.orDefault()
	terms := []ctxd.ScoreTerm{{Term: ctxd.TermPriority, Value: float64(c.Priority), Reason: baseReason(c)}}
	add := func(term string, v float64, reason string) {
		if v != 0 {
			terms = append(terms, ctxd.ScoreTerm{Term: term, Value: math.Round(v*10) / 10, Reason: reason})
		}
	}

	if v, why := taskBoost(c, opts.Task); v != 0 {
		add(ctxd.TermTask, v, why)
	}
	if opts.HowTo && howToSections(c) {
		add(ctxd.TermTask, BoostHowToDoc, "how-to: documentation "+strings.Join(f.FocusDefs[0].Why, ", ")+" answers it")
	}
	if v, why := recency(f, opts.Commits); v != 0 {
		add(ctxd.TermRecency, v, why)
	}
	if v, why := mention(f); v != 0 {
		add(ctxd.TermMention, v, why)
	}
	if v, why := relevance(f); v > 0 {
		add(ctxd.TermRelevance, v*RelevanceScale, why)
	}
	if f.LexicalRank > 0 {
		why := fmt.Sprintf("lexical rank %d in the workspace", f.LexicalRank)
		if m := f.Lexical; m != nil {
			why += fmt.Sprintf(" (BM25 from definitions %.0f%%, path %.0f%%, content %.0f%%; %s prior ×%.2f)", 100*m.Definitions, 100*m.Path, 100*m.Content, m.Role, m.Prior)
		}
		add(ctxd.TermRank, rankTerm(f.LexicalRank), why)
	}
	if f.GraphRank > 0 && w.Graph > 0 {
		add(ctxd.TermGraph, w.term(w.Graph, f.GraphRank),
			fmt.Sprintf("graph rank %d: linked by imports or references to the request's files", f.GraphRank))
	}
	if f.CoChangeRank > 0 && w.CoChange > 0 {
		add(ctxd.TermCoChange, w.term(w.CoChange, f.CoChangeRank),
			fmt.Sprintf("co-change rank %d: changed together with the request's files in recent commits", f.CoChangeRank))
	}
	if f.MessageRank > 0 && w.Message > 0 {
		add(ctxd.TermMessage, w.term(w.Message, f.MessageRank),
			fmt.Sprintf("message rank %d: changed by recent commits whose subjects share the request's words", f.MessageRank))
	}
	for _, b := range opts.Boosts {
		if ok, _ := doublestar.Match(b.Pattern, c.Source); ok {
			add(ctxd.TermCustom, float64(b.Value), "configured boost for "+b.Pattern)
		}
	}
	// Critical chunks (open files, error locations) must be included; a
	// size penalty would only let lesser chunks overtake them. The
	// compressor shrinks them to fit instead.
	if p := SizePenalty(c.Tokens); p > 0 && c.Priority < ctxd.PriorityCritical {
		add(ctxd.TermSize, -p, fmt.Sprintf("%d tokens", c.Tokens))
	}
	return terms
}

// howToSections reports a document whose focus lines are the sections a
// how-to matched (engine's docSections).
func howToSections(c *ctxd.Chunk) bool {
	return c.Facts.DocSections && len(c.Facts.FocusDefs) > 0
}

// RankTerm is a reciprocal-rank term: scale at rank 1, half of it at
// rank k+1 (the lexical rank's and the link signals' shape; a ranker's
// fit, scripts/fitrank, moves scale and k).
func RankTerm(scale, k float64, rank int) float64 { return scale * k / (k + float64(rank-1)) }

// rankTerm is the lexical rank's term (RankScale at rank 1).
func rankTerm(rank int) float64 { return RankTerm(RankScale, RankK, rank) }

// term is a link signal's rank term at weight scale (one of w's).
func (w FusionWeights) term(scale float64, rank int) float64 { return RankTerm(scale, w.K, rank) }

// SignalValue is the sum of the terms Terms gives f's lexical match and
// its lexical, graph, co-change and message ranks, unrounded: what gathering
// compares of files no source gathered (gather's fused ranking). w weighs
// the link signals as Options.Fusion does (zero: DefaultFusion).
func SignalValue(f *ctxd.Facts, w FusionWeights) float64 {
	w = w.orDefault()
	v := 0.0
	if r, _ := relevance(f); r > 0 {
		v += r * RelevanceScale
	}
	if f.LexicalRank > 0 {
		v += rankTerm(f.LexicalRank)
	}
	if f.GraphRank > 0 && w.Graph > 0 {
		v += w.term(w.Graph, f.GraphRank)
	}
	if f.CoChangeRank > 0 && w.CoChange > 0 {
		v += w.term(w.CoChange, f.CoChangeRank)
	}
	if f.MessageRank > 0 && w.Message > 0 {
		v += w.term(w.Message, f.MessageRank)
	}
	return v
}

// relevance is the lexical term's weight (0..1) and its reason: the
// absolute relevance (capped at 1, so a weak best match stays weak), but
// never more than the file's share of the best file's BM25 score. Most
// strong matches reach the cap, and without the share they tie however
// far apart BM25 put them (httpx: the answer file ranked 3rd-10th among
// files all at 1.00).
func relevance(f *ctxd.Facts) (float64, string) {
	v := f.Relevance
	if v <= 0 {
		return 0, ""
	}
	if f.LexicalShare > 0 && f.LexicalShare < v {
		return f.LexicalShare, fmt.Sprintf("lexical match %.2f with the request, %.0f%% of the best file's", f.Relevance, 100*f.LexicalShare)
	}
	return v, fmt.Sprintf("lexical match %.2f with the request", v)
}

func baseReason(c *ctxd.Chunk) string {
	r := c.Priority.String()
	if len(c.Facts.Reasons) > 0 {
		r += ": " + strings.Join(c.Facts.Reasons, ", ")
	}
	return r
}

// pointedAt reports whether the user pointed at the file: open, named by
// a pattern, by the request (its path, a name it defines) or by a stack
// trace. A target that is not pointed at is the gatherer's guess from the
// request's words (its best lexical matches, the source of a test).
func pointedAt(f *ctxd.Facts) bool { return f.Open || f.Explicit || f.Mentioned }

func taskBoost(c *ctxd.Chunk, task ctxd.TaskType) (float64, string) {
	f := &c.Facts
	switch task {
	case ctxd.TaskDebug:
		if f.InnermostFrame {
			return BoostDebugError + BoostInnermost, "debug: innermost frame, where the error was raised"
		}
		if f.Role == ctxd.RoleError || len(f.ErrorLines) > 0 {
			return BoostDebugError, "debug: error location"
		}
		if c.ChunkType == ctxd.ChunkDiff {
			return BoostDebugError / 2, "debug: uncommitted changes may hold the bug"
		}
	case ctxd.TaskTest:
		if f.Test || f.Role == ctxd.RoleTest {
			return BoostTestFiles, "test: test file or fixture"
		}
		if f.Role == ctxd.RoleTarget {
			return BoostTestFiles, "test: module under test"
		}
	// Implement and refactor boost the targets the user pointed at, not
	// the gatherer's guesses: a best lexical match is already HIGH and
	// scored by its match, and the boost on top outranked the file that
	// defines the name the request writes ("Cleanup `Request` method
	// parameter": httpx's _client.py, which says Request most, over
	// _models.py, which defines it).
	case ctxd.TaskImplement:
		if f.Role == ctxd.RoleTarget && pointedAt(f) {
			return BoostImplementTarget, "implement: target"
		}
	case ctxd.TaskRefactor:
		if f.Role == ctxd.RoleDependent {
			return BoostRefactorDeps, "refactor: depends on the target"
		}
		if f.Role == ctxd.RoleTarget && pointedAt(f) {
			return BoostRefactorDeps, "refactor: file to refactor"
		}
	case ctxd.TaskAnalyze:
		if c.ChunkType == ctxd.ChunkStructure || c.ChunkType == ctxd.ChunkDependency {
			return BoostAnalyzeOverview, "analyze: codebase overview"
		}
	}
	return 0, ""
}

func recency(f *ctxd.Facts, commits int) (float64, string) {
	if commits <= 0 {
		commits = 5
	}
	if f.Dirty {
		return MaxRecency, "uncommitted changes"
	}
	if f.CommitRank > 0 && f.CommitRank <= commits {
		v := MaxRecency * float64(commits-f.CommitRank+1) / float64(commits)
		if f.CommitRank == 1 {
			return v, "changed in the latest commit"
		}
		return v, fmt.Sprintf("changed in commit %d of the last %d", f.CommitRank, commits)
	}
	return 0, ""
}

func mention(f *ctxd.Facts) (float64, string) {
	var v float64
	var why []string
	if f.Mentioned {
		v += MentionBoost
		why = append(why, "named in the request")
	}
	if n := len(f.MentionedSymbols); n > 0 {
		v += float64(n * MentionSymbolBoost)
		why = append(why, "defines "+strings.Join(f.MentionedSymbols, ", "))
	}
	if n := len(f.UsedSymbols); n > 0 {
		v += float64(n * MentionSymbolBoost)
		why = append(why, "uses "+strings.Join(f.UsedSymbols, ", "))
	}
	return math.Min(v, MaxMention), strings.Join(why, "; ")
}

// SizePenalty is the penalty for a chunk of n tokens: none up to SizeFree,
// then 100 per doubling, capped at MaxSizePenalty. Big files still get in
// when they matter; they just lose ties to small ones.
func SizePenalty(n int) float64 {
	if n <= SizeFree {
		return 0
	}
	p := 100 * math.Log2(float64(n)/SizeFree)
	return math.Min(math.Round(p*10)/10, MaxSizePenalty)
}
