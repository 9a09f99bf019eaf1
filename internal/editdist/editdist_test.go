package editdist

import (
	"slices"
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"claude-sonet-4.5", "claude-sonnet-4.5", 1},
		{"modle", "model", 2},
		{"budget", "bugdet", 2},
		{"same", "same", 0},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestNearest: the nearest name within reach wins; a tie goes to the name
// that sorts first whatever order the names come in; a rule per candidate
// reaches further for a name the typo is a prefix of.
func TestNearest(t *testing.T) {
	prefix3 := func(name string) Within {
		return func(n string) int {
			if strings.HasPrefix(n, name) {
				return 3
			}
			return 2
		}
	}
	tests := []struct {
		name   string
		typo   string
		names  []string
		within func(name string) Within
		want   string
	}{
		{"one edit", "modle", []string{"budget", "model", "mode"}, nil, "mode"},
		{"nearest beats sorted", "totla", []string{"shares", "tota", "total"}, nil, "tota"},
		{"tie to sorted first", "cat", []string{"cbt", "bat", "cap"}, nil, "bat"},
		{"tie whatever the order", "cat", []string{"cap", "cbt", "bat"}, nil, "bat"},
		{"duplicates", "cat", []string{"bat", "bat"}, nil, "bat"},
		{"out of reach", "zzzzz", []string{"model", "budget"}, nil, ""},
		{"exactly at reach", "ab", []string{"abcd"}, nil, "abcd"},
		{"one past reach", "ab", []string{"abcde"}, nil, ""},
		{"prefix reaches further", "sess", []string{"session", "status"}, prefix3, "session"},
		{"prefix rule only for prefixes", "sesx", []string{"sessions"}, prefix3, ""},
		{"a nearer name beats a prefix", "prom", []string{"prompt", "from"}, prefix3, "from"},
		{"no names", "x", nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			within := Edits(2)
			if tt.within != nil {
				within = tt.within(tt.typo)
			}
			if got := Nearest(tt.typo, tt.names, within); got != tt.want {
				t.Errorf("Nearest(%q, %q) = %q, want %q", tt.typo, tt.names, got, tt.want)
			}
		})
	}
}

// TestRanked: all names within reach, nearest first, ties sorted, each once.
func TestRanked(t *testing.T) {
	got := Ranked("gpt-4o", []string{"gpt-4", "gpt-4o-mini", "gpt-40", "gpt-4.1", "gpt-40", "o3"}, Edits(2))
	want := []string{"gpt-4", "gpt-40", "gpt-4.1"}
	if !slices.Equal(got, want) {
		t.Errorf("Ranked = %q, want %q", got, want)
	}
}
