package tokens

import (
	"slices"
	"strings"

	"github.com/ctxd/ctxd/internal/editdist"
)

// RegistryVersion identifies the contents of the model table. Bump it
// whenever an entry is added, removed or changed, so envelopes and logs can
// say which table produced a window.
const RegistryVersion = "2026-11-01.1"

// Providers of the registry's models.
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderGoogle    = "google"
	ProviderMeta      = "meta"
	ProviderMistral   = "mistral"
)

// Spec is one model of the registry.
type Spec struct {
	// Name is the canonical name, lowercase ("gpt-4o", "claude-sonnet-4.5").
	Name     string `json:"name"`
	Provider string `json:"provider"`
	// ContextWindow is the input+output window in tokens, the provider's
	// published figure (the smaller one where tiers differ; see
	// docs/tokens.md).
	ContextWindow int `json:"context_window"`
	// MaxOutput is the largest completion the provider allows, in tokens.
	MaxOutput int `json:"max_output"`
	// Encoding is what the model's counter reports: an exact encoding
	// ("o200k_base") or "estimate/<family>".
	Encoding string `json:"encoding"`
	// Family groups models that share a tokenizer: "openai", "claude",
	// "gemini", "llama", "mistral".
	Family string `json:"family"`
	// Aliases are other names of the same model (dated snapshots, provider
	// spellings); [Lookup] matches them exactly and as prefixes.
	Aliases []string `json:"aliases,omitempty"`
	// Exact reports whether Encoding is the model's real BPE.
	Exact bool `json:"exact"`
	// Note records a caveat about the figures, if any.
	Note string `json:"note,omitempty"`
}

// Estimator families: models whose tokenizer is not public (or not
// embedded) are counted by an exact encoding scaled per family.
const (
	FamilyOpenAI  = "openai"
	FamilyClaude  = "claude"
	FamilyGemini  = "gemini"
	FamilyLlama   = "llama"
	FamilyMistral = "mistral"
)

func openai(name string, window, maxOut int, enc string, aliases ...string) Spec {
	return Spec{Name: name, Provider: ProviderOpenAI, ContextWindow: window, MaxOutput: maxOut,
		Encoding: enc, Family: FamilyOpenAI, Aliases: aliases, Exact: true}
}

func estimated(provider, family, name string, window, maxOut int, aliases ...string) Spec {
	return Spec{Name: name, Provider: provider, ContextWindow: window, MaxOutput: maxOut,
		Encoding: "estimate/" + family, Family: family, Aliases: aliases}
}

func withNote(s Spec, note string) Spec {
	s.Note = note
	return s
}

