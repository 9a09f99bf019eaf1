package secrets

import (
	"slices"
	"strings"
	"testing"
)

// occurrences finds every (end, pattern) of pats in text one pattern at a
// time, ordered as matcher.walk reports them.
func occurrences(pats []string, text string) [][2]int {
	var out [][2]int
	for k, p := range pats {
		for i := 0; i+len(p) <= len(text); i++ {
			if asciiFold(text[i:i+len(p)]) == asciiFold(p) {
				out = append(out, [2]int{i + len(p) - 1, k})
			}
		}
	}
	slices.SortFunc(out, byEnd)
	return out
}

// byEnd orders matches by end, then by pattern.
func byEnd(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

func walked(m *matcher, text string) [][2]int {
	var out [][2]int
	m.walk(text, func(end int, k int32) { out = append(out, [2]int{end, int(k)}) })
	// Patterns ending at one byte come in no set order.
	slices.SortStableFunc(out, byEnd)
	return out
}

func TestMatcher(t *testing.T) {
	tests := []struct {
		name string
		pats []string
		text string
	}{
		{"none", []string{"key"}, "nothing here"},
		{"overlapping", []string{"he", "she", "his", "hers"}, "ushers and his hershey"},
		{"suffixes", []string{"a", "aa", "aaa"}, "aaaaa"},
		{"keywords", []string{"key", "api", "s.", "token", "-----begin"}, "s.api_key = token\n-----BEGIN -----begin"},
		{"either case", []string{"key", "Api"}, "KEY Key kEy API api"},
		{"high bytes", []string{"\xff\xfe", "é"}, "caf\u00e9 \xff\xfe\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := walked(newMatcher(tt.pats), tt.text), occurrences(tt.pats, tt.text); !slices.Equal(got, want) {
				t.Errorf("walk %v, want %v", got, want)
			}
		})
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add("key\x00api\x00s.", "s.api_key = token")
	f.Add("a\x00ab\x00b", "abab")
	f.Fuzz(func(t *testing.T, pats, text string) {
		var ps []string
		for _, p := range strings.Split(pats, "\x00") {
			if p != "" && !slices.Contains(ps, p) && len(ps) < 64 {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 || len(text) > 1<<12 {
			return
		}
		if got, want := walked(newMatcher(ps), text), occurrences(ps, text); !slices.Equal(got, want) {
			t.Fatalf("patterns %q in %q: walk %v, want %v", ps, text, got, want)
		}
	})
}

func asciiFold(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}
