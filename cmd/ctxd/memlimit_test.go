package main

import "testing"

func TestRaisedLimit(t *testing.T) {
	tests := []struct {
		name              string
		limit, live, want int64
	}{
		{"small heap", 320 << 20, 100 << 20, 320 << 20},
		{"at three quarters", 320 << 20, 240 << 20, 320 << 20},
		{"above", 320 << 20, 300 << 20, 600 << 20},
		{"far above", 320 << 20, 1 << 30, 2 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := raisedLimit(tt.limit, tt.live); got != tt.want {
				t.Errorf("raisedLimit(%d, %d) = %d, want %d", tt.limit, tt.live, got, tt.want)
			}
		})
	}
}