// registry is the model table. Figures are the providers' published
// context windows and output limits; docs/tokens.md lists the caveats.
// Order: provider, then newest family first; Models returns it as is.
var registry = []Spec{
	// OpenAI: exact encodings.
	openai("gpt-5.1", 400_000, 128_000, O200kBase, "gpt-5.1-codex"),
	openai("gpt-5", 400_000, 128_000, O200kBase, "gpt-5-codex"),
	openai("gpt-5-mini", 400_000, 128_000, O200kBase),
	openai("gpt-5-nano", 400_000, 128_000, O200kBase),
	openai("gpt-5-chat", 128_000, 16_384, O200kBase, "gpt-5-chat-latest"),
	openai("gpt-4.1", 1_047_576, 32_768, O200kBase),
	openai("gpt-4.1-mini", 1_047_576, 32_768, O200kBase),
	openai("gpt-4.1-nano", 1_047_576, 32_768, O200kBase),
	openai("gpt-4o", 128_000, 16_384, O200kBase, "chatgpt-4o-latest"),
	openai("gpt-4o-mini", 128_000, 16_384, O200kBase),
	openai("o4-mini", 200_000, 100_000, O200kBase),
	openai("o3", 200_000, 100_000, O200kBase, "o3-pro"),
	openai("o3-mini", 200_000, 100_000, O200kBase),
	openai("o1", 200_000, 100_000, O200kBase, "o1-pro"),
	openai("o1-mini", 128_000, 65_536, O200kBase),
	openai("o1-preview", 128_000, 32_768, O200kBase),
	openai("gpt-4-turbo", 128_000, 4_096, Cl100kBase, "gpt-4-turbo-preview", "gpt-4-1106-preview", "gpt-4-0125-preview"),
	openai("gpt-4-32k", 32_768, 32_768, Cl100kBase),
	openai("gpt-4", 8_192, 8_192, Cl100kBase),
	openai("gpt-3.5-turbo", 16_385, 4_096, Cl100kBase, "gpt-35-turbo"),

	// Anthropic: no public tokenizer for Claude 3 and later.
	withNote(estimated(ProviderAnthropic, FamilyClaude, "claude-opus-4.5", 200_000, 64_000, "claude-opus-4-5"), "1M-token window is not offered; 200k is the standard window"),
	withNote(estimated(ProviderAnthropic, FamilyClaude, "claude-sonnet-4.5", 200_000, 64_000, "claude-sonnet-4-5"), "a 1M-token window exists in beta; 200k is the standard window"),
	estimated(ProviderAnthropic, FamilyClaude, "claude-haiku-4.5", 200_000, 64_000, "claude-haiku-4-5"),
	estimated(ProviderAnthropic, FamilyClaude, "claude-opus-4.1", 200_000, 32_000, "claude-opus-4-1"),
	estimated(ProviderAnthropic, FamilyClaude, "claude-opus-4", 200_000, 32_000, "claude-opus-4-0", "claude-4-opus"),
	withNote(estimated(ProviderAnthropic, FamilyClaude, "claude-sonnet-4", 200_000, 64_000, "claude-sonnet-4-0", "claude-4-sonnet"), "a 1M-token window exists in beta; 200k is the standard window"),
	withNote(estimated(ProviderAnthropic, FamilyClaude, "claude-3.7-sonnet", 200_000, 64_000, "claude-3-7-sonnet"), "128k output needs a beta header; 64k is the standard limit"),
	estimated(ProviderAnthropic, FamilyClaude, "claude-3.5-sonnet", 200_000, 8_192, "claude-3-5-sonnet"),
	estimated(ProviderAnthropic, FamilyClaude, "claude-3.5-haiku", 200_000, 8_192, "claude-3-5-haiku"),
	estimated(ProviderAnthropic, FamilyClaude, "claude-3-opus", 200_000, 4_096),
	estimated(ProviderAnthropic, FamilyClaude, "claude-3-sonnet", 200_000, 4_096),
	estimated(ProviderAnthropic, FamilyClaude, "claude-3-haiku", 200_000, 4_096),

	// Google: Gemini's tokenizer is not public; Gemma's is its proxy.
	estimated(ProviderGoogle, FamilyGemini, "gemini-3-pro", 1_048_576, 65_536, "gemini-3-pro-preview"),
	estimated(ProviderGoogle, FamilyGemini, "gemini-2.5-pro", 1_048_576, 65_536),
	estimated(ProviderGoogle, FamilyGemini, "gemini-2.5-flash", 1_048_576, 65_536),
	estimated(ProviderGoogle, FamilyGemini, "gemini-2.5-flash-lite", 1_048_576, 65_536),
	estimated(ProviderGoogle, FamilyGemini, "gemini-2.0-flash", 1_048_576, 8_192),
	estimated(ProviderGoogle, FamilyGemini, "gemini-2.0-flash-lite", 1_048_576, 8_192),
	estimated(ProviderGoogle, FamilyGemini, "gemini-1.5-pro", 2_097_152, 8_192),
	estimated(ProviderGoogle, FamilyGemini, "gemini-1.5-flash", 1_048_576, 8_192),
	estimated(ProviderGoogle, FamilyGemini, "gemini-1.5-flash-8b", 1_048_576, 8_192),

	// Meta: Llama's BPE is public but not embedded; estimated.
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-4-maverick", 1_000_000, 4_096, "llama4-maverick"), "Meta's published window; hosts often serve less (pass an explicit window). Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-4-scout", 10_000_000, 4_096, "llama4-scout"), "Meta's published window; hosts often serve less (pass an explicit window). Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.3-70b", 131_072, 4_096, "llama3.3-70b", "llama-3.3"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.2-90b", 131_072, 4_096, "llama3.2-90b"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.2-11b", 131_072, 4_096, "llama3.2-11b"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.2-3b", 131_072, 4_096, "llama3.2-3b", "llama3.2", "llama-3.2"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.2-1b", 131_072, 4_096, "llama3.2-1b"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.1-405b", 131_072, 4_096, "llama3.1-405b"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.1-70b", 131_072, 4_096, "llama3.1-70b"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3.1-8b", 131_072, 4_096, "llama3.1-8b", "llama3.1", "llama-3.1"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3-70b", 8_192, 4_096, "llama3-70b"), "Meta publishes no output limit: 4,096 is a common serving default"),
	withNote(estimated(ProviderMeta, FamilyLlama, "llama-3-8b", 8_192, 4_096, "llama3-8b", "llama3", "llama-3"), "Meta publishes no output limit: 4,096 is a common serving default"),

	// Mistral: the Tekken tokenizer is not embedded; estimated. Mistral
	// publishes windows but no separate output limit: MaxOutput is the
	// conservative 4,096 (see docs/tokens.md).
	estimated(ProviderMistral, FamilyMistral, "mistral-large", 131_072, 4_096, "mistral-large-2411", "mistral-large-2407"),
	estimated(ProviderMistral, FamilyMistral, "mistral-medium", 131_072, 4_096, "mistral-medium-2508", "mistral-medium-2505", "mistral-medium-3", "mistral-medium-3.1"),
	estimated(ProviderMistral, FamilyMistral, "mistral-small", 131_072, 4_096, "mistral-small-2506", "mistral-small-2503", "mistral-small-3.1", "mistral-small-3.2"),
	estimated(ProviderMistral, FamilyMistral, "codestral", 262_144, 4_096, "codestral-2508", "codestral-2501"),
	estimated(ProviderMistral, FamilyMistral, "devstral-medium", 131_072, 4_096, "devstral-medium-2507"),
	estimated(ProviderMistral, FamilyMistral, "devstral-small", 131_072, 4_096, "devstral-small-2507", "devstral-small-2505", "devstral"),
	withNote(estimated(ProviderMistral, FamilyMistral, "magistral-medium", 40_000, 4_096, "magistral-medium-2506"), "later releases raised the window; 40k is the first release's, the conservative figure"),
	withNote(estimated(ProviderMistral, FamilyMistral, "magistral-small", 40_000, 4_096, "magistral-small-2506"), "later releases raised the window; 40k is the first release's, the conservative figure"),
	estimated(ProviderMistral, FamilyMistral, "ministral-8b", 131_072, 4_096, "ministral-8b-2410"),
	estimated(ProviderMistral, FamilyMistral, "ministral-3b", 131_072, 4_096, "ministral-3b-2410"),
	estimated(ProviderMistral, FamilyMistral, "mistral-nemo", 131_072, 4_096, "open-mistral-nemo", "mistral-nemo-2407"),
	estimated(ProviderMistral, FamilyMistral, "pixtral-large", 131_072, 4_096, "pixtral-large-2411"),
}

