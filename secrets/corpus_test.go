package secrets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Corpus is testdata/corpus.json: the secrets planted in the files of
// testdata/corpus (fake values with real prefixes and checksums, in nine
// formats) and the look-alikes beside them (hashes, UUIDs, placeholders,
// test fixtures) that should survive. For a PEM key, value is one line of
// its body.
type Corpus struct {
	Secrets    []CorpusEntry `json:"secrets"`
	Lookalikes []CorpusEntry `json:"lookalikes"`
}

// CorpusEntry is one planted value and the files holding it.
type CorpusEntry struct {
	Name  string   `json:"name"`
	Value string   `json:"value"`
	Files []string `json:"files"`
}

func loadCorpus(t *testing.T) Corpus {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c Corpus
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// corpusFalsePositives is how many look-alikes the scan redacts today
// (docs/security.md reports which); a change that redacts more fails.
const corpusFalsePositives = 0

// TestCorpus: every planted secret is redacted from its file; the
// look-alikes redacted are reported (and bounded by
// corpusFalsePositives).
func TestCorpus(t *testing.T) {
	c := loadCorpus(t)
	if len(c.Secrets) < 30 || len(c.Lookalikes) < 15 {
		t.Fatalf("corpus holds %d secrets and %d look-alikes, want at least 30 and 15", len(c.Secrets), len(c.Lookalikes))
	}
	s, _ := Default()
	red := map[string]string{}
	rules := map[string]map[string]bool{}
	for _, e := range append(append([]CorpusEntry{}, c.Secrets...), c.Lookalikes...) {
		for _, f := range e.Files {
			if _, ok := red[f]; ok {
				continue
			}
			b, err := os.ReadFile(filepath.Join("testdata", "corpus", f))
			if err != nil {
				t.Fatal(err)
			}
			out, reds := s.Redact(f, string(b))
			red[f] = out
			rules[f] = map[string]bool{}
			for _, r := range reds {
				rules[f][r.Rule] = true
			}
		}
	}
	for _, e := range c.Secrets {
		for _, f := range e.Files {
			if strings.Contains(red[f], e.Value) {
				t.Errorf("secret %s leaks in %s", e.Name, f)
			}
		}
	}
	fp := 0
	for _, e := range c.Lookalikes {
		for _, f := range e.Files {
			if !strings.Contains(red[f], e.Value) {
				fp++
				t.Logf("false positive: look-alike %s redacted in %s", e.Name, f)
			}
		}
	}
	t.Logf("%d secrets, %d look-alikes, %d false positives", len(c.Secrets), len(c.Lookalikes), fp)
	if fp > corpusFalsePositives {
		t.Errorf("%d look-alikes redacted, want at most %d", fp, corpusFalsePositives)
	}
}
