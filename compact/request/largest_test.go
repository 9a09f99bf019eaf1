package request

import "testing"

func TestLargestFit(t *testing.T) {
	tests := []struct {
		name              string
		limit, guess, hi  int
		perToken, minSize int // try(n): n/perToken tokens, not ok under minSize
		wantMin, wantMax  int
	}{
		{name: "guess right", limit: 1000, guess: 4000, hi: 100000, perToken: 4, wantMin: 3920, wantMax: 4003},
		{name: "guess low", limit: 1000, guess: 1000, hi: 100000, perToken: 4, wantMin: 3000, wantMax: 4003},
		{name: "guess high", limit: 1000, guess: 50000, hi: 100000, perToken: 4, wantMin: 3000, wantMax: 4003},
		{name: "all of it fits", limit: 1000, guess: 4000, hi: 2000, perToken: 4, wantMin: 2000, wantMax: 2000},
		{name: "nothing fits", limit: 10, guess: 40, hi: 1000, perToken: 4, minSize: 500, wantMin: 0, wantMax: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tries, last := 0, 0
			got := LargestFit(tt.limit, tt.guess, tt.hi, func(n int) (int, bool) {
				tries++
				if n < 1 || n > tt.hi {
					t.Fatalf("tried %d, outside 1..%d", n, tt.hi)
				}
				tok := n / tt.perToken
				if tok <= tt.limit && n >= tt.minSize {
					if n < last {
						t.Errorf("a fit at %d after one at %d: the latest fit is not the largest", n, last)
					}
					last = n
				}
				return tok, n >= tt.minSize
			})
			if got < tt.wantMin || got > tt.wantMax || got != last {
				t.Errorf("got %d (latest fit %d), want %d..%d", got, last, tt.wantMin, tt.wantMax)
			}
			if tries > 8 {
				t.Errorf("%d tries, want at most 8", tries)
			}
		})
	}
}
