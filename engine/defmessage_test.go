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

// TestFocusDefinitionOfWordedCommits: of a large file whose two
// functions the request's words rank, the one a past commit worded like
// the request changed (postB, "Round partial refunds to whole cents",
// five commits before the file's two newest) is raised above the one the
// words match best (postA), with "msg:" among its reasons (the ladder's
// first step), and shown whole in the envelope at 1,000 to 8,000 tokens,
// never over budget; a function changed by a subject sharing only a
// common word ("fix") is not raised.
func TestFocusDefinitionOfWordedCommits(t *testing.T) {
	head := "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n"
	file := func(mulB int, noteC, tail string) string {
		var b strings.Builder
		b.WriteString(head + filler("go", 20))
		b.WriteString("\n// postA books a refund.\nfunc (l *Ledger) postA() {\n")
		for k := range 2 {
			fmt.Fprintf(&b, "\tl.refund += l.currency * %d // refund in the settlement currency\n", k)
		}
		b.WriteString("}\n")
		fmt.Fprintf(&b, "\n// postB closes the day.\nfunc (d *Day) postB() {\n\td.total += 1 // a partial refund in the currency\n\td.total *= %d\n}\n", mulB)
		fmt.Fprintf(&b, "\n// postC closes the day.\nfunc (d *Day) postC() {\n\td.total += 1 // %s\n\td.total *= 2\n}\n", noteC)
		b.WriteString(strings.ReplaceAll(filler("go", 20), "helper", "mixer") + tail)
		return b.String()
	}
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":        "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": file(2, "doubles it", ""),
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
	write("pay/ledger.go", file(3, "doubles it", ""))
	commit("Round partial refunds to whole cents")
	for k, s := range []string{"Fix the readme title", "Add a changelog", "Document the ledger", "Bump the module version", "Describe the day close"} {
		write(fmt.Sprintf("pay/NOTES%d.md", k), "# "+s+"\n")
		commit(s)
	}
	write("pay/ledger.go", file(3, "triples it", ""))
	commit("Fix the day close")
	tail := "\n// tail1 ends the file.\nfunc tail1() int { return %d }\n"
	write("pay/ledger.go", file(3, "triples it", fmt.Sprintf(tail, 1)))
	commit("Add tail1")
	text := file(3, "triples it", fmt.Sprintf(tail, 2))
	write("pay/ledger.go", text)
	commit("Change tail1")

	lines := strings.Split(text, "\n")
	a := slices.Index(lines, "func (l *Ledger) postA() {") + 1
	b := slices.Index(lines, "func (d *Day) postB() {") + 1
	c := slices.Index(lines, "func (d *Day) postC() {") + 1
	if a == 0 || b == 0 || c == 0 {
		t.Fatal("no postA, postB or postC")
	}
	e := newEngine(t, dir)
	if err := e.ReadLineHistories(t.Context()); err != nil {
		t.Fatal(err)
	}
	const request = "Fix partial refunds rounding in the settlement currency"
	for _, total := range []int{1000, 3000, 8000} {
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
			defs := got.Facts.FocusDefs
			if len(defs) == 0 || defs[0].Line != b || !slices.ContainsFunc(defs[0].Why, func(w string) bool { return strings.HasPrefix(w, "msg:") }) {
				t.Errorf("focus %+v: want postB (line %d) first, with a msg: reason", defs, b)
			}
			for _, d := range defs {
				if d.Line == c {
					t.Errorf("postC (line %d, changed by a commit sharing only \"fix\") focused: %v", c, d.Why)
				}
			}
			for l := b; l <= b+4; l++ {
				if ctxd.InRanges(got.Elided, l) || !strings.Contains(got.Content, lines[l-1]) {
					t.Fatalf("at %q (%d tokens, focus %v) line %d %q of postB hidden", got.Truncation, got.Tokens, got.Facts.FocusLines, l, lines[l-1])
				}
			}
		})
	}
}
