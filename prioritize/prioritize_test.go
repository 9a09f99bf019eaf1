package prioritize

import (
	"math"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

func chunk(src string, p ctxd.Priority, tokens int, f ctxd.Facts) ctxd.Chunk {
	return ctxd.Chunk{Source: src, ChunkType: ctxd.ChunkFile, Priority: p, Tokens: tokens, Facts: f}
}

func TestScoreTerms(t *testing.T) {
	tests := []struct {
		name  string
		chunk ctxd.Chunk
		opts  Options
		want  map[string]float64
	}{
		{
			name:  "debug error file",
			chunk: chunk("a.go", ctxd.PriorityCritical, 100, ctxd.Facts{Role: ctxd.RoleError, ErrorLines: []int{12}}),
			opts:  Options{Task: ctxd.TaskDebug},
			want:  map[string]float64{ctxd.TermPriority: 1000, ctxd.TermTask: 300},
		},
		{
			name:  "test file in a test task",
			chunk: chunk("a_test.go", ctxd.PriorityHigh, 100, ctxd.Facts{Test: true}),
			opts:  Options{Task: ctxd.TaskTest},
			want:  map[string]float64{ctxd.TermPriority: 800, ctxd.TermTask: 250},
		},
		{
			name:  "implement target, mentioned, recent",
			chunk: chunk("auth.go", ctxd.PriorityHigh, 100, ctxd.Facts{Role: ctxd.RoleTarget, Mentioned: true, CommitRank: 1}),
			opts:  Options{Task: ctxd.TaskImplement, Commits: 5},
			want:  map[string]float64{ctxd.TermPriority: 800, ctxd.TermTask: 400, ctxd.TermMention: 300, ctxd.TermRecency: 150},
		},
		{
			name:  "implement target guessed from the request's words: no task boost",
			chunk: chunk("auth.go", ctxd.PriorityHigh, 100, ctxd.Facts{Role: ctxd.RoleTarget, Relevance: 1}),
			opts:  Options{Task: ctxd.TaskImplement},
			want:  map[string]float64{ctxd.TermPriority: 800, ctxd.TermRelevance: 300},
		},
		{
			name:  "refactor target the user opened",
			chunk: chunk("auth.go", ctxd.PriorityCritical, 100, ctxd.Facts{Role: ctxd.RoleTarget, Open: true}),
			opts:  Options{Task: ctxd.TaskRefactor},
			want:  map[string]float64{ctxd.TermPriority: 1000, ctxd.TermTask: 200},
		},
		{
			name:  "refactor dependent, older commit",
			chunk: chunk("uses.go", ctxd.PriorityMedium, 100, ctxd.Facts{Role: ctxd.RoleDependent, CommitRank: 4}),
			opts:  Options{Task: ctxd.TaskRefactor, Commits: 5},
			want:  map[string]float64{ctxd.TermPriority: 500, ctxd.TermTask: 200, ctxd.TermRecency: 60},
		},
		{
			name:  "lexical relevance and custom boost",
			chunk: chunk("domain/models/user.go", ctxd.PriorityMedium, 100, ctxd.Facts{Relevance: 0.5}),
			opts:  Options{Task: ctxd.TaskImplement, Boosts: []Boost{{"domain/models/**", 200}, {"other/**", 999}}},
			want:  map[string]float64{ctxd.TermPriority: 500, ctxd.TermRelevance: 150, ctxd.TermCustom: 200},
		},
		{
			name:  "big file is penalized",
			chunk: chunk("big.go", ctxd.PriorityMedium, 6000, ctxd.Facts{}),
			opts:  Options{Task: ctxd.TaskImplement},
			want:  map[string]float64{ctxd.TermPriority: 500, ctxd.TermSize: -150},
		},
		{
			name:  "mention capped",
			chunk: chunk("m.go", ctxd.PriorityLow, 10, ctxd.Facts{Mentioned: true, MentionedSymbols: []string{"A", "B", "C", "D"}}),
			opts:  Options{Task: ctxd.TaskImplement},
			want:  map[string]float64{ctxd.TermPriority: 200, ctxd.TermMention: MaxMention},
		},
		{
			name:  "analyze overview",
			chunk: ctxd.Chunk{Source: "structure", ChunkType: ctxd.ChunkStructure, Priority: ctxd.PriorityHigh, Tokens: 50, Facts: ctxd.Facts{}},
			opts:  Options{Task: ctxd.TaskAnalyze},
			want:  map[string]float64{ctxd.TermPriority: 800, ctxd.TermTask: 150},
		},
		{
			name:  "big critical file is not penalized",
			chunk: chunk("open.go", ctxd.PriorityCritical, 9000, ctxd.Facts{Open: true}),
			opts:  Options{Task: ctxd.TaskAnalyze},
			want:  map[string]float64{ctxd.TermPriority: 1000},
		},
		{
			name:  "dirty file",
			chunk: chunk("wip.go", ctxd.PriorityHigh, 10, ctxd.Facts{Dirty: true}),
			opts:  Options{Task: ctxd.TaskImplement},
			want:  map[string]float64{ctxd.TermPriority: 800, ctxd.TermRecency: 150},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := []ctxd.Chunk{tt.chunk}
			Score(cs, tt.opts)
			got := map[string]float64{}
			var sum float64
			for _, term := range cs[0].ScoreBreakdown {
				got[term.Term] += term.Value
				sum += term.Value
				if term.Reason == "" {
					t.Errorf("term %s has no reason", term.Term)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("terms %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if math.Abs(got[k]-v) > 0.05 {
					t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
			if math.Abs(sum-cs[0].Score) > 0.1 {
				t.Errorf("terms sum to %v, score is %v", sum, cs[0].Score)
			}
		})
	}
}

func TestScoreOrder(t *testing.T) {
	cs := []ctxd.Chunk{
		chunk("low.md", ctxd.PriorityLow, 10, ctxd.Facts{}),
		chunk("open.go", ctxd.PriorityCritical, 10, ctxd.Facts{Open: true}),
		chunk("b.go", ctxd.PriorityMedium, 20, ctxd.Facts{}),
		chunk("a.go", ctxd.PriorityMedium, 20, ctxd.Facts{}),
		chunk("small.go", ctxd.PriorityMedium, 5, ctxd.Facts{}),
	}
	Score(cs, Options{Task: ctxd.TaskImplement})
	want := []string{"open.go", "small.go", "a.go", "b.go", "low.md"}
	for i, w := range want {
		if cs[i].Source != w {
			t.Fatalf("order %d = %s, want %s", i, cs[i].Source, w)
		}
	}
}

func TestSizePenaltyMonotone(t *testing.T) {
	prev := 0.0
	for n := 0; n < 200000; n += 500 {
		p := SizePenalty(n)
		if p < prev || p > MaxSizePenalty {
			t.Fatalf("SizePenalty(%d) = %v after %v", n, p, prev)
		}
		prev = p
	}
}

func BenchmarkScore(b *testing.B) {
	cs := make([]ctxd.Chunk, 1000)
	for i := range cs {
		cs[i] = chunk("pkg/file.go", ctxd.PriorityMedium, i*7, ctxd.Facts{Relevance: float64(i%10) / 10, CommitRank: i % 7})
	}
	opts := Options{Task: ctxd.TaskImplement, Boosts: []Boost{{"pkg/**", 10}}}
	b.ReportAllocs()
	for b.Loop() {
		Score(cs, opts)
	}
}

func TestLinkTerms(t *testing.T) {
	cs := []ctxd.Chunk{
		chunk("store/ledger.go", ctxd.PriorityMedium, 100, ctxd.Facts{GraphRank: 1, CoChangeRank: 3}),
		chunk("store/far.go", ctxd.PriorityMedium, 100, ctxd.Facts{GraphRank: 40}),
		chunk("store/none.go", ctxd.PriorityMedium, 100, ctxd.Facts{}),
	}
	Score(cs, Options{Task: ctxd.TaskImplement})
	byTerm := func(c ctxd.Chunk) map[string]ctxd.ScoreTerm {
		m := map[string]ctxd.ScoreTerm{}
		for _, st := range c.ScoreBreakdown {
			m[st.Term] = st
		}
		return m
	}
	if cs[0].Source != "store/ledger.go" || cs[2].Source != "store/none.go" {
		t.Fatalf("order %s %s %s", cs[0].Source, cs[1].Source, cs[2].Source)
	}
	top := byTerm(cs[0])
	g, co := top[ctxd.TermGraph], top[ctxd.TermCoChange]
	if g.Value != DefaultFusion().Graph || g.Share <= 0 || co.Value <= 0 || co.Value >= DefaultFusion().CoChange || co.Share <= 0 {
		t.Errorf("graph %+v co-change %+v", g, co)
	}
	var sum float64
	for _, st := range cs[0].ScoreBreakdown {
		sum += math.Abs(st.Share)
	}
	if math.Abs(sum-1) > 0.01 {
		t.Errorf("shares sum to %g", sum)
	}
	if far := byTerm(cs[1])[ctxd.TermGraph]; !(far.Value > 0 && far.Value < g.Value) {
		t.Errorf("rank 40 graph term %+v, want below rank 1's %v", far, g.Value)
	}
	if _, ok := byTerm(cs[2])[ctxd.TermGraph]; ok {
		t.Error("a chunk the walk did not reach has a graph term")
	}
}

// TestFusionOption: the link weights are a value the caller gives (a
// search tries others so, scripts/fitweights); the zero value is
// DefaultFusion, and SignalValue weighs the same.
func TestFusionOption(t *testing.T) {
	facts := ctxd.Facts{GraphRank: 1, CoChangeRank: 1, MessageRank: 1}
	term := func(opts Options, name string) float64 {
		cs := []ctxd.Chunk{chunk("a.go", ctxd.PriorityMedium, 100, facts)}
		Score(cs, opts)
		for _, st := range cs[0].ScoreBreakdown {
			if st.Term == name {
				return st.Value
			}
		}
		return 0
	}
	def := DefaultFusion()
	tests := []struct {
		name   string
		fusion FusionWeights
		graph  float64
		co     float64
	}{
		{"zero is the default", FusionWeights{}, def.Graph, def.CoChange},
		{"graph off", FusionWeights{Graph: 0, CoChange: 300, Message: 150, K: RankK}, 0, 300},
		{"graph doubled", FusionWeights{Graph: 300, CoChange: 150, Message: 150, K: RankK}, 300, 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Task: ctxd.TaskImplement, Fusion: tt.fusion}
			if g, co := term(opts, ctxd.TermGraph), term(opts, ctxd.TermCoChange); g != tt.graph || co != tt.co {
				t.Errorf("graph %v co-change %v, want %v %v", g, co, tt.graph, tt.co)
			}
			w := tt.fusion
			if w == (FusionWeights{}) {
				w = def
			}
			if got, want := SignalValue(&facts, tt.fusion), w.Graph+w.CoChange+w.Message; got != want {
				t.Errorf("SignalValue %v, want %v", got, want)
			}
		})
	}
	if DefaultFusion() != def {
		t.Error("DefaultFusion changed by a caller's weights")
	}
}

// TestRelevanceKeepsDistances: two files at the capped relevance 1 tie on
// it unless their lexical shares differ; the weaker share counts, and a
// tie of scores goes to the better lexical match.
func TestRelevanceKeepsDistances(t *testing.T) {
	tests := []struct {
		name      string
		facts     ctxd.Facts
		want      float64
		wantShare bool // the reason names the share
	}{
		{"best file", ctxd.Facts{Relevance: 1, LexicalShare: 1}, 300, false},
		{"strong but far behind", ctxd.Facts{Relevance: 1, LexicalShare: 0.4}, 120, true},
		{"weak best match stays weak", ctxd.Facts{Relevance: 0.3, LexicalShare: 1}, 90, false},
		{"no share known", ctxd.Facts{Relevance: 0.8}, 240, false},
		{"no match", ctxd.Facts{LexicalShare: 0.5}, 0, false},
	}
	for _, tt := range tests {
		c := chunk("a.py", ctxd.PriorityMedium, 100, tt.facts)
		var got float64
		var why string
		for _, term := range Terms(&c, Options{}) {
			if term.Term == ctxd.TermRelevance {
				got, why = term.Value, term.Reason
			}
		}
		if got != tt.want || tt.wantShare != (why != "" && strings.Contains(why, "of the best file's")) {
			t.Errorf("%s: relevance %v (%q), want %v (share named: %v)", tt.name, got, why, tt.want, tt.wantShare)
		}
	}
	cs := []ctxd.Chunk{
		chunk("b.py", ctxd.PriorityMedium, 100, ctxd.Facts{LexicalShare: 0.2}),
		chunk("a.py", ctxd.PriorityMedium, 100, ctxd.Facts{LexicalShare: 0.6}),
	}
	Score(cs, Options{})
	if cs[0].Score != cs[1].Score || cs[0].Source != "a.py" {
		t.Errorf("tie not broken by the lexical share: %s %.1f, %s %.1f", cs[0].Source, cs[0].Score, cs[1].Source, cs[1].Score)
	}
}

// TestHowToDocBoost: a document whose sections answer a how-to is raised
// by BoostHowToDoc for that question only.
func TestHowToDocBoost(t *testing.T) {
	doc := ctxd.Chunk{Source: "README.md", ChunkType: ctxd.ChunkFile, Priority: ctxd.PriorityLow, Tokens: 300,
		Facts: ctxd.Facts{DocSections: true, FocusLines: []int{12}, FocusDefs: []ctxd.DefScore{{Line: 12, Score: 3, Why: []string{`section "Required option" (line 12)`}}}}}
	plain := []ctxd.Chunk{doc}
	Score(plain, Options{Task: ctxd.TaskAnalyze})
	howTo := []ctxd.Chunk{doc}
	Score(howTo, Options{Task: ctxd.TaskAnalyze, HowTo: true})
	if got, want := howTo[0].Score-plain[0].Score, float64(BoostHowToDoc); got != want {
		t.Errorf("a how-to's document scores %.1f more than a code task's, want %.1f (terms %v)", got, want, howTo[0].ScoreBreakdown)
	}
}
