package compress

import "math"

// The weight's curve (weight): a chunk's score is divided by its rank
// plus one to the power rankPow, answerOdds counts to the power oddsPow,
// and a test file outside test tasks counts testWeight of itself.
var (
	rankPow    = 1.0
	oddsPow    = 1.0
	testWeight = 0.5
)

// rankDiv is what weight divides the score of the chunk at rank i
// (0-based) by: (i+1)^rankPow.
func rankDiv(i int) float64 {
	if rankPow == 1 {
		return float64(i + 1)
	}
	return math.Pow(float64(i+1), rankPow)
}

// Knob is one of the fitter's value constants, by name.
type Knob struct {
	Name string
	P    *float64
}

// Knobs returns the fitter's value constants (the quality of each view,
// the weight's curve, the presence pass's cut), for scripts/fitalloc,
// which searches them with eval recall's all-lines as the objective on
// commits that are not evaluated. Nothing at request time sets them;
// setting one while a Fit runs is a race.
func Knobs() []Knob {
	return []Knob{
		{"whole", &wholeQuality},
		{"outline", &outlineQuality},
		{"view.base", &viewBase},
		{"view.shown", &viewShown},
		{"middle.base", &middleBase},
		{"middle.shown", &middleShown},
		{"focus.more", &focusMore},
		{"focus.shareof", &focusShareOf},
		{"global.more", &globalMore},
		{"global.odds", &globalOdds},
		{"weight.rankpow", &rankPow},
		{"weight.oddspow", &oddsPow},
		{"weight.test", &testWeight},
		{"odds.tokens", &answerFit.Tokens},
		{"presence.full", &presenceFull},
		{"presence.cap", &presenceCap},
		{"presence.scale", &presenceScale},
	}
}
