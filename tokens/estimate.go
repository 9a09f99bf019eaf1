package tokens

import (
	"math"
	"sync"
	"unicode/utf8"
)

// estimatorParams is the calibration of one family. A text's estimate is
//
//	ceil(Factor × base count + DigitWeight × ASCII digits + CJKWeight × CJK runes)
//
// The base count is an exact encoding's. The two character terms correct
// what one factor cannot: Gemma's and Tekken's vocabularies split numbers
// into single digits (hashes and test vectors cost far more than in the
// OpenAI encodings), and CJK text costs each family differently. The
// weights are never negative, so no text is estimated below Factor × base.
// The values are fitted by TestCalibration from testdata/calibration.json
// so that no calibration sample is under-counted; see docs/tokens.md.
type estimatorParams struct {
	Base        string
	Factor      float64
	DigitWeight float64
	CJKWeight   float64
	// Error is the largest relative error (all of them over-counts) on the
	// calibration samples, reported as ctxd.Model.CalibrationError.
	Error float64
}

// estimate applies p to a base count and a text's features.
func (p estimatorParams) estimate(base int, f textFeatures) int {
	if base == 0 {
		return 0
	}
	return int(math.Ceil(p.Factor*float64(base) + p.DigitWeight*float64(f.digits) + p.CJKWeight*float64(f.cjk)))
}

// textFeatures are the character counts the estimators weigh.
type textFeatures struct {
	digits int // ASCII 0-9
	cjk    int // runes in isCJK's ranges
}

// isCJK reports Hangul Jamo, CJK symbols and punctuation, kana, CJK
// ideographs (Extension A and the main block), Hangul syllables and
// half/full-width forms. tokens/calibrate/calibrate.mjs uses the same
// ranges.
func isCJK(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x11FF,
		r >= 0x3000 && r <= 0x30FF,
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0x4E00 && r <= 0x9FFF,
		r >= 0xAC00 && r <= 0xD7AF,
		r >= 0xFF00 && r <= 0xFFEF:
		return true
	}
	return false
}

func featuresOf(text string) textFeatures {
	var f textFeatures
	for i := 0; i < len(text); {
		b := text[i]
		if b < utf8.RuneSelf {
			if b >= '0' && b <= '9' {
				f.digits++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if isCJK(r) {
			f.cjk++
		}
		i += n
	}
	return f
}

// estimator counts tokens for a model family without an embedded BPE.
type estimator struct {
	family string
	base   *exactCounter
	p      estimatorParams
}

var _ Counter = (*estimator)(nil)

// Count returns the family's estimate (see [estimatorParams]): 0 only for
// an empty text.
func (e *estimator) Count(text string) int {
	return e.p.estimate(e.base.Count(text), featuresOf(text))
}

func (e *estimator) Encoding() string { return "estimate/" + e.family }
func (e *estimator) Exact() bool      { return false }

var estimatorCounters = struct {
	mu sync.Mutex
	m  map[string]*estimator
}{m: map[string]*estimator{}}

// getEstimator returns the shared estimator of a family, or nil for a
// family without calibration.
func getEstimator(family string) *estimator {
	p, ok := estimators[family]
	if !ok {
		return nil
	}
	estimatorCounters.mu.Lock()
	defer estimatorCounters.mu.Unlock()
	if e := estimatorCounters.m[family]; e != nil {
		return e
	}
	e := &estimator{family: family, base: mustGet(p.Base), p: p}
	estimatorCounters.m[family] = e
	return e
}
