package gather

import (
	"slices"
	"strings"
	"testing"
)

func TestDefTermsFocus(t *testing.T) {
	src := strings.Join([]string{
		"func parseConfig(path string) (*Config, error) {", // 1
		"\tb := readFile(path)",
		"\treturn decode(b)",
		"}",
		"func retryRequest(n int) error {", // 5
		"\tfor i := 0; i < n; i++ {",
		"\t\tif err := send(); err == nil { return nil } // timeout backoff",
		"\t}",
		"\treturn errTimeout",
		"}",
		"func backoffDelay(attempt int) time.Duration {", // 11
		"\treturn time.Second << attempt // retry timeout",
		"}",
		"func closeIdle() {", // 14
		"\tfor _, c := range conns { c.Close() }",
		"}",
	}, "\n")
	defs := []DefSpan{{1, 4}, {5, 10}, {11, 13}, {14, 16}}
	for _, tc := range []struct {
		name    string
		request string
		limit   int
		want    []int
	}{
		{"name and body", "requests are retried without a backoff after a timeout", 3, []int{1, 2}},
		{"limit", "requests are retried without a backoff after a timeout", 1, []int{1}},
		{"name terms", "stop closing idle ones", 3, []int{3}},
		{"one term request", "backoff", 3, []int{2, 1}},
		{"two terms needed", "the config file path and the idle pool", 3, []int{0}},
		{"stopwords only", "please explain how this works", 3, nil},
		{"no match", "kubernetes ingress", 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewDefTerms([]byte(src), defs).Focus(tc.request, tc.limit); !slices.Equal(got, tc.want) {
				t.Errorf("Focus(%q) = %v, want %v", tc.request, got, tc.want)
			}
		})
	}
	// Definitions without a body, past the end or empty input are safe.
	if got := NewDefTerms([]byte(src), []DefSpan{{3, 3}, {40, 50}, {0, 2}}).Focus("retry timeout", 3); len(got) > 1 {
		t.Errorf("odd spans: %v", got)
	}
	if got := NewDefTerms(nil, defs).Focus("retry timeout", 3); got != nil {
		t.Errorf("empty content: %v", got)
	}
}
