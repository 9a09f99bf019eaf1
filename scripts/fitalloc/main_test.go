package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compress"
	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/internal/testutil"
)

// ledger returns a Go file of n functions, function k's body holding
// extra for k == at.
func ledger(n, at int, extra string) string {
	var b strings.Builder
	b.WriteString("package ledger\n\nimport \"fmt\"\n\n")
	for k := range n {
		fmt.Fprintf(&b, "// Entry%d books the %d-th kind of ledger entry.\nfunc Entry%d(account string, cents int) string {\n", k, k, k)
		for l := range 6 {
			fmt.Fprintf(&b, "\tcents += %d * len(account)\n", l+k)
		}
		if k == at {
			b.WriteString(extra)
		}
		b.WriteString("\treturn fmt.Sprint(account, cents)\n}\n\n")
	}
	return b.String()
}

// commit writes files and commits them with msg.
func commit(t *testing.T, dir, msg string, files map[string]string) {
	t.Helper()
	testutil.WriteFiles(t, dir, files)
	testutil.Git(t, dir, "add", "-A")
	testutil.Git(t, dir, "commit", "-q", "-m", msg)
}

// TestObjectiveIsEvals: the cases recorded by eval recall (a repository
// built here, a ledger file of many functions the commits change one of,
// and small files beside it) fitted again at the recorded constants give
// eval's own cells, all-found, all-lines and line-recall, at a budget
// where the fitter must choose views and at one where everything fits;
// and a knob set and set back gives them again. It fails when the
// engine does not hand eval the fitter's input (no chunks: nothing shown)
// or the run again differs from the engine's fit.
func TestObjectiveIsEvals(t *testing.T) {
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":          "module example.com/books\n\ngo 1.26\n",
		"ledger/entry.go": ledger(30, -1, ""),
		"ledger/audit.go": "package ledger\n\n// Audit checks that an account's entries sum to zero.\nfunc Audit(account string) bool {\n\treturn account != \"\"\n}\n",
		"tax/rate.go":     "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tif country == \"DE\" {\n\t\treturn 19\n\t}\n\treturn 0\n}\n",
	})
	commit(t, dir, "Entry7 rounds the cents of a ledger entry to whole euros", map[string]string{
		"ledger/entry.go": ledger(30, 7, "\tcents = cents / 100 * 100\n"),
	})
	commit(t, dir, "Entry21 books refunds as negative cents in the ledger", map[string]string{
		"ledger/entry.go": ledger(30, 21, "\tcents = -cents\n"),
	})
	commit(t, dir, "The Austrian VAT rate is 20 percent", map[string]string{
		"tax/rate.go": "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tif country == \"DE\" {\n\t\treturn 19\n\t}\n\tif country == \"AT\" {\n\t\treturn 20\n\t}\n\treturn 0\n}\n",
	})
	out := t.TempDir()
	rep, err := recordRepo(t.Context(), dir, out, eval.Options{Commits: 10, Budgets: []int{700, 32000}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cases < 2 {
		t.Fatalf("%d cases", rep.Cases)
	}
	set, err := load(filepath.Join(out, filepath.Base(dir)+".gob"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.cases) != 2*rep.Cases {
		t.Fatalf("%d recorded fits for %d cases at 2 budgets", len(set.cases), rep.Cases)
	}
	r := &runner{sets: []*caseSet{set}, jobs: 2, counter: counter()}
	vals := compress.DefaultValues()
	check := func(when string) {
		t.Helper()
		m, err := r.score(t.Context(), vals)
		if err != nil {
			t.Fatal(err)
		}
		if r.mismatches != 0 {
			t.Errorf("%s: %d fits differ from the engine's", when, r.mismatches)
		}
		for _, b := range rep.Budgets {
			c := m.cells[set.name][b.Budget]
			if c == nil {
				t.Fatalf("%s: no cell at %d", when, b.Budget)
			}
			n := float64(c.cases)
			got := []float64{c.found / n, c.lines / n, c.lineShare / n}
			want := []float64{b.Ctxd.All, b.Ctxd.AllLines, b.Ctxd.LineRecall}
			for k := range got {
				if math.Abs(got[k]-want[k]) > 1e-9 {
					t.Errorf("%s, at %d: all-found, all-lines, line-recall %v, eval's %v", when, b.Budget, got, want)
					break
				}
			}
		}
		if m.lines <= 0 || m.objective() <= 0 {
			t.Errorf("%s: objective %s", when, m)
		}
	}
	for _, b := range rep.Budgets {
		t.Logf("at %d: %+v", b.Budget, b.Ctxd)
	}
	check("recorded")
	if err := setKnobs(&vals, "weight.rankpow=2,outline=0.3"); err != nil {
		t.Fatal(err)
	}
	if vals.RankPow != 2 || vals.Outline != 0.3 {
		t.Errorf("set weight.rankpow=2,outline=0.3: %s", current(vals))
	}
	if _, err := r.score(t.Context(), vals); err != nil {
		t.Fatal(err)
	}
	if err := setKnobs(&vals, "weight.rankpow=1,outline=0.15"); err != nil {
		t.Fatal(err)
	}
	if vals != compress.DefaultValues() {
		t.Errorf("set back: %s, want the defaults", current(vals))
	}
	check("set back")
	if err := setKnobs(&vals, "no.such=1"); err == nil {
		t.Error("an unknown knob was set")
	}
}