// Models returns a copy of the whole registry, in a stable order (by
// provider, newest families first).
func Models() []Spec {
	out := make([]Spec, len(registry))
	for i, s := range registry {
		s.Aliases = slices.Clone(s.Aliases)
		out[i] = s
	}
	return out
}

// Suggest returns up to limit registry names a name that is not in the
// registry may have meant: those containing it ("claude" → the Claude
// models, newest first), then those a typo away (within two edits, or one
// in six characters for a long name: "claude-sonet-4.5" →
// claude-sonnet-4.5), nearest first (ties in sorted order), for a message
// that offers them.
func Suggest(name string, limit int) []string {
	k := normalizeName(name)
	if k == "" || limit <= 0 {
		return nil
	}
	var out []string
	for _, s := range registry {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			if strings.Contains(normalizeName(n), k) {
				out = append(out, s.Name)
				break
			}
		}
		if len(out) == limit {
			return out
		}
	}
	// A typo's suggestions: every registered name or alias within reach,
	// nearest first, offered under the name it registers.
	var keys []string
	owner := map[string]string{}
	for _, s := range registry {
		if slices.Contains(out, s.Name) {
			continue
		}
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			n = normalizeName(n)
			if _, ok := owner[n]; !ok {
				owner[n] = s.Name
				keys = append(keys, n)
			}
		}
	}
	for _, n := range editdist.Ranked(k, keys, editdist.Edits(max(2, len(k)/6))) {
		if len(out) == limit {
			break
		}
		if !slices.Contains(out, owner[n]) {
			out = append(out, owner[n])
		}
	}
	return out
}

