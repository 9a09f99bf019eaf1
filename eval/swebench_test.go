package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestReadInstances(t *testing.T) {
	one := Instance{Repo: "shop/shop", InstanceID: "shop__shop-1", BaseCommit: "abc", ProblemStatement: "Totals are off,\n\"by a cent\".", Patch: "diff --git a/a.py b/a.py\n"}
	js, _ := json.Marshal(one)
	tests := []struct {
		name, in string
		want     int
		err      string
	}{
		{"json lines", string(js) + "\n" + string(js) + "\n", 2, ""},
		{"json array", "\ufeff[" + string(js) + "]", 1, ""},
		{"csv", "repo,instance_id,base_commit,patch,test_patch,problem_statement\nshop/shop,shop__shop-1,abc,\"diff --git a/a.py b/a.py\n\",x,\"Totals are off,\n\"\"by a cent\"\".\"\n", 1, ""},
		{"empty", " \n", 0, "empty"},
		{"no patch", `{"repo":"a/b","base_commit":"c","problem_statement":"p"}`, 0, "has no patch"},
		{"csv without a patch column", "repo,base_commit,problem_statement\na/b,c,p\n", 0, `no "patch" column`},
		{"bad json line", string(js) + "\n{\"repo\":", 0, "JSON line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadInstances(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want || got[0] != one {
				t.Errorf("got %d instances, first %+v; want %d of %+v", len(got), got[0], tt.want, one)
			}
		})
	}
}

// shopPatch edits shop/cart.py; its second hunk's header is 7 lines off
// (the patch was made against another version of the file), and its third
// is a pure insertion.
const shopPatch = `diff --git a/shop/cart.py b/shop/cart.py
--- a/shop/cart.py
+++ b/shop/cart.py
@@ -4,7 +4,7 @@ class Cart:
 
     def add(self, sku, qty):
         # quantities add up
-        self.items[sku] = qty
+        self.items[sku] = self.items.get(sku, 0) + qty
 
     def remove(self, sku):
         del self.items[sku]
@@ -3,8 +3,8 @@ def add(self, sku, qty):
     def total(self, prices):
         n = 0
         for sku, qty in self.items.items():
-            n += prices[sku] * qty
-        return n
+            n += round(prices[sku] * qty, 2)
+        return round(n, 2)
 
 
 def empty():
@@ -19,2 +19,4 @@ def empty():
 def empty():
     return Cart()
+
+-- not a file header
`

const shopCart = `class Cart:
    def __init__(self):
        self.items = {}

    def add(self, sku, qty):
        # quantities add up
        self.items[sku] = qty

    def remove(self, sku):
        del self.items[sku]

    def total(self, prices):
        n = 0
        for sku, qty in self.items.items():
            n += prices[sku] * qty
        return n


def empty():
    return Cart()
`

func TestHunkLines(t *testing.T) {
	hunks := parseHunks([]byte(shopPatch))
	if len(hunks) != 3 {
		t.Fatalf("%d hunks, want 3: %+v", len(hunks), hunks)
	}
	old := strings.Split(shopCart, "\n")
	got, unplaced := hunkLines(hunks, func(string) []string { return old })
	// Line 7 replaced; lines 15 and 16 replaced although the header says
	// 3 (found by their text); the insertion follows line 20.
	if want := []int{7, 15, 16, 20}; !slices.Equal(got["shop/cart.py"], want) || unplaced != 0 || len(got) != 1 {
		t.Errorf("changed lines = %v (%d unplaced), want %v", got, unplaced, want)
	}
	// By their headers alone the second hunk lands elsewhere.
	byHeader, _ := hunkLines(hunks, nil)
	if want := []int{6, 7, 20}; !slices.Equal(byHeader["shop/cart.py"], want) {
		t.Errorf("by header = %v, want %v", byHeader, want)
	}
	// A removed line "-- x" reads "--- x" in the diff: it is a line of
	// the hunk, not a file header.
	sql := parseHunks([]byte("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1 @@\n--- old comment\n select 1\n@@ -9 +8 @@\n-x\n+y\n"))
	if lines, _ := hunkLines(sql, nil); len(lines) != 1 || !slices.Equal(lines["q.sql"], []int{1, 9}) {
		t.Errorf("sql patch lines = %v", lines)
	}
	// A hunk whose text is not in the file stays at its header.
	_, unplaced = hunkLines(hunks, func(string) []string { return []string{"class Cart:"} })
	if unplaced != 3 {
		t.Errorf("unplaced = %d, want 3", unplaced)
	}
}

