package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
)

// symbolRepo is a small Python package whose tests call a method many
// more times than the module defining it names it.
func symbolRepo(t *testing.T) string {
	t.Helper()
	calls := strings.Repeat("    s.merge_environment_settings(url, {}, None, None, None)\n", 12)
	return testutil.GitRepo(t, map[string]string{
		"pkg/sessions.py": "from .utils import get_environ_proxies\n\n\nclass Session:\n" +
			"    def merge_environment_settings(self, url, proxies, stream, verify, cert):\n" +
			"        \"\"\"Merge the environment into the settings.\"\"\"\n" +
			"        env = get_environ_proxies(url)\n" +
			"        for k, v in env.items():\n" +
			"            proxies.setdefault(k, v)\n" +
			"        return {'proxies': proxies, 'stream': stream}\n",
		"pkg/utils.py":         "def get_environ_proxies(url):\n    return {}\n",
		"tests/test_merge.py":  "from pkg.sessions import Session\n\n\ndef test_merge():\n    s = Session()\n    url = 'http://x'\n" + calls,
		"pkg/adapters.py":      "class HTTPAdapter:\n    def send(self, request):\n        return None\n",
		"docs/environment.rst": "Environment\n===========\n\nmerge_environment_settings merges the environment.\n",
	})
}

// TestMatchSymbols: a request's identifiers mark the files that define
// them, whatever the case style or qualifier, and not the files that only
// call them; a name the workspace does not define (a library's) keeps the
// files that use it, and a file that is not parsed keeps its text matches.
func TestMatchSymbols(t *testing.T) {
	dir := symbolRepo(t)
	e := newEngine(t, dir)
	tests := []struct {
		request string
		want    map[string][]string // path → MentionedSymbols, then "uses " UsedSymbols
	}{
		{"rename Session.merge_environment_settings to merge_settings", map[string][]string{
			"pkg/sessions.py": {"Session", "merge_environment_settings"}, "docs/environment.rst": {"merge_environment_settings"}}},
		{"mergeEnvironmentSettings drops the proxies", map[string][]string{"pkg/sessions.py": {"merge_environment_settings"}}},
		{"merge_environment_settings should call get_environ_proxies() once", map[string][]string{
			"pkg/sessions.py": {"merge_environment_settings"}, "pkg/utils.py": {"get_environ_proxies"},
			"docs/environment.rst": {"merge_environment_settings"}}},
		// The bare words count too: HTTPAdapter is defined, and so is
		// merge_environment_settings, elsewhere.
		{"HTTPAdapter.merge_environment_settings is missing", map[string][]string{
			"pkg/adapters.py": {"HTTPAdapter"}, "pkg/sessions.py": {"merge_environment_settings"},
			"docs/environment.rst": {"merge_environment_settings"}}},
		// items() is the library's: its users keep it, as a name they use.
		{"iterate with dict.items() in the merge", map[string][]string{"pkg/sessions.py": {"uses items"}}},
		// The qualifiers of a qualified name are modules: pkg.utils is
		// no name the files use.
		{"test pkg.utils.get_environ_proxies", map[string][]string{"pkg/utils.py": {"get_environ_proxies"}}},
		{"why does the adapter drop proxies", map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			var chunks []ctxd.Chunk
			for _, p := range []string{"pkg/sessions.py", "pkg/utils.py", "tests/test_merge.py", "pkg/adapters.py", "docs/environment.rst"} {
				b, err := os.ReadFile(filepath.Join(dir, p))
				if err != nil {
					t.Fatal(err)
				}
				// What gather found: the request's identifiers in the text.
				var mentioned []string
				for _, id := range query.Parse(tt.request).Idents {
					if strings.Contains(string(b), id) {
						mentioned = append(mentioned, id)
					}
				}
				chunks = append(chunks, ctxd.Chunk{Source: p, ChunkType: ctxd.ChunkFile, Content: string(b),
					Facts: ctxd.Facts{MentionedSymbols: mentioned}})
			}
			e.matchSymbols(t.Context(), query.Parse(tt.request), chunks, nil)
			for _, c := range chunks {
				got := slices.Clone(c.Facts.MentionedSymbols)
				for _, u := range c.Facts.UsedSymbols {
					got = append(got, "uses "+u)
				}
				if want := tt.want[c.Source]; !slices.Equal(got, want) {
					t.Errorf("%s: symbols %q, want %q", c.Source, got, want)
				}
			}
		})
	}
}

