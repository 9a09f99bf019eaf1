package gather

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestIdents(t *testing.T) {
	got := requestIdents("German customers see a wrong total. Make Amount print via parse_config and HTTPServer, sha256 and utf8Reader; Fix it")
	want := []string{"Amount", "parse_config", "HTTPServer", "sha256", "utf8Reader"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requestIdents (-want +got):\n%s", d)
	}
}

func TestTerms(t *testing.T) {
	c := newTermCounter()
	ix := NewIndex(map[string][]byte{
		"pkg/config/parser.go": []byte("func ParseConfig(r io.Reader) (*Config, error) // parses the HTTPServer settings"),
		"pkg/cache/lru.go":     []byte("type lruCache struct{} // caching of parsed entries"),
		"README.md":            []byte("Configuration is parsed at startup."),
	})
	tests := []struct {
		query string
		want  []string
	}{
		{"parsing configs", []string{"pkg/config/parser.go", "README.md", "pkg/cache/lru.go"}},
		{"http server", []string{"pkg/config/parser.go"}},
		{"ParseConfig", []string{"pkg/config/parser.go", "README.md", "pkg/cache/lru.go"}},
		{"cached", []string{"pkg/cache/lru.go"}},
		{"the a of", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range ix.Rank(tt.query, 0) {
			got = append(got, h.Path)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Rank(%q) (-want +got):\n%s", tt.query, d)
		}
	}
	// Counting is the same with the table growing past its first size.
	c.reset()
	for i := range 10000 {
		c.add(uint32(i + 1))
		c.add(uint32(i + 1))
	}
	b := c.bag()
	if len(b.hash) != 10000 || b.n != 20000 || b.count(1) != 2 || b.count(10000) != 2 || b.count(10001) != 0 {
		t.Errorf("bag: %d terms, n=%d", len(b.hash), b.n)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"parse": "pars", "parses": "pars", "parsed": "pars", "parsing": "pars", "parser": "parser",
		"caches": "cach", "cached": "cach", "caching": "cach", "entries": "entry", "class": "class",
		"status": "status", "go": "go", "files": "file", "file": "file", "handles": "handl",
	} {
		if got := string(stem([]byte(in))); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}