// PrefixRest is, for a name Lookup finds by prefix, what follows the
// registered name it starts with ("2024-08-06" for "gpt-4o-2024-08-06");
// "" for a name registered as written, or not found.
func PrefixRest(name string) string {
	_, rest, _ := lookup(name)
	return rest
}

// SnapshotSuffix reports that rest (PrefixRest's) names a snapshot or a
// version of the model rather than something else: dates and numbers
// ("2024-08-06", "20250929", "0613", "v2-0"), "latest", "preview",
// "exp", "instruct", "chat" and the like, dash-separated.
func SnapshotSuffix(rest string) bool {
	if rest == "" {
		return true
	}
	for _, p := range strings.Split(rest, "-") {
		switch {
		case p == "":
			return false
		case strings.Trim(p, "0123456789") == "":
		case strings.HasPrefix(p, "v") && strings.Trim(p[1:], "0123456789.") == "" && len(p) > 1:
		case slices.Contains(snapshotWords, p):
		default:
			return false
		}
	}
	return true
}

// snapshotWords are the words of model ids' snapshot and variant suffixes.
var snapshotWords = []string{"latest", "preview", "exp", "experimental", "instruct", "chat", "it", "hf", "fp8", "fp16", "bf16", "q4", "q8", "beta", "alpha", "thinking", "online"}

// byName indexes the registry by normalized name and alias.
var byName = func() map[string]int {
	m := make(map[string]int)
	for i, s := range registry {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			k := normalizeName(n)
			if _, dup := m[k]; dup {
				panic("tokens: duplicate registry name " + k)
			}
			m[k] = i
		}
	}
	return m
}()

// Lookup finds a registry entry by exact name or alias, then by prefix: a
// dated snapshot or variant ("gpt-4o-2024-08-06" → gpt-4o,
// "claude-sonnet-4-5-20250929" → claude-sonnet-4.5) matches the longest
// registered name it starts with, followed by "-". Matching is
// case-insensitive and ignores a provider prefix ("openai/gpt-4o",
// "models/gemini-2.5-pro", "anthropic.claude-…" on Bedrock) and a version
// tag after "@" (Vertex); ":" reads as "-" ("llama3.1:70b").
func Lookup(name string) (Spec, bool) {
	i, _, ok := lookup(name)
	if !ok {
		return Spec{}, false
	}
	return cloneSpec(registry[i]), true
}

// lookup is Lookup's match: the registry index and, for a match by
// prefix, what follows the registered name and its "-" ("" for an exact
// one).
func lookup(name string) (i int, rest string, ok bool) {
	k := normalizeName(name)
	if k == "" {
		return 0, "", false
	}
	if i, ok := byName[k]; ok {
		return i, "", true
	}
	best, bestLen := -1, 0
	for n, i := range byName {
		if len(n) > bestLen && strings.HasPrefix(k, n) && k[len(n)] == '-' {
			best, bestLen = i, len(n)
		}
	}
	if best < 0 {
		return 0, "", false
	}
	return best, k[bestLen+1:], true
}

func cloneSpec(s Spec) Spec {
	s.Aliases = slices.Clone(s.Aliases)
	return s
}

// vendorPrefixes are dotted prefixes of cloud model ids (Bedrock's
// "anthropic.claude-…", cross-region "us.anthropic.claude-…").
var vendorPrefixes = []string{"us.", "eu.", "apac.", "global.", "anthropic.", "meta.", "mistral.", "openai.", "google."}

// normalizeName lowercases a model name and strips what does not identify
// the model: surrounding space, a provider path, a cloud vendor prefix, a
// version tag after "@", and Hugging Face's "meta-" before "llama". A ":"
// becomes "-".
func normalizeName(name string) string {
	s := strings.ToLower(strings.TrimSpace(name))
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	for again := true; again; {
		again = false
		for _, p := range vendorPrefixes {
			if strings.HasPrefix(s, p) {
				s, again = s[len(p):], true
			}
		}
	}
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[:i]
	}
	// Ollama's "llama3.1:70b" and Bedrock's "…-v2:0" read as dashes.
	s = strings.ReplaceAll(s, ":", "-")
	if strings.HasPrefix(s, "meta-llama") {
		s = strings.TrimPrefix(s, "meta-")
	}
	return s
}
