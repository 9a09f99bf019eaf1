package stats

import "testing"

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"none", nil, 0},
		{"one", []float64{3}, 3},
		{"odd", []float64{5, 1, 3}, 3},
		{"even", []float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		xs := append([]float64(nil), tt.xs...)
		if got := Median(tt.xs); got != tt.want {
			t.Errorf("%s: Median(%v) = %v, want %v", tt.name, tt.xs, got, tt.want)
		}
		for i := range xs {
			if xs[i] != tt.xs[i] {
				t.Fatalf("%s: Median reordered its input: %v", tt.name, tt.xs)
			}
		}
	}
}

func TestPercentile(t *testing.T) {
	ten := []int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	tests := []struct {
		name string
		xs   []int64
		p    float64
		want int64
	}{
		{"none", nil, 95, 0},
		{"p0 is the least", ten, 0, 1},
		{"p50 of ten", ten, 50, 5},
		{"p95 of ten", ten, 95, 10},
		{"p100 is the most", ten, 100, 10},
		{"p51 rounds up", ten, 51, 6},
		{"one", []int64{7}, 95, 7},
	}
	for _, tt := range tests {
		if got := Percentile(tt.xs, tt.p); got != tt.want {
			t.Errorf("%s: Percentile(%v, %v) = %d, want %d", tt.name, tt.xs, tt.p, got, tt.want)
		}
	}
}
