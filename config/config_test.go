package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// isolate points the user-level file at a temp path so the developer's own
// configuration never leaks into a test.
func isolate(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "user.toml")
	t.Setenv("CTXD_CONFIG", p)
	return p
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadPrecedence(t *testing.T) {
	user := isolate(t)
	root := t.TempDir()
	write(t, user, "model = \"claude-sonnet-4.5\"\n[budget]\ntotal = 16000\n[gather]\nmax_files = 20\n")
	write(t, filepath.Join(root, WorkspaceFile), "[budget]\ntotal = 12000\n[priority]\n\"domain/models/**\" = 200\n[gather.depth]\ndebug = 4\n")

	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key, source string
		got, want   any
	}{
		{"model", "user: " + user, c.Model, "claude-sonnet-4.5"},
		{"budget.total", "workspace: " + filepath.Join(root, WorkspaceFile), c.Budget.Total, 12000},
		{"gather.max_files", "user: " + user, c.Gather.MaxFiles, 20},
		{"gather.depth.debug", "workspace: " + filepath.Join(root, WorkspaceFile), c.Gather.Depth["debug"], 4},
		{"priority.domain/models/**", "workspace: " + filepath.Join(root, WorkspaceFile), c.Priority["domain/models/**"], 200},
		{"format", SourceDefault, c.Format, ctxd.FormatMarkdown},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.key, tt.got, tt.want)
		}
		if s := c.Source(tt.key); s != tt.source {
			t.Errorf("source of %s = %q, want %q", tt.key, s, tt.source)
		}
	}

	model := "gpt-4.1"
	total := 4000
	if err := c.Apply(Overrides{Model: &model, BudgetTotal: &total}, SourceFlag); err != nil {
		t.Fatal(err)
	}
	if c.Model != model || c.Source("model") != SourceFlag || c.Budget.Total != 4000 {
		t.Errorf("after flags: model %q (%s), total %d", c.Model, c.Source("model"), c.Budget.Total)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantLine  int
		wantKey   string
		wantInMsg string
	}{
		{"wrong type", "model = \"x\"\n[budget]\ntotal = \"lots\"\n", 3, "budget.total", "want int"},
		{"unknown key", "[budget]\ntotla = 5\n", 2, "budget.totla", "unknown key (did you mean total?); valid here: total, shares"},
		{"unknown nested key", "[budget.shares]\nrequest = 0.1\n", 2, "budget.shares.request", "valid here: system, context, user_request, response"},
		{"unknown top key", "modle = \"gpt-4o\"\n", 1, "modle", "did you mean model?"},
		{"unknown key far from any", "[log]\nverbosity = 3\n", 2, "log.verbosity", "unknown key; valid here: level, file"},
		{"syntax", "model = \n", 1, "", "unexpected character"},
		{"bad shares", "[budget.shares]\nsystem = 0.5\ncontext = 0.5\nuser_request = 0.5\nresponse = 0\n", 0, "budget.shares", "sum to 1"},
		{"bad share alone", "[budget.shares]\ncontext = 0.9\n", 0, "budget.shares (from workspace: ", "system 0.1 + context 0.9 + user_request 0.1 + response 0.3 = 1.400 (a share not given keeps its default)"},
		{"bad format", "format = \"html\"\n", 0, "format", "markdown or xml"},
		{"bad glob", "[priority]\n\"a/[b\" = 1\n", 0, "priority", "invalid glob"},
		{"bad task depth", "[gather.depth]\ndeploy = 3\n", 0, "gather.depth.deploy", "unknown task type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			root := t.TempDir()
			path := filepath.Join(root, WorkspaceFile)
			write(t, path, tt.text)
			_, err := Load(root)
			if err == nil {
				t.Fatal("Load succeeded on a malformed file")
			}
			if !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Errorf("error %v does not wrap ErrInvalidParams", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantInMsg) || !strings.Contains(msg, tt.wantKey) {
				t.Errorf("error %q: want key %q and %q in it", msg, tt.wantKey, tt.wantInMsg)
			}
			var fe *FileError
			if tt.wantLine > 0 {
				if !errors.As(err, &fe) {
					t.Fatalf("error %T is not a *FileError", err)
				}
				if fe.Line != tt.wantLine || fe.Path != path {
					t.Errorf("position %s:%d, want %s:%d", fe.Path, fe.Line, path, tt.wantLine)
				}
			}
		})
	}
}

func TestMissingFilesAreDefaults(t *testing.T) {
	isolate(t)
	c, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Entries() {
		if e.Source != SourceDefault {
			t.Errorf("%s from %s, want default", e.Key, e.Source)
		}
		// An unset list setting is [] in JSON (ctxd config --json, the
		// daemon's initialize result), not null.
		if e.Key == "gather.include" || e.Key == "gather.exclude" {
			if b, err := json.Marshal(e.Value); err != nil || string(b) != "[]" {
				t.Errorf("%s encodes as %s (%v), want []", e.Key, b, err)
			}
		}
	}
	if c.Budget.Total != ctxd.DefaultBudgetTotal || c.Budget.Shares != ctxd.DefaultShares {
		t.Errorf("defaults: %+v", c.Budget)
	}
}

func TestCloneIsDeep(t *testing.T) {
	c := Default()
	d := c.Clone()
	d.Priority["x/**"] = 5
	d.Gather.Depth["debug"] = 99
	d.Set("model", SourceFlag)
	if len(c.Priority) != 0 || c.Gather.Depth["debug"] == 99 || c.Source("model") != SourceDefault {
		t.Error("Clone shares state with the original")
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("model = \"x\"\n[budget]\ntotal = 5\n"))
	f.Add([]byte("[priority]\n\"a/**\" = 200\n"))
	f.Add([]byte("[[x]]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fc, err := parseFile("fuzz.toml", data)
		if err == nil {
			c := Default()
			c.merge(fc, "fuzz")
			_ = c.Validate()
			_ = c.Entries()
		} else if !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Fatalf("error %v does not wrap ErrInvalidParams", err)
		}
	})
}