// shopClone is a repository at the base commit of shopPatch, with a
// second, unrelated file that mentions the request's words less.
func shopClone(t *testing.T) (dir, base string) {
	t.Helper()
	dir = testutil.GitRepo(t, map[string]string{
		"shop/cart.py":     shopCart,
		"shop/shipping.py": "def cost(grams):\n    if grams > 2000:\n        return 990\n    return 490\n",
		"README.md":        "# shop\n",
	})
	base = strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
	// The clone moves on after the base commit; the run must not care.
	commit(t, dir, "Rename the shipping cost function", map[string]string{"shop/shipping.py": "def price(grams):\n    return 490\n"})
	return dir, base
}

func TestSWEBench(t *testing.T) {
	dir, base := shopClone(t)
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	ins := []Instance{
		{Repo: "shop/shop", InstanceID: "shop-1", BaseCommit: base, Patch: shopPatch,
			ProblemStatement: "Cart total has rounding errors\n\nCart.total sums prices times quantities and the float total is off by a cent; adding the same sku twice also loses the first quantity."},
		{Repo: "shop/shop", InstanceID: "shop-2", BaseCommit: strings.Repeat("0", 40), Patch: shopPatch, ProblemStatement: "no such commit"},
		{Repo: "other/repo", InstanceID: "other-1", BaseCommit: base, Patch: shopPatch, ProblemStatement: "no clone"},
	}
	var progress strings.Builder
	rep, err := SWEBench(t.Context(), ins, SWEOptions{Repos: map[string]string{"shop/shop": dir}, Budgets: []int{2000, 32000}, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Instances != 2 || rep.Failed != 1 || rep.Skipped["other/repo"] != 1 || len(rep.Results) != 2 {
		t.Fatalf("report: %d instances, %d failed, skipped %v", rep.Instances, rep.Failed, rep.Skipped)
	}
	r := rep.Results[0]
	if r.Err != "" || !slices.Equal(r.Files, []string{"shop/cart.py"}) || r.Lines != 4 || r.Unplaced != 0 {
		t.Fatalf("result %+v", r)
	}
	if !strings.Contains(rep.Results[1].Err, "checkout") {
		t.Errorf("missing commit: err %q", rep.Results[1].Err)
	}
	// Everything fits into 32k: both methods show the file whole.
	big := rep.Total.Budgets[1]
	for name, s := range map[string]SWEScore{"ctxd": big.Ctxd, "bm25": big.BM25, "bm25 at the prompt budget": big.BM25Prompt} {
		if s.All != 1 || s.AllWhole != 1 || s.AllLines != 1 || s.LineRecall != 1 {
			t.Errorf("%s at 32000: %+v", name, s)
		}
	}
	if rep.Total.Instances != 1 || len(rep.Repos) != 1 || rep.Repos[0].Budgets[1] != big {
		t.Errorf("groups: total %+v repos %+v", rep.Total, rep.Repos)
	}
	for _, b := range rep.Total.Budgets {
		for _, s := range []SWEScore{b.Ctxd, b.BM25, b.BM25Prompt} {
			if s.AllWhole > s.AllFull || s.AllFull > s.All || s.AllLines > s.LineRecall {
				t.Errorf("inconsistent score at %d: %+v", b.Budget, s)
			}
		}
	}
	if got := strings.Count(progress.String(), "\n"); got != 2 || !strings.Contains(progress.String(), "shop-1") {
		t.Errorf("progress:\n%s", progress.String())
	}
	untouched(t, dir)
	var out strings.Builder
	rep.Print(&out)
	for _, s := range []string{"budget 2000", "budget 32000", "shop/shop", "total", "skipped 1 instances of other/repo", "1 failed"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
}

// TestSWEBenchMissingBlob runs on a clone that lacks a large file's blob,
// as the snapshots of big repositories do: the file is left out of the
// worktree and the instance runs.
func TestSWEBenchMissingBlob(t *testing.T) {
	dir, base := shopClone(t)
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	testutil.WriteFiles(t, dir, map[string]string{"assets/big.bin": strings.Repeat("blob ", 1000)})
	testutil.Git(t, dir, "add", "-A")
	testutil.Git(t, dir, "commit", "-q", "-m", "Add the big asset to the shop")
	oid := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD:assets/big.bin"))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", oid[:2], oid[2:])); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
	ins := []Instance{
		{Repo: "shop/shop", InstanceID: "head", BaseCommit: head, Patch: shopPatch, ProblemStatement: "Cart total has rounding errors"},
		{Repo: "shop/shop", InstanceID: "base", BaseCommit: base, Patch: shopPatch, ProblemStatement: "Cart total has rounding errors"},
	}
	rep, err := SWEBench(t.Context(), ins, SWEOptions{Repos: map[string]string{"shop/shop": dir}, Budgets: []int{32000}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Err != "" || r.Ctxd[0].Seen != r.Lines {
			t.Errorf("%s: %+v", r.InstanceID, r)
		}
	}
	if cfg := testutil.Git(t, dir, "config", "--local", "--list"); strings.Contains(cfg, "sparse") || strings.Contains(cfg, "worktreeconfig") {
		t.Errorf("the clone's configuration changed:\n%s", cfg)
	}
}

// go test -fuzz=FuzzParseHunks ./eval
func FuzzParseHunks(f *testing.F) {
	f.Add(shopPatch, shopCart)
	f.Add("--- a/x\n@@ -0,0 +1 @@\n+a\n", "")
	f.Add("--- a/x\n@@ -5,2 +5,0 @@\n-a\n\\ No newline at end of file\n", "a\n")
	f.Fuzz(func(t *testing.T, patch, text string) {
		hunks := parseHunks([]byte(patch))
		old := strings.Split(text, "\n")
		got, unplaced := hunkLines(hunks, func(string) []string { return old })
		if unplaced > len(hunks) {
			t.Fatalf("%d unplaced of %d hunks", unplaced, len(hunks))
		}
		for f, ls := range got {
			if f == "" || !slices.IsSorted(ls) {
				t.Fatalf("file %q lines %v", f, ls)
			}
			for _, l := range ls {
				if l < 1 {
					t.Fatalf("line %d < 1 in %v", l, ls)
				}
			}
		}
	})
}

// go test -fuzz=FuzzReadInstances ./eval
func FuzzReadInstances(f *testing.F) {
	f.Add(`{"repo":"a/b","base_commit":"c","problem_statement":"p","patch":"d"}`)
	f.Add("[]")
	f.Add("repo,base_commit,problem_statement,patch\na/b,c,p,d\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ReadInstances(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, x := range got {
			if x.Repo == "" || x.InstanceID == "" || x.Patch == "" {
				t.Fatalf("instance without its fields: %+v", x)
			}
		}
	})
}

