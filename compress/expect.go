package compress

import (
	"context"
	"math"

	"github.com/ctxd/ctxd"
)

// value is what chunk i of cs placed at a view of quality q adds to the
// fitter's objective: ln(1 + o × q), o the odds that chunk i is a file the
// task changes (odds). Summed over the chunks it is, up to a constant, the
// log of the chance that every file the task changes is shown with every
// changed line, the files taken as independent: the product over chunks
// of 1 - p (1 - q), each factor over its value with nothing placed,
// 1 - p. For an unlikely file it is about p × q, the sum of weight ×
// quality the fitter maximised before (the weight's share of the highest
// is close to proportional to p, answerP); for the likeliest file a step
// from a low quality is worth more than one from a high quality, as one
// answer file with its line hidden fails the request. A chunk's value
// grows with q, and is 0 with nothing placed.
func (f *fitter) value(cs []ctxd.Chunk, i int, q float64) float64 {
	return math.Log1p(f.odds(cs, i) * q)
}

// optionValues returns the value of each of chunk i's options (whole and
// each view, in options' order), computed once: the upgrade pass asks for
// them on every step.
func (f *fitter) optionValues(ctx context.Context, cs []ctxd.Chunk, i int) []float64 {
	m := &f.memo[i]
	if m.values == nil {
		opts := f.options(ctx, i, &cs[i])
		m.values = make([]float64, len(opts))
		for k := range opts {
			m.values[k] = f.value(cs, i, f.quality(&opts[k]))
		}
	}
	return m.values
}

// gain is what chunk i's value gains from quality from to quality to.
func (f *fitter) gain(cs []ctxd.Chunk, i int, from, to float64) float64 {
	return f.value(cs, i, to) - f.value(cs, i, from)
}

// odds returns p / (1 - p) for chunk i of cs, p its answerP, computed once.
func (f *fitter) odds(cs []ctxd.Chunk, i int) float64 {
	m := &f.memo[i]
	if m.oddsDone {
		return m.odds
	}
	if f.top < 0 {
		f.topOf(cs)
	}
	p := f.ptop
	if i != f.top {
		p = answerP(f.weight(&cs[i], i) / f.wtop)
	}
	m.odds, m.oddsDone = p/(1-p), true
	return m.odds
}

// topOf sets f.top and f.wtop to the chunk of the highest weight and its
// weight, and f.ptop to its answer chance (answerTopBy, by the score of
// the chunk of the second highest weight; answerTop when it is alone).
func (f *fitter) topOf(cs []ctxd.Chunk) {
	f.top, f.wtop = 0, 0
	second, w2 := -1, 0.0
	for j := range cs {
		switch w := f.weight(&cs[j], j); {
		case w > f.wtop:
			if j > 0 {
				second, w2 = f.top, f.wtop
			}
			f.top, f.wtop = j, w
		case w > w2:
			second, w2 = j, w
		}
	}
	f.ptop = answerTop
	if second >= 0 {
		f.ptop = answerTopBy(cs[second].Score / max(cs[f.top].Score, 1))
	}
}

// answerP is the chance that a chunk other than the one of the highest
// weight is a file the task changes, by its weight's share of the highest
// weight: linear between the points of answerShare. Measured on the
// development set's commits (the Lead's eval recall --dump of 3856716,
// 100 commits each of gin, cli, requests, httpx, express, vite and
// fastapi at 8k, read with scripts/answerodds/parse.py: 8,024 candidate
// files that are not tests, docs or examples, 744 answers; BENCHMARKS.md
// "hfit (2026-11-30"). The share is close to proportional to the chance
// (about 0.6 x share; 0.85 x share between 0.07 and 0.15), and the chunk
// of the highest weight is an answer about as often as the next few
// together (answerTopBy).
func answerP(share float64) float64 {
	pts := answerShare
	for k := 1; k < len(pts); k++ {
		if share <= pts[k][0] {
			a, b := pts[k-1], pts[k]
			return a[1] + (b[1]-a[1])*(share-a[0])/(b[0]-a[0])
		}
	}
	return pts[len(pts)-1][1]
}

// answerShare is answerP's table, {share of the highest weight, chance}
// at the mean share of each bucket: 0-0.01 (n=1,638, 7 answers),
// 0.01-0.02 (1,246, 11), 0.02-0.04 (1,342, 21), 0.04-0.07 (1,029, 34),
// 0.07-0.1 (522, 37), 0.1-0.15 (496, 53), 0.15-0.2 (307, 34), 0.2-0.3
// (324, 46), 0.3-0.45 (205, 43), 0.45-0.65 (133, 43), 0.65-1 (178, 72).
var answerShare = [...][2]float64{
	{0, 0}, {0.006, 0.004}, {0.015, 0.009}, {0.029, 0.016}, {0.054, 0.033},
	{0.084, 0.071}, {0.122, 0.107}, {0.174, 0.111}, {0.242, 0.142},
	{0.367, 0.210}, {0.537, 0.323}, {0.898, 0.404},
}

// answerTop is the chance that the chunk of the highest weight is an
// answer, measured as answerShare is (327 of 539 such chunks).
const answerTop = 0.607

// answerTopBy is the chance that the chunk of the highest weight is an
// answer, by the score of the chunk of the second highest weight over its
// own (measured as answerShare is): 0.776 below 0.7 (n=183), 0.589 at
// 0.7-0.9 (168), 0.463 from 0.9 (246); linear between the buckets'
// middles. A close second takes the chance the first loses.
func answerTopBy(second float64) float64 {
	switch {
	case second <= 0.65:
		return 0.776
	case second <= 0.8:
		return 0.776 + (0.589-0.776)*(second-0.65)/0.15
	case second <= 0.97:
		return 0.589 + (0.463-0.589)*(second-0.8)/0.17
	}
	return 0.463
}
