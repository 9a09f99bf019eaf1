package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/workspace/tree"
)

// ledgerFuncs returns three Go functions: postA, whose text holds the
// words of "refund in the settlement currency", and postB and postC,
// which hold none of them (the words cannot rank them); noteB and noteC
// are comments in their bodies.
func ledgerFuncs(noteB, noteC string) string {
	var b strings.Builder
	b.WriteString("\n// postA books a refund.\nfunc (l *Ledger) postA() {\n")
	for k := range 6 {
		fmt.Fprintf(&b, "\tl.refund += l.currency * %d // refund in the settlement currency\n", k)
	}
	b.WriteString("}\n")
	for _, f := range [][2]string{{"postB", noteB}, {"postC", noteC}} {
		fmt.Fprintf(&b, "\n// %s closes the day.\nfunc (d *Day) %s() {\n\td.total += 1 // %s\n\td.total *= 2\n}\n", f[0], f[0], f[1])
	}
	return b.String()
}

// TestFocusRecentlyChangedDefinition: of a large file, the function the
// file's last commit changed is focused beside the one the request's
// words match, though the words do not reach it, with the change among
// its reasons; an uncommitted edit of another function is the newest
// change, and the file's first commit (every function) adds nothing.
func TestFocusRecentlyChangedDefinition(t *testing.T) {
	head := "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n"
	file := func(noteB, noteC string) string {
		return head + filler("go", 20) + ledgerFuncs(noteB, noteC) + strings.ReplaceAll(filler("go", 20), "helper", "mixer")
	}
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":        "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": file("keeps the total", "doubles it"),
	})
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The last commits: postB changed, then another file.
	write("pay/ledger.go", file("rounds the total", "doubles it"))
	testutil.Git(t, dir, "commit", "-q", "-am", "round the total")
	write("pay/README.md", "# pay\n")
	testutil.Git(t, dir, "add", "-A")
	testutil.Git(t, dir, "commit", "-q", "-m", "readme")

	lineOf := func(text, s string) int {
		return slices.IndexFunc(strings.Split(text, "\n"), func(l string) bool { return strings.Contains(l, s) }) + 1
	}
	focus := func(e *Engine, read bool) map[int][]string {
		t.Helper()
		if read {
			// The background analysis's read, once per HEAD.
			if err := e.ReadLineHistories(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		_, got, _ := promptTarget(t, e, PromptRequest{UserRequest: "fix the refund in the settlement currency of ledger.go"}, "pay/ledger.go")
		out := map[int][]string{}
		for _, d := range got.Facts.FocusDefs {
			if d.Line != 4 { // the Ledger type, ranked after the functions
				out[d.Line] = d.Why
			}
		}
		return out
	}
	text := file("rounds the total", "doubles it")
	a, b, c := lineOf(text, "func (l *Ledger) postA"), lineOf(text, "func (d *Day) postB"), lineOf(text, "func (d *Day) postC")
	// Before the line histories are read the request does not wait for
	// them: the words' ranking alone.
	e := newEngine(t, dir)
	defs := focus(e, false)
	if _, ok := defs[b]; ok || len(defs) != 1 {
		t.Errorf("focus %v before the line histories are read: want postA (line %d) alone", defs, a)
	}
	defs = focus(e, true)
	if _, ok := defs[a]; !ok {
		t.Fatalf("focus %v: want postA (line %d), which the words match", defs, a)
	}
	if why, ok := defs[b]; !ok || !slices.Contains(why, "changed:1") {
		t.Errorf("focus %v: want postB (line %d, changed by the file's last commit) with changed:1", defs, b)
	}
	if len(defs) != 2 {
		t.Errorf("focus %v: want postA and postB only (the first commit touched every function)", defs)
	}

	// An uncommitted edit of postC is the newest change of the file.
	write("pay/ledger.go", file("rounds the total", "triples it"))
	defs = focus(newEngine(t, dir), true)
	if !slices.Contains(defs[c], "changed:1") || !slices.Contains(defs[b], "changed:2") {
		t.Errorf("focus %v: want postC (line %d, edited) with changed:1 and postB (line %d) with changed:2", defs, c, b)
	}
}

// TestByHistoryWithoutRankedWords: when the request's words rank no
// definition of a file, the one its newest change touched is its ladder
// (scored against a best of 1), with the change among its reasons; the
// file's first commit, which touched every definition, adds none.
func TestByHistoryWithoutRankedWords(t *testing.T) {
	log := "\x01\ndiff --git a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n@@ -12 +12 @@\n-\tx := 1\n+\tx := 2\n" +
		"\x01\ndiff --git a/f.go b/f.go\nnew file mode 100644\n--- /dev/null\n+++ b/f.go\n@@ -0,0 +1,40 @@\n"
	h := tree.LineHistoriesOfLog([]byte(log))["f.go"]
	if h == nil {
		t.Fatal("no line history of f.go")
	}
	cs := focusCands{{span: tree.DefSpan{Start: 1, End: 5}}, {span: tree.DefSpan{Start: 10, End: 15}}, {span: tree.DefSpan{Start: 20, End: 25}}, {span: tree.DefSpan{Start: 30, End: 35}}}
	for _, ranked := range [][]tree.DefScore{nil, {}} {
		got := byHistory(ranked, cs, nil, h)
		if len(got) != 1 || got[0].Index != 1 || got[0].Score <= 0 || got[0].Best != got[0].Score || !slices.Contains(got[0].Terms, "changed:1") {
			t.Errorf("byHistory(%v) = %+v, want the definition at line 10 alone, changed:1, its own best", ranked, got)
		}
	}
}
