package ident

import "testing"

func TestIndex(t *testing.T) {
	tests := []struct {
		s, name string
		want    int
	}{
		{"def include_router(self):", "include_router", 4},
		{"def include_router_x(self):", "include_router", -1},
		{"x_include_router include_router", "include_router", 17},
		{"$scope.apply", "scope", -1},
		{"ñame name", "name", 6},
		{"anything", "", -1},
		{"a", "a", 0},
	}
	for _, tt := range tests {
		if got := Index(tt.s, tt.name); got != tt.want {
			t.Errorf("Index(%q, %q) = %d, want %d", tt.s, tt.name, got, tt.want)
		}
	}
}
