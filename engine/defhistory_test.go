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

// twinFuncs returns two Go functions, settleA and settleB, whose text
// matches "refund in the settlement currency" alike (the same words, the
// same length): the request's words cannot tell them apart. note is a
// comment in settleB's body.
func twinFuncs(note string) string {
	var b strings.Builder
	for _, name := range []string{"settleA", "settleB"} {
		fmt.Fprintf(&b, "\n// %s books a refund.\nfunc (l *Ledger) %s() {\n", name, name)
		for k := range 6 {
			fmt.Fprintf(&b, "\tl.refund += l.currency * %d // refund in the settlement currency\n", k)
		}
		if name == "settleB" {
			fmt.Fprintf(&b, "\tl.total += 1 // %s\n", note)
		} else {
			b.WriteString("\tl.total += 1 // keeps the total\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestFocusRecentlyChangedDefinition: a request whose words match two
// functions of a large file alike focuses first the one the file's recent
// commits changed (the ranking by words alone keeps the file's order and
// puts the other first), with the change among its reasons; and an
// uncommitted edit of the other makes that one first.
func TestFocusRecentlyChangedDefinition(t *testing.T) {
	head := "package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n"
	file := func(note string) string {
		return head + filler("go", 20) + twinFuncs(note) + strings.ReplaceAll(filler("go", 20), "helper", "mixer")
	}
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":        "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": file("keeps the total"),
	})
	// The last commits: settleB changed, then an unrelated file.
	write := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pay/ledger.go", file("rounds the total"))
	testutil.Git(t, dir, "commit", "-q", "-am", "round the total")
	write("pay/README.md", "# pay\n")
	testutil.Git(t, dir, "add", "-A")
	testutil.Git(t, dir, "commit", "-q", "-m", "readme")

	text := file("rounds the total")
	lineOf := func(text, s string) int {
		return slices.IndexFunc(strings.Split(text, "\n"), func(l string) bool { return strings.Contains(l, s) }) + 1
	}
	focus := func(e *Engine) []ctxd.DefScore {
		t.Helper()
		_, got, _ := promptTarget(t, e, PromptRequest{UserRequest: "fix the refund in the settlement currency of ledger.go"}, "pay/ledger.go")
		if len(got.Facts.FocusDefs) < 2 {
			t.Fatalf("focus %v, want both twins ranked", got.Facts.FocusDefs)
		}
		return got.Facts.FocusDefs
	}
	e := newEngine(t, dir)
	defs := focus(e)
	if a, b := lineOf(text, "func (l *Ledger) settleA"), lineOf(text, "func (l *Ledger) settleB"); defs[0].Line != b || defs[1].Line != a {
		t.Errorf("focus %v: want settleB (line %d, changed by the last commit of the file) before settleA (line %d)", defs, b, a)
	}
	if !slices.Contains(defs[0].Why, "changed:1") {
		t.Errorf("settleB's reasons %v, want changed:1", defs[0].Why)
	}
	if defs[0].Score <= defs[1].Score {
		t.Errorf("scores %v: the changed twin should score more", defs)
	}

	// An uncommitted edit of settleA is the newest change of the file.
	edited := strings.Replace(text, "\tl.total += 1 // keeps the total\n", "\tl.total += 2 // keeps the total\n", 1)
	write("pay/ledger.go", edited)
	defs = focus(newEngine(t, dir))
	if a := lineOf(edited, "func (l *Ledger) settleA"); defs[0].Line != a || !slices.Contains(defs[0].Why, "changed:1") || !slices.Contains(defs[1].Why, "changed:2") {
		t.Errorf("focus %v: want settleA (line %d, edited) first with changed:1, settleB changed:2", defs, a)
	}
}
