package engine

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace"
)

// viewRepo is a Go package whose files are too large for a small budget
// whole, so the fitter takes their structural views.
func viewRepo(t *testing.T) string {
	t.Helper()
	files := map[string]string{}
	for i := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "package shutdown\n\n// Server%d drains connections on shutdown.\ntype Server%d struct{ n int }\n\n", i, i)
		for j := range 8 {
			fmt.Fprintf(&b, "// Shutdown%d closes the listener gracefully.\nfunc (s *Server%d) Shutdown%d() error {\n", j, i, j)
			for k := range 12 {
				fmt.Fprintf(&b, "\ts.n += %d // drain step\n", k)
			}
			b.WriteString("\treturn nil\n}\n\n")
		}
		files[fmt.Sprintf("server%d.go", i)] = b.String()
	}
	return testutil.GitRepo(t, files)
}

// TestViewStorePersisted: a prompt leaves the tree-sitter store beside the
// index; a corrupt or truncated store is rebuilt with a warning, a stale
// one quietly, and the prompt is the same in every case.
func TestViewStorePersisted(t *testing.T) {
	dir := viewRepo(t)
	state := stateWithIndex(t)
	req := PromptRequest{UserRequest: "how does the server shut down gracefully", TokenBudget: &BudgetRequest{Total: 2500}}
	run := func() (prompt, logs string) {
		t.Helper()
		var buf bytes.Buffer
		e, err := New(dir, Options{Config: config.Default(), StateDir: state, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
		if err != nil {
			t.Fatal(err)
		}
		env, err := e.BuildPrompt(t.Context(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return env.Prompt, buf.String()
	}
	path := filepath.Join(state, "index", workspace.ViewsFile)
	stored := func() treesitter.StoreStats {
		t.Helper()
		// views.bin holds the verdicts; one removed as corrupt is written
		// again by a process that learns one (this one has them cached).
		var st treesitter.StoreStats
		if body, err := index.ReadSealed(path, workspace.ViewsMagic, workspace.ViewsKey(), workspace.MaxViewsBytes); err == nil {
			s, err := treesitter.DecodeStore(body)
			if err != nil {
				t.Fatal(err)
			}
			st = s.Stats()
		}
		// The analyses are in their record file.
		r, err := index.OpenRecords(filepath.Join(state, "index"), workspace.AnalysesName, workspace.ViewsKey())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		st.Analyses += r.Len()
		return st
	}

	want, _ := run()
	if !strings.Contains(want, "/* ... ") {
		t.Fatalf("no structural view in the prompt; the test needs one:\n%s", want)
	}
	if st := stored(); st.Analyses == 0 {
		t.Fatalf("stored %+v, want analyses", st)
	}
	body, err := index.ReadSealed(filepath.Join(state, "index", workspace.CountsFile), workspace.CountsMagic, workspace.CountsKey, 64<<20)
	if err != nil {
		t.Fatalf("token counts not written: %v", err)
	}
	if cs, err := tokens.DecodeCountStore(body); err != nil || cs.Stats().Counts == 0 {
		t.Fatalf("token counts: %v, %+v", err, cs)
	}
	// A second process on the unchanged tree learns nothing new: it
	// writes neither file.
	if st := stored(); st.Verdicts == 0 {
		t.Fatalf("stored %+v, want verdicts", st)
	}
	fi, _ := os.Stat(path)
	if again, _ := run(); again != want {
		t.Fatal("second prompt differs")
	}
	if fi2, _ := os.Stat(path); !fi2.ModTime().Equal(fi.ModTime()) {
		t.Error("the store was rewritten by a process that learned nothing")
	}

	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func() error
		warn  bool
	}{
		{"flipped byte", func() error {
			b := bytes.Clone(good)
			b[len(b)/2] ^= 0xff
			return os.WriteFile(path, b, 0o600)
		}, true},
		{"truncated", func() error { return os.WriteFile(path, good[:len(good)/3], 0o600) }, true},
		{"stale", func() error {
			return index.WriteSealed(path, workspace.ViewsMagic, "treesitter-store/0", []byte("old"))
		}, false},
		{"missing", func() error { return os.Remove(path) }, false},
		{"corrupt analyses", func() error {
			ms, _ := filepath.Glob(filepath.Join(state, "index", workspace.AnalysesName+".*.dat"))
			if len(ms) != 1 {
				return fmt.Errorf("analyses' data files: %v", ms)
			}
			b, err := os.ReadFile(ms[0])
			if err != nil {
				return err
			}
			for i := 0; i < len(b); i += 97 {
				b[i] ^= 0x5a
			}
			return os.WriteFile(ms[0], b, 0o600)
		}, false},
		{"analyses of another version", func() error {
			r, err := index.OpenRecords(filepath.Join(state, "index"), workspace.AnalysesName, "treesitter-store/0")
			if err != nil {
				return err
			}
			return r.Close()
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.write(); err != nil {
				t.Fatal(err)
			}
			got, logs := run()
			if got != want {
				t.Errorf("prompt differs after a %s store", tt.name)
			}
			if warned := strings.Contains(logs, "tree-sitter store not used"); warned != tt.warn {
				t.Errorf("warned %v, want %v; logs:\n%s", warned, tt.warn, logs)
			}
			if st := stored(); st.Analyses == 0 {
				t.Errorf("store not rebuilt: %+v", st)
			}
		})
	}
}