// BenchmarkSWEBench runs SWE-bench instances on local clones, the real-data
// run of `ctxd eval swebench` (docs/eval.md), and reports the total
// all-found and all-lines of ctxd and BM25 per budget:
//
//	CTXD_SWEBENCH_INSTANCES=swe_bench_lite_dev.csv CTXD_SWEBENCH_REPOS=/work/data/swe \
//	  go test ./eval -run XXX -bench SWEBench -benchtime 1x
//
// CTXD_SWEBENCH_PER_REPO caps the instances per repository.
func BenchmarkSWEBench(b *testing.B) {
	file, dir := os.Getenv("CTXD_SWEBENCH_INSTANCES"), os.Getenv("CTXD_SWEBENCH_REPOS")
	if file == "" || dir == "" {
		b.Skip("set CTXD_SWEBENCH_INSTANCES (a SWE-bench instances file) and CTXD_SWEBENCH_REPOS (a directory of owner__name clones)")
	}
	f, err := os.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	ins, err := ReadInstances(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	perRepo, _ := strconv.Atoi(os.Getenv("CTXD_SWEBENCH_PER_REPO"))
	b.Setenv("CTXD_CONFIG", filepath.Join(b.TempDir(), "none.toml"))
	for b.Loop() {
		rep, err := SWEBench(b.Context(), ins, SWEOptions{Repos: ClonesIn(dir, ins), PerRepo: perRepo})
		if err != nil {
			b.Fatal(err)
		}
		var out strings.Builder
		rep.Print(&out)
		b.Log("\n" + out.String())
		for _, s := range rep.Total.Budgets {
			k := s.Budget / 1000
			b.ReportMetric(100*s.Ctxd.All, fmt.Sprintf("ctxd-found@%dk-%%", k))
			b.ReportMetric(100*s.Ctxd.AllLines, fmt.Sprintf("ctxd-lines@%dk-%%", k))
			b.ReportMetric(100*s.BM25.All, fmt.Sprintf("bm25-found@%dk-%%", k))
		}
	}
}

// ledgerGo is a large Go file whose postA holds the words of "refund in
// the settlement currency" and whose postB and postC hold none of them,
// with note in postB's body; the request's words cannot rank postB.
func ledgerGo(note string) string {
	var b strings.Builder
	b.WriteString("package pay\n\n// Ledger books the entries of one account.\ntype Ledger struct {\n\trefund, currency, total int\n}\n")
	fill := func(name string) {
		for i := range 150 {
			fmt.Fprintf(&b, "\n// %s%d mixes a value.\nfunc %s%d(x int) int {\n\ta := x * %d\n\tif a > 100 {\n\t\treturn a - %d\n\t}\n\treturn a + %d\n}\n", name, i, name, i, i+3, i, i*7)
		}
	}
	fill("helper")
	b.WriteString("\n// postA books a refund.\nfunc (l *Ledger) postA() {\n")
	for k := range 6 {
		fmt.Fprintf(&b, "\tl.refund += l.currency * %d // refund in the settlement currency\n", k)
	}
	b.WriteString("}\n")
	fmt.Fprintf(&b, "\n// postB closes the day.\nfunc (l *Ledger) postB() {\n\tl.total += 1 // %s\n\tl.total *= 2\n}\n", note)
	b.WriteString("\n// postC closes the week.\nfunc (l *Ledger) postC() {\n\tl.total -= 1\n\tl.total *= 3\n}\n")
	fill("mixer")
	return b.String()
}

// TestSWEBenchReadsLineHistories: as eval recall does, a SWE-bench
// instance reads its base commit's line histories before its requests,
// so the history rule applies: postB, changed by the base commit's
// parent and named by no word of the issue, is focused and the gold
// patch's line in it is seen. Without the read its lines stay hidden.
func TestSWEBenchReadsLineHistories(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":        "module example.com/pay\n\ngo 1.26\n",
		"pay/ledger.go": ledgerGo("keeps the total"),
	})
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	commit(t, dir, "Round the total", map[string]string{"pay/ledger.go": ledgerGo("rounds the total")})
	commit(t, dir, "Add a readme", map[string]string{"pay/README.md": "# pay\n"})
	base := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
	// The gold patch edits postB's line, written and taken back in the clone.
	testutil.WriteFiles(t, dir, map[string]string{"pay/ledger.go": ledgerGo("rounds the total to cents")})
	patch := testutil.Git(t, dir, "diff")
	testutil.Git(t, dir, "checkout", "-q", "--", ".")
	ins := []Instance{{Repo: "pay/pay", InstanceID: "pay-1", BaseCommit: base, Patch: patch,
		ProblemStatement: "fix the refund in the settlement currency of ledger.go"}}
	rep, err := SWEBench(t.Context(), ins, SWEOptions{Repos: map[string]string{"pay/pay": dir}, Budgets: []int{8000}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Err != "" || r.NoHistory || rep.HistoryFailures != 0 || r.Lines != 1 {
		t.Fatalf("result %+v, %d without line histories", r, rep.HistoryFailures)
	}
	if got := r.Ctxd[0]; got.Found != 1 || got.Seen != 1 {
		t.Errorf("ctxd %+v: want pay/ledger.go present with postB's changed line seen (the history rule)", got)
	}
	untouched(t, dir)
}
