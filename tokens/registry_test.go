package tokens

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for no match
	}{
		{"gpt-4o", "gpt-4o"},
		{"GPT-4o", "gpt-4o"},
		{"  gpt-4o  ", "gpt-4o"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"openai/gpt-4o", "gpt-4o"},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"chatgpt-4o-latest", "gpt-4o"},
		{"gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"},
		{"gpt-4-0613", "gpt-4"},
		{"gpt-4-turbo-2024-04-09", "gpt-4-turbo"},
		{"gpt-3.5-turbo-0125", "gpt-3.5-turbo"},
		{"o1-2024-12-17", "o1"},
		{"o3-mini-2025-01-31", "o3-mini"},
		{"o4-mini-2025-04-16", "o4-mini"},
		{"gpt-5-2025-08-07", "gpt-5"},
		{"gpt-5-mini-2025-08-07", "gpt-5-mini"},
		{"gpt-5-codex", "gpt-5"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4.5"},
		{"claude-sonnet-4-5", "claude-sonnet-4.5"},
		{"anthropic/claude-sonnet-4.5", "claude-sonnet-4.5"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"claude-opus-4-1-20250805", "claude-opus-4.1"},
		{"claude-opus-4-20250514", "claude-opus-4"},
		{"claude-haiku-4-5-20251001", "claude-haiku-4.5"},
		{"claude-3-7-sonnet-20250219", "claude-3.7-sonnet"},
		{"claude-3-7-sonnet-latest", "claude-3.7-sonnet"},
		{"claude-3-5-sonnet-20241022", "claude-3.5-sonnet"},
		{"claude-3-5-haiku-latest", "claude-3.5-haiku"},
		{"claude-3-opus-20240229", "claude-3-opus"},
		{"claude-3-haiku-20240307", "claude-3-haiku"},
		{"anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3.5-sonnet"},
		{"us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4"},
		{"claude-3-5-sonnet-v2@20241022", "claude-3.5-sonnet"},
		{"gemini-2.5-pro", "gemini-2.5-pro"},
		{"models/gemini-2.5-flash", "gemini-2.5-flash"},
		{"gemini-2.5-flash-preview-05-20", "gemini-2.5-flash"},
		{"gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		{"gemini-2.0-flash-001", "gemini-2.0-flash"},
		{"gemini-1.5-pro-002", "gemini-1.5-pro"},
		{"google/gemini-3-pro-preview", "gemini-3-pro"},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
		{"meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"},
		{"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"},
		{"meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"},
		{"llama-4-maverick-17b-128e-instruct-fp8", "llama-4-maverick"},
		{"llama3.1:70b", "llama-3.1-70b"},
		{"llama3.1", "llama-3.1-8b"},
		{"mistral-large-latest", "mistral-large"},
		{"mistral-large-2411", "mistral-large"},
		{"mistralai/mistral-small-2503", "mistral-small"},
		{"codestral-latest", "codestral"},
		{"devstral-small-2505", "devstral-small"},
		{"open-mistral-nemo", "mistral-nemo"},
		// Not in the registry.
		{"", ""},
		{"gpt", ""},
		{"gpt-4o2", ""},
		{"gpt-4.5-preview", ""},
		{"my-local-model", ""},
		{"claude", ""},
		{"/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, ok := Lookup(tt.in)
			if tt.want == "" {
				if ok {
					t.Errorf("Lookup(%q) = %s, want no match", tt.in, s.Name)
				}
				return
			}
			if !ok || s.Name != tt.want {
				t.Errorf("Lookup(%q) = %q, %v; want %q", tt.in, s.Name, ok, tt.want)
			}
		})
	}
}

