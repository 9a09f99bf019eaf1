package request

// LargestFit finds the largest size n in 1..hi whose try(n) fits:
// reports ok with at most limit tokens. It bisects from guess (the
// caller's estimate, such as limit at the text's own bytes per token),
// stopping within a fiftieth of hi, or of limit in tokens, and after
// eight tries at most (each try renders and counts a view). try is
// called with sizes in no particular order; of the sizes that fit, the
// last one tried is the largest (so a caller can keep what its try made
// of it). It returns 0 when no size tried fits. Both compactors' refill
// passes size their views with it.
func LargestFit(limit, guess, hi int, try func(n int) (tokens int, ok bool)) int {
	lo, best, tokens := 0, 0, 0
	for range 8 {
		g := min(max(guess, lo+1), hi)
		if g <= lo {
			break
		}
		if n, ok := try(g); ok && n <= limit {
			lo, best, tokens = g, g, n
		} else {
			hi = g - 1
		}
		if hi-lo < max(64, hi/50) || best > 0 && limit-tokens < max(16, limit/50) {
			break
		}
		guess = lo + (hi-lo)/2
	}
	return best
}
