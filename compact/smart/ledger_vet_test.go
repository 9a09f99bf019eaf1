package smart

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// goOutput runs the go command in a tiny module of its own (two
// packages: a printf and a copied lock in the root one, a printf in sub,
// and src for b.go when given) and returns what it printed, which must
// have failed.
func goOutput(t *testing.T, bGo string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":     "module example.com/shop\n\ngo 1.22\n",
		"cart.go":    "package shop\n\nimport (\n\t\"fmt\"\n\t\"sync\"\n)\n\nfunc Total(s string) {\n\tfmt.Printf(\"%d\\n\", s)\n\tvar mu sync.Mutex\n\thold(mu)\n}\n\nfunc hold(m sync.Mutex) {}\n",
		"tax/tax.go": "package tax\n\nimport \"fmt\"\n\nfunc Round() { fmt.Printf(\"%s\\n\", 1, 2) }\n",
	}
	if bGo != "" {
		files["b.go"] = bGo
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("go %v: %v, want a failure:\n%s", args, err, out)
	}
	return string(out)
}

// TestLedgerKeepsVetFindings: a `go vet` run's findings, evicted, are
// open errors in the ledger as a compiler's errors are: the real output
// of go vet (file:line:col: message, no error word), the same in older
// go's shape ("# pkg" header, "./" paths, the analyzer's name), and
// go build's compiler error beside them.
func TestLedgerKeepsVetFindings(t *testing.T) {
	vet := goOutput(t, "", "vet", "./...")
	build := goOutput(t, "package shop\n\nfunc B() { undefinedThing() }\n", "build", "./...")
	findings := func(out string) []string {
		var fs []string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, ".go:") {
				fs = append(fs, strings.TrimPrefix(l, "vet: "))
			}
		}
		return fs
	}
	tests := []struct {
		name, cmd, out string
		want           []string
	}{
		{"go vet", "go vet ./...", vet, findings(vet)},
		{"older go vet", "go vet ./...", "# example.com/shop\n./cart.go:9:2: printf: fmt.Printf format %d has arg s of wrong type string\n./cart.go:11:7: copylocks: call of hold copies lock value: sync.Mutex\n",
			[]string{"./cart.go:9:2: printf: fmt.Printf format %d has arg s of wrong type string", "./cart.go:11:7: copylocks: call of hold copies lock value: sync.Mutex"}},
		{"go build", "go build ./...", build, findings(build)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) == 0 {
				t.Fatalf("%s printed no finding:\n%s", tt.cmd, tt.out)
			}
			msgs := []convo.Msg{convo.System("You are a coding agent with a shell."), convo.User("Fix the shop package's vet findings.")}
			msgs = append(msgs, ledgerRound("c0", tt.cmd, "<returncode>1</returncode>\n<output>\n"+tt.out+"</output>")...)
			l := evictedLedger(t, msgs, "shop/mod", "Now the tax package.", 32000)
			i := strings.Index(l, "\nOpen errors")
			if i < 0 {
				t.Fatalf("no open errors in the ledger:\n%s", l)
			}
			open := l[i:]
			if k := strings.Index(open[1:], "\n\n"); k >= 0 {
				open = open[:k+1]
			}
			for _, w := range tt.want {
				if !strings.Contains(open, "- "+w) {
					t.Errorf("open errors lack %q:\n%s\n(output:\n%s)", w, open, tt.out)
				}
			}
		})
	}
}