func TestModels(t *testing.T) {
	ms := Models()
	if len(ms) != len(registry) {
		t.Fatalf("Models() has %d entries, registry %d", len(ms), len(registry))
	}
	providers := map[string]bool{}
	for i, m := range ms {
		providers[m.Provider] = true
		if m.Name != strings.ToLower(m.Name) || m.Name == "" {
			t.Errorf("entry %d: name %q is not lowercase", i, m.Name)
		}
		if m.ContextWindow <= 0 || m.MaxOutput <= 0 || m.MaxOutput > m.ContextWindow {
			t.Errorf("%s: window %d, max output %d", m.Name, m.ContextWindow, m.MaxOutput)
		}
		if m.Exact {
			if !knownEncoding(m.Encoding) {
				t.Errorf("%s: exact with unknown encoding %q", m.Name, m.Encoding)
			}
		} else {
			if m.Encoding != "estimate/"+m.Family {
				t.Errorf("%s: estimator encoding %q, want estimate/%s", m.Name, m.Encoding, m.Family)
			}
			if _, ok := estimators[m.Family]; !ok {
				t.Errorf("%s: family %q has no calibration", m.Name, m.Family)
			}
		}
		// Every name and alias finds its own entry.
		for _, n := range append([]string{m.Name}, m.Aliases...) {
			if got, ok := Lookup(n); !ok || got.Name != m.Name {
				t.Errorf("Lookup(%q) = %q, want %q", n, got.Name, m.Name)
			}
		}
	}
	for _, p := range []string{ProviderOpenAI, ProviderAnthropic, ProviderGoogle, ProviderMeta, ProviderMistral} {
		if !providers[p] {
			t.Errorf("no model of provider %s", p)
		}
	}
	// Models returns copies: changing one leaves the registry alone.
	ms[0].Aliases = append(ms[0].Aliases[:0], "changed")
	ms[0].Name = "changed"
	if Models()[0].Name == "changed" {
		t.Error("changing Models()'s result renamed a registry entry")
	}
	if _, ok := Lookup("changed"); ok {
		t.Error("changing Models()'s result changed the registry")
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		window int
		want   ctxd.Model
	}{
		{"registry", "gpt-4o-2024-08-06", 0, ctxd.Model{Name: "gpt-4o", Provider: "openai", ContextWindow: 128000, MaxOutput: 16384, Encoding: "o200k_base", Source: "registry", EstimatorConfidence: "exact"}},
		{"default model", "", 0, ctxd.Model{Name: "gpt-4o", Provider: "openai", ContextWindow: 128000, MaxOutput: 16384, Encoding: "o200k_base", Source: "registry", EstimatorConfidence: "exact"}},
		{"explicit wins over registry", "gpt-4", 4000, ctxd.Model{Name: "gpt-4", Provider: "openai", ContextWindow: 4000, MaxOutput: 4000, Encoding: "cl100k_base", Source: "explicit", EstimatorConfidence: "exact"}},
		{"explicit for unknown model", "my-local-model", 32768, ctxd.Model{Name: "my-local-model", ContextWindow: 32768, MaxOutput: FallbackMaxOutput, Encoding: "cl100k_base", Source: "explicit", EstimatorConfidence: "low"}},
		{"fallback", "my-local-model", 0, ctxd.Model{Name: "my-local-model", ContextWindow: 8192, MaxOutput: FallbackMaxOutput, Encoding: "cl100k_base", Source: "fallback", EstimatorConfidence: "low"}},
		{"negative window is ignored", "gpt-4", -1, ctxd.Model{Name: "gpt-4", Provider: "openai", ContextWindow: 8192, MaxOutput: 8192, Encoding: "cl100k_base", Source: "registry", EstimatorConfidence: "exact"}},
		{"estimator", "claude-sonnet-4-5-20250929", 0, ctxd.Model{Name: "claude-sonnet-4.5", Provider: "anthropic", ContextWindow: 200000, MaxOutput: 64000, Encoding: "estimate/claude", Source: "registry", EstimatorConfidence: "low", CalibrationError: estimators[FamilyClaude].Error}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.model, tt.window)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Resolve(%q, %d) (-want +got):\n%s", tt.model, tt.window, d)
			}
			c, m := ForModel(tt.model, tt.window)
			if d := cmp.Diff(got, m); d != "" {
				t.Errorf("ForModel and Resolve disagree (-Resolve +ForModel):\n%s", d)
			}
			if c.Encoding() != m.Encoding {
				t.Errorf("counter encoding %q, model encoding %q", c.Encoding(), m.Encoding)
			}
			if c.Exact() != (m.EstimatorConfidence == ConfidenceExact) && m.Source != SourceFallback && m.Provider != "" {
				t.Errorf("counter exact=%v, confidence %q", c.Exact(), m.EstimatorConfidence)
			}
		})
	}
}

func TestEstimator(t *testing.T) {
	for fam, p := range estimators {
		t.Run(fam, func(t *testing.T) {
			e := getEstimator(fam)
			if e.Exact() || e.Encoding() != "estimate/"+fam {
				t.Errorf("estimator %s: exact=%v encoding %q", fam, e.Exact(), e.Encoding())
			}
			if _, ok := encode(e, "hello"); ok {
				t.Error("Encode on an estimator: want ok=false")
			}
			if n := e.Count(""); n != 0 {
				t.Errorf("Count(\"\") = %d", n)
			}
			text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50)
			b, _ := Get(p.Base)
			want := int(float64(b.Count(text))*p.Factor + 0.999999)
			if got := e.Count(text); got != want {
				t.Errorf("Count = %d, want ceil(%d × %.3f) = %d", got, b.Count(text), p.Factor, want)
			}
		})
	}
}

// registryTable renders the registry as the markdown table of
// docs/tokens.md.
func registryTable() string {
	var b strings.Builder
	b.WriteString("| model | provider | window | max output | counted with | aliases |\n|---|---|---:|---:|---|---|\n")
	for _, m := range Models() {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s |\n", m.Name, m.Provider, m.ContextWindow, m.MaxOutput, m.Encoding, strings.Join(m.Aliases, ", "))
	}
	return b.String()
}

// TestDocsRegistryTable keeps docs/tokens.md's registry table in step
// with the code: the golden file is the table, and the doc must hold it.
func TestDocsRegistryTable(t *testing.T) {
	table := registryTable()
	golden(t, "registry_table", []byte(table))
	doc, err := os.ReadFile(filepath.Join("..", "docs", "tokens.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), table) {
		t.Error("docs/tokens.md does not contain the registry table of testdata/registry_table.golden; paste it in")
	}
	if !strings.Contains(string(doc), "`"+RegistryVersion+"`") {
		t.Errorf("docs/tokens.md does not name RegistryVersion %s", RegistryVersion)
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // a name the suggestions must hold; "" none
	}{
		{"claude", "claude-sonnet-4.5"},
		{"Sonnet", "claude-sonnet-4.5"},
		{"gemini", "gemini-2.5-pro"},
		{"no-such-model-xyz", ""},
		{"", ""},
	} {
		got := Suggest(tc.name, 10)
		if tc.want == "" && len(got) != 0 || tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("Suggest(%q) = %v, want one of them %q", tc.name, got, tc.want)
		}
		for _, n := range got {
			if _, ok := Lookup(n); !ok {
				t.Errorf("Suggest(%q) offers %q, not in the registry", tc.name, n)
			}
		}
	}
	if got := Suggest("claude", 2); len(got) != 2 {
		t.Errorf("limit 2: %v", got)
	}
}

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
