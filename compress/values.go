package compress

import "math"

// Values are the fitter's value constants: the quality of each view, the
// weight's curve over rank and answer odds, and the presence pass's cut.
// Fit is given them in Options.Values (DefaultValues when nil) and copies
// them when it starts, so fits with different values may run at once:
// scripts/fitalloc searches them (Knobs) with eval recall's all-lines as
// the objective on commits that are not evaluated, and nothing at request
// time sets them.
type Values struct {
	// View qualities: the share of a chunk's value a placement carries,
	// for the upgrade pass. Whole is the file whole. A structural view
	// is worth what its presence says (Outline) plus what its code
	// shows: a base for the file's structure and the kept functions
	// (ViewBase), and a part that grows with the share of the file's
	// tokens it shows (ViewShown, see viewQuality), so a view that shows
	// most of a file is worth most of it, and a view that shows little
	// is worth little more than the outline whatever its level. Measured
	// on the development set's answer files (eval recall --dump), a view
	// showed every changed line for 1% of the cases below a fifth of its
	// file's tokens (mostly outlines), 39% at a fifth to two fifths, 52%
	// to three fifths, 59% above; the named levels alone (bodies 0.8,
	// signatures 0.5) made a bodies view of a quarter of a file worth
	// nearly the file, and the allocator kept the files a task needs as
	// bodies while budget was left.
	Whole, Outline, ViewBase, ViewShown float64
	// A head-and-tail cut is worth MiddleBase plus MiddleShown times the
	// share of its file it shows.
	MiddleBase, MiddleShown float64
	// FocusMore is what a focus view gains in quality by showing every
	// one of its focus lines' functions rather than the best one alone
	// (focusShown).
	FocusMore float64
	// FocusShareOf: a focus view's share of its file (viewQuality) is
	// taken of at most FocusShareOf times the context budget. A file far
	// larger than the budget can never be shown whole, and its share of
	// the file's tokens made a focus view of a 34,000-token file worth
	// barely more than its presence line beside small files ranked far
	// below it shown whole (fastapi's routing.py, the file most of its
	// commits change, at 1-2% of its tokens: BENCHMARKS.md "h25alloc").
	// Against twice the budget, what the budget could show of such a
	// file, its best functions are worth what they are. A fixed cap of
	// 8,000 tokens helped a 4,000-token context and hurt a 16,000-token
	// one (small answer files whole lost, "h25long").
	FocusShareOf float64
	// GlobalMore is what showing the request's best definitions whole
	// (globalShown) adds to a view's quality, the whole file's included:
	// a file whose definition matches the request best across files is
	// worth more at every view that shows it. Added to what the view
	// lacks of the whole file instead (1 - quality), it made the whole
	// step of a file whose focus view showed a strong definition worth
	// less, and files fell from whole to a focus view (BENCHMARKS.md
	// "hgfit": A2, 32k -0.4).
	GlobalMore float64
	// GlobalOdds is the weight of a definition's global score (the
	// request's best is 1) as the chance that its body is what the task
	// needs, for globalShown.
	GlobalOdds float64
	// The weight's curve (fitter.weight): a chunk's score is divided by
	// its rank plus one to the power RankPow, answerOdds counts to the
	// power OddsPow, and a test file outside test tasks counts
	// TestWeight of itself.
	RankPow, OddsPow, TestWeight float64
	// OddsTokens is answerOdds's coefficient of the log of a chunk's
	// size in tokens (answerTerms holds the score terms').
	OddsTokens float64
	// Past the best PresenceFull chunks, the presence pass places a
	// presence line (see presenceLine); it spends at most PresenceCap of
	// the budget on any one chunk, and PresenceScale scales
	// presenceBudget (RoomyBudget is computed from the constants alone).
	PresenceFull, PresenceCap, PresenceScale float64
}

// DefaultValues returns the values the engine fits with.
func DefaultValues() Values {
	return Values{
		Whole:         1,
		Outline:       0.15,
		ViewBase:      0.25,
		ViewShown:     0.6,
		MiddleBase:    0.05,
		MiddleShown:   0.5,
		FocusMore:     0.1,
		FocusShareOf:  2,
		GlobalMore:    0.5,
		GlobalOdds:    0.6,
		RankPow:       1,
		OddsPow:       1,
		TestWeight:    0.5,
		OddsTokens:    0.373,
		PresenceFull:  3,
		PresenceCap:   1.0 / 6,
		PresenceScale: 1,
	}
}

// Knob is one of the fitter's value constants, by name: P points into
// the Values it was taken of.
type Knob struct {
	Name string
	P    *float64
}

// Knobs returns v's constants by name, for scripts/fitalloc's search.
func (v *Values) Knobs() []Knob {
	return []Knob{
		{"whole", &v.Whole},
		{"outline", &v.Outline},
		{"view.base", &v.ViewBase},
		{"view.shown", &v.ViewShown},
		{"middle.base", &v.MiddleBase},
		{"middle.shown", &v.MiddleShown},
		{"focus.more", &v.FocusMore},
		{"focus.shareof", &v.FocusShareOf},
		{"global.more", &v.GlobalMore},
		{"global.odds", &v.GlobalOdds},
		{"weight.rankpow", &v.RankPow},
		{"weight.oddspow", &v.OddsPow},
		{"weight.test", &v.TestWeight},
		{"odds.tokens", &v.OddsTokens},
		{"presence.full", &v.PresenceFull},
		{"presence.cap", &v.PresenceCap},
		{"presence.scale", &v.PresenceScale},
	}
}

// rankDiv is what weight divides the score of the chunk at rank i
// (0-based) by: (i+1)^RankPow.
func (v *Values) rankDiv(i int) float64 {
	if v.RankPow == 1 {
		return float64(i + 1)
	}
	return math.Pow(float64(i+1), v.RankPow)
}
