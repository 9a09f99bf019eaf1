package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestFocusDefinitionOfWordedCommits: of a large file, the function that
// a past commit worded like the request changed (postB, "Round partial
// refunds to whole cents"), whose text holds none of the request's words
// and which neither of the file's two newest commits touched, is focused
// (with "msg:" among its reasons) and shown whole in the envelope beside
// the one the words match, never over budget; a subject sharing only a
// common word ("fix") adds nothing.
func TestFocusDefinitionOfWordedCommits(t *testing.T) {
	head := "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n"
	file := func(noteB, noteC, tail string) string {
		return head + filler("go", 20) + ledgerFuncs(noteB, noteC) + strings.ReplaceAll(filler("go", 20), "helper", "mixer") + tail
	}
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":        "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": file("keeps the total", "doubles it", ""),
	})
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(subject string) {
		t.Helper()
		testutil.Git(t, dir, "add", "-A")
		testutil.Git(t, dir, "commit", "-q", "-m", subject)
	}
	// Past commits: postB by a subject worded like the request, postC by
	// one sharing only "fix", other files by others; then the file's two
	// newest changes, at its end.
	write("pay/ledger.go", file("halves the total", "doubles it", ""))
	commit("Round partial refunds to whole cents")
	for k, s := range []string{"Fix the readme title", "Add a changelog", "Document the ledger", "Bump the module version", "Describe the day close"} {
		write(fmt.Sprintf("pay/NOTES%d.md", k), "# "+s+"\n")
		commit(s)
	}
	write("pay/ledger.go", file("halves the total", "triples it", ""))
	commit("Fix the day close")
	write("pay/ledger.go", file("halves the total", "triples it", "\n// tail1 ends the file.\nfunc tail1() int { return 1 }\n"))
	commit("Add tail1")
	write("pay/ledger.go", file("halves the total", "triples it", "\n// tail1 ends the file.\nfunc tail1() int { return 2 }\n"))
	commit("Change tail1")

	text := file("halves the total", "triples it", "\n// tail1 ends the file.\nfunc tail1() int { return 2 }\n")
	lines := strings.Split(text, "\n")
	b := slices.Index(lines, "func (d *Day) postB() {") + 1
	c := slices.Index(lines, "func (d *Day) postC() {") + 1
	if b == 0 || c == 0 {
		t.Fatal("no postB or postC")
	}
	e := newEngine(t, dir)
	if err := e.ReadLineHistories(t.Context()); err != nil {
		t.Fatal(err)
	}
	const request = "Fix partial refunds rounding in the settlement currency"
	for _, total := range []int{3000, 8000} {
		t.Run(fmt.Sprint(total), func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, OpenFiles: []ctxd.OpenFile{{Path: "pay/ledger.go"}}, TokenBudget: &BudgetRequest{Total: total}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if env.Context.TokensUsed > env.Context.Budget {
				t.Errorf("over budget: %d of %d", env.Context.TokensUsed, env.Context.Budget)
			}
			got, order := targetChunk(t, &env.Context, "pay/ledger.go")
			if got == nil {
				t.Fatalf("pay/ledger.go not placed: %v", order)
			}
			if !got.Truncated {
				t.Fatalf("pay/ledger.go whole (%d tokens): the budget tests nothing", got.Tokens)
			}
			var why []string
			for _, d := range got.Facts.FocusDefs {
				if d.Line == b {
					why = d.Why
				}
				if d.Line == c {
					t.Errorf("postC (line %d, changed by a commit sharing only \"fix\") focused: %v", c, d.Why)
				}
			}
			if !slices.ContainsFunc(why, func(w string) bool { return strings.HasPrefix(w, "msg:") }) {
				t.Errorf("focus %+v: want postB (line %d) with a msg: reason", got.Facts.FocusDefs, b)
			}
			for l := b; l <= b+4; l++ {
				if ctxd.InRanges(got.Elided, l) || !strings.Contains(got.Content, lines[l-1]) {
					t.Fatalf("at %q (%d tokens, focus %v) line %d %q of postB hidden", got.Truncation, got.Tokens, got.Facts.FocusLines, l, lines[l-1])
				}
			}
		})
	}
}
