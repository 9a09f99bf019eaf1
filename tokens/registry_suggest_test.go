package tokens

import (
	"slices"
	"strings"
	"testing"
)

// TestSuggestTypos: a name a typo away from a registered one suggests it;
// a name nothing is near suggests nothing.
func TestSuggestTypos(t *testing.T) {
	tests := []struct {
		name string
		want string // "" when no suggestion
	}{
		{"claude-sonet-4.5", "claude-sonnet-4.5"},
		{"gtp-4o", "gpt-4o"},
		{"gemini-2.5-prp", "gemini-2.5-pro"},
		{"zzzzzzzzzzzzzz", ""},
	}
	for _, tt := range tests {
		got := Suggest(tt.name, 4)
		if tt.want == "" && len(got) > 0 || tt.want != "" && (len(got) == 0 || got[0] != tt.want) {
			t.Errorf("Suggest(%q) = %v, want %q first", tt.name, got, tt.want)
		}
	}
	if got := Suggest("claude", 3); len(got) != 3 || slices.ContainsFunc(got, func(s string) bool { return !strings.Contains(s, "claude") }) {
		t.Errorf("Suggest(claude) = %v", got)
	}
}

// TestPrefixRest: a snapshot suffix is read as the model silently; any
// other suffix is reported.
func TestPrefixRest(t *testing.T) {
	tests := []struct {
		name, rest string
		snapshot   bool
	}{
		{"gpt-4o", "", true},
		{"gpt-4o-2024-08-06", "2024-08-06", true},
		{"claude-sonnet-4-5-20250929", "20250929", true},
		{"gpt-5-mini-typo", "typo", false},
		{"gpt-4o-latest", "latest", true},
		{"unknown-model", "", true},
	}
	for _, tt := range tests {
		rest := PrefixRest(tt.name)
		if rest != tt.rest || SnapshotSuffix(rest) != tt.snapshot {
			t.Errorf("PrefixRest(%q) = %q (snapshot %v), want %q (%v)", tt.name, rest, SnapshotSuffix(rest), tt.rest, tt.snapshot)
		}
	}
}