// TestSymbolIndexPersisted: a prompt indexes the gathered files' symbols
// into the state directory; a new engine (a second CLI run) parses none of
// them again, and an edited file alone is parsed.
func TestSymbolIndexPersisted(t *testing.T) {
	dir := symbolRepo(t)
	open := reopener(t, dir, stateWithIndex(t))
	req := PromptRequest{UserRequest: "rename Session.merge_environment_settings to merge_settings"}
	e1 := open()
	env, err := e1.BuildPrompt(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, order := targetChunk(t, &env.Context, "pkg/sessions.py"); c == nil || !slices.Contains(c.Facts.MentionedSymbols, "merge_environment_settings") {
		t.Fatalf("pkg/sessions.py not in the context with its symbol: %v", order)
	}
	first := e1.store.Symbols().Parses()
	if first == 0 {
		t.Fatal("nothing parsed")
	}
	if _, err := os.Stat(filepath.Join(e1.store.Dir(), "symbols.keys")); err != nil {
		t.Fatalf("symbol index not saved: %v", err)
	}

	e2 := open()
	if _, err := e2.BuildPrompt(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	if n := e2.store.Symbols().Parses(); n != 0 {
		t.Errorf("second process parsed %d files, want 0", n)
	}
	if err := os.WriteFile(filepath.Join(dir, "pkg/utils.py"), []byte("def get_environ_proxies(url, no_proxy=None):\n    return {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e2.BuildPrompt(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	if n := e2.store.Symbols().Parses(); n > 1 {
		t.Errorf("after editing one file %d parses, want at most 1", n)
	}
}

// stateWithIndex returns a state directory whose index/ exists, so the
// engines opened on it persist their stores there.
func stateWithIndex(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	if err := os.MkdirAll(filepath.Join(state, "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	return state
}

// reopener returns a function that opens a new engine on dir and state,
// as a new CLI run would, closed at the test's end.
func reopener(t *testing.T, dir, state string) func() *Engine {
	return func() *Engine { return openEngine(t, dir, Options{StateDir: state}) }
}

// TestPinNamed: the one gathered file that defines a name the request
// writes, qualified or bare, counts as named (HIGH, mentioned, with a
// reason); a name two files define pins neither.
func TestPinNamed(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"pkg/config.py": "class Timeout:\n    def __init__(self, connect=None):\n        self.connect = connect\n",
		"pkg/other.py":  "def use(t):\n    return t.connect\n",
		"pkg/a.py":      "def run(x):\n    return x\n",
		"pkg/b.py":      "def run(y):\n    return y\n",
	})
	e := newEngine(t, dir)
	tests := []struct {
		request string
		pinned  []string
	}{
		{"why does pkg.Timeout raise when only connect is given", []string{"pkg/config.py"}},
		{"why does Timeout raise when only connect is given", []string{"pkg/config.py"}},
		{"why does connect raise", nil}, // a lowercase word is not a code name
		{"make pkg.run faster", nil},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			var chunks []ctxd.Chunk
			for _, p := range []string{"pkg/config.py", "pkg/other.py", "pkg/a.py", "pkg/b.py"} {
				b, err := os.ReadFile(filepath.Join(dir, p))
				if err != nil {
					t.Fatal(err)
				}
				chunks = append(chunks, ctxd.Chunk{Source: p, ChunkType: ctxd.ChunkFile, Content: string(b), Priority: ctxd.PriorityMedium})
			}
			e.matchSymbols(t.Context(), query.Parse(tt.request), chunks, nil)
			var got []string
			for _, c := range chunks {
				if c.Facts.Mentioned {
					got = append(got, c.Source)
					if c.Priority != ctxd.PriorityHigh || !slices.ContainsFunc(c.Facts.Reasons, func(r string) bool { return strings.HasSuffix(r, ", named in the request") }) {
						t.Errorf("%s pinned at %v with reasons %q", c.Source, c.Priority, c.Facts.Reasons)
					}
				}
			}
			if !slices.Equal(got, tt.pinned) {
				t.Errorf("pinned %q, want %q", got, tt.pinned)
			}
		})
	}
}
