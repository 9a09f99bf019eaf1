package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/ctxd/ctxd"
)

// FeatureCase is one line of eval recall's --features output: every
// chunk the scorer saw for one case at one budget, in score order, with
// the facts its score terms come from and whether the commit changed it.
// It is the training data of a ranker (scripts/fitrank), written for the
// commits past the evaluated ones (--skip).
type FeatureCase struct {
	Case    int           `json:"case"` // 1-based, as the dump's names
	Commit  string        `json:"commit"`
	Budget  int           `json:"budget"`
	Task    string        `json:"task"`
	Answer  []string      `json:"answer"`
	Chunks  []FeatureItem `json:"chunks"`
	Answers int           `json:"answers_scored"` // answer files among Chunks
}

// FeatureItem is one scored chunk: its score terms (name → value, as the
// breakdown has them) and the facts behind them. It is the features
// file's projection of ctxd.Facts, not a second table of them: a field
// named as one of Facts' is that fact, copied, under its JSON name; the
// counts of Facts' lists have names of their own
// (TestFeatureItemCopiesFacts).
type FeatureItem struct {
	Source   string             `json:"source"`
	Type     ctxd.ChunkType     `json:"type"`
	Priority int                `json:"priority"`
	Tokens   int                `json:"tokens"`
	Score    float64            `json:"score"`
	Terms    map[string]float64 `json:"terms"`
	Answer   bool               `json:"answer,omitempty"`
	Included bool               `json:"included,omitempty"` // shown in the fitted context
	View     string             `json:"view,omitempty"`

	Role         string             `json:"role,omitempty"`
	Test         bool               `json:"test,omitempty"`
	Reasons      []string           `json:"reasons,omitempty"`
	Relevance    float64            `json:"relevance,omitempty"`
	LexicalShare float64            `json:"lexical_share,omitempty"`
	LexicalRank  int                `json:"lexical_rank,omitempty"`
	Lexical      *ctxd.LexicalMatch `json:"lexical,omitempty"`
	GraphRank    int                `json:"graph_rank,omitempty"`
	CoChangeRank int                `json:"cochange_rank,omitempty"`
	MessageRank  int                `json:"message_rank,omitempty"`
	CommitRank   int                `json:"commit_rank,omitempty"`
	Mentioned    bool               `json:"mentioned,omitempty"`
	Defines      int                `json:"defines,omitempty"` // len(MentionedSymbols)
	Uses         int                `json:"uses,omitempty"`    // len(UsedSymbols)
	Focused      int                `json:"focused,omitempty"` // len(FocusDefs)
	Matches      int                `json:"matches,omitempty"` // len(MatchLines)
	Decls        int                `json:"decls,omitempty"`   // len(DeclLines)
}

// featureCase builds the line of one case at one budget from the scored
// chunks (engine.PromptRequest.Scored) and the fitted envelope.
func featureCase(i int, c Case, budget int, scored []ctxd.Chunk, env *ctxd.Envelope) FeatureCase {
	views := map[string]string{}
	for k := range env.Context.Chunks {
		if ch := &env.Context.Chunks[k]; ch.Content != "" {
			views[ch.Source] = string(ch.Shown())
		}
	}
	fc := FeatureCase{Case: i + 1, Commit: c.Commit, Budget: budget, Task: string(env.TaskType), Answer: c.Answer}
	for k := range scored {
		ch := &scored[k]
		f := &ch.Facts
		it := FeatureItem{
			Source: ch.Source, Type: ch.ChunkType, Priority: int(ch.Priority), Tokens: ch.Tokens, Score: ch.Score,
			Terms:  map[string]float64{},
			Answer: slices.Contains(c.Answer, ch.Source),
			Role:   f.Role, Test: f.Test, Reasons: f.Reasons,
			Relevance: f.Relevance, LexicalShare: f.LexicalShare, LexicalRank: f.LexicalRank, Lexical: f.Lexical,
			GraphRank: f.GraphRank, CoChangeRank: f.CoChangeRank, MessageRank: f.MessageRank, CommitRank: f.CommitRank,
			Mentioned: f.Mentioned, Defines: len(f.MentionedSymbols), Uses: len(f.UsedSymbols),
			Focused: len(f.FocusDefs), Matches: len(f.MatchLines), Decls: len(f.DeclLines),
		}
		for _, t := range ch.ScoreBreakdown {
			it.Terms[t.Term] += t.Value
		}
		it.View, it.Included = views[ch.Source], views[ch.Source] != ""
		if it.Answer {
			fc.Answers++
		}
		fc.Chunks = append(fc.Chunks, it)
	}
	return fc
}

// writeFeatures writes fc as one JSON line.
func writeFeatures(w io.Writer, fc FeatureCase) error {
	b, err := json.Marshal(fc)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("features: %w", err)
	}
	return nil
}

// ReadFeatures reads --features output, one FeatureCase per line.
func ReadFeatures(r io.Reader) ([]FeatureCase, error) {
	var out []FeatureCase
	dec := json.NewDecoder(r)
	for {
		var fc FeatureCase
		if err := dec.Decode(&fc); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, fmt.Errorf("features: %w", err)
		}
		out = append(out, fc)
	}
}
