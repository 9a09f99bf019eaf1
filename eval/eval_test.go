package eval

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

func TestRequest(t *testing.T) {
	tests := []struct {
		msg  string
		want string
		ok   bool
	}{
		{"Round the cart total half to even (#123)\n\nTotals were off by a cent.\n\nSigned-off-by: A <a@b>", "Round the cart total half to even\n\nTotals were off by a cent.", true},
		{"fix typo", "", false},
		{"Fix typo in the cart docs", "", false},
		{"docs: explain how the cart rounds", "", false},
		{"Bump golang.org/x/net from 0.1 to 0.2", "", false},
		{"Release v1.2.3 of the shop", "", false},
		{"Revert \"Round the cart total half to even\"", "", false},
		{"Merge branch 'main' into feature", "", false},
		{"chore: run the formatter over everything", "", false},
		{"gofmt the whole tree please now", "", false},
		{"fix(cart): keep the discount when quantities change", "fix(cart): keep the discount when quantities change", true},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			got, ok := Request(tt.msg)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Request(%q) = %q, %v; want %q, %v", tt.msg, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestIsSource(t *testing.T) {
	tests := map[string]bool{
		"cart/cart.go": true, "cart/cart_test.go": false, "docs/x.go": false, "README.md": false,
		"src/app.ts": true, "tests/test_app.py": false, "vendor/x/y.go": false, "api/v1.pb.go": false,
		"lib/router/index.js": true, "go.mod": false, "testdata/a.go": false,
	}
	for p, want := range tests {
		if got := IsSource(p); got != want {
			t.Errorf("IsSource(%q) = %v, want %v", p, got, want)
		}
	}
}

// commit writes files (an empty text deletes one) and commits them with msg.
func commit(t *testing.T, dir, msg string, files map[string]string) string {
	t.Helper()
	for name, text := range files {
		if text == "" {
			testutil.Git(t, dir, "rm", "-q", name)
			continue
		}
		testutil.WriteFiles(t, dir, map[string]string{name: text})
	}
	testutil.Git(t, dir, "add", "-A")
	testutil.Git(t, dir, "commit", "-q", "-m", msg)
	return strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "HEAD"))
}

// shopRepo is a small repository whose history has eligible and
// ineligible commits; it returns the directory and the eligible commits,
// newest first.
func shopRepo(t *testing.T) (string, []string) {
	t.Helper()
	dir := testutil.GitRepo(t, map[string]string{
		"go.mod":               "module example.com/shop\n\ngo 1.26\n",
		"README.md":            "# shop\n\nA shop.\n",
		"cart/cart.go":         "package cart\n\n// Cart holds items.\ntype Cart struct{ Items []Item }\n\n// Item is a line of a cart.\ntype Item struct {\n\tSKU   string\n\tQty   int\n\tCents int\n}\n\n// Total sums the line prices.\nfunc (c *Cart) Total() int {\n\tn := 0\n\tfor _, it := range c.Items {\n\t\tn += it.Qty * it.Cents\n\t}\n\treturn n\n}\n",
		"cart/cart_test.go":    "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal()\n\t}\n}\n",
		"tax/tax.go":           "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tswitch country {\n\tcase \"DE\":\n\t\treturn 19\n\tcase \"FR\":\n\t\treturn 20\n\t}\n\treturn 0\n}\n",
		"shipping/shipping.go": "package shipping\n\n// Parcel is a package to ship, with its weight in grams.\ntype Parcel struct{ Grams int }\n\n// Cost returns the carrier's price for a parcel.\nfunc Cost(p Parcel) int {\n\tif p.Grams > 2000 {\n\t\treturn 990\n\t}\n\treturn 490\n}\n",
		"payment/card.go":      "package payment\n\n// Charge debits a card token for an amount in cents.\nfunc Charge(token string, cents int) error {\n\treturn nil\n}\n",
	})
	var eligible []string
	eligible = append(eligible, commit(t, dir, "Add the Austrian VAT rate to the tax table", map[string]string{
		"tax/tax.go": "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tswitch country {\n\tcase \"DE\":\n\t\treturn 19\n\tcase \"FR\":\n\t\treturn 20\n\tcase \"AT\":\n\t\treturn 20\n\t}\n\treturn 0\n}\n",
	}))
	commit(t, dir, "docs: describe the shipping rules", map[string]string{"README.md": "# shop\n\nShipping costs 4.90.\n"})
	commit(t, dir, "fix", map[string]string{"payment/card.go": "package payment\n\n// Charge debits a card token for an amount in cents.\nfunc Charge(token string, cents int) error {\n\t_ = token\n\treturn nil\n}\n"})
	commit(t, dir, "Add gift cards as a payment method", map[string]string{"payment/gift.go": "package payment\n\n// Gift is a gift card.\ntype Gift struct{ Code string }\n"})
	eligible = append(eligible, commit(t, dir, "Heavy parcels over five kilograms cost more to ship\n\nThe carrier charges a surcharge for parcel weight over 5000 grams.", map[string]string{
		"shipping/shipping.go": "package shipping\n\n// Parcel is a package to ship, with its weight in grams.\ntype Parcel struct{ Grams int }\n\n// Cost returns the carrier's price for a parcel.\nfunc Cost(p Parcel) int {\n\tswitch {\n\tcase p.Grams > 5000:\n\t\treturn 1490\n\tcase p.Grams > 2000:\n\t\treturn 990\n\t}\n\treturn 490\n}\n",
		"cart/cart_test.go":    "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal(\"empty cart\")\n\t}\n}\n",
	}))
	eligible = append(eligible, commit(t, dir, "Cart Total skips items with a zero quantity", map[string]string{
		"cart/cart.go": "package cart\n\n// Cart holds items.\ntype Cart struct{ Items []Item }\n\n// Item is a line of a cart.\ntype Item struct {\n\tSKU   string\n\tQty   int\n\tCents int\n}\n\n// Total sums the line prices.\nfunc (c *Cart) Total() int {\n\tn := 0\n\tfor _, it := range c.Items {\n\t\tif it.Qty == 0 {\n\t\t\tcontinue\n\t\t}\n\t\tn += it.Qty * it.Cents\n\t}\n\treturn n\n}\n",
	}))
	slices.Reverse(eligible)
	return dir, eligible
}

func TestCases(t *testing.T) {
	dir, want := shopRepo(t)
	cases, err := Cases(t.Context(), dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.Commit)
	}
	if !slices.Equal(got, want) {
		for _, c := range cases {
			t.Logf("case %s %q %v", c.Commit[:8], c.Request, c.Answer)
		}
		t.Fatalf("eligible commits = %v, want %v", got, want)
	}
	// The test file the shipping commit touched is not part of its answer.
	if a := cases[1].Answer; !slices.Equal(a, []string{"shipping/shipping.go"}) {
		t.Errorf("shipping answer = %v", a)
	}
	if !strings.Contains(cases[1].Request, "surcharge") {
		t.Errorf("request lost the body: %q", cases[1].Request)
	}
	if cases, err := Cases(t.Context(), dir, 1); err != nil || len(cases) != 1 {
		t.Errorf("Cases(n=1) = %d cases, %v", len(cases), err)
	}
}

func TestRecall(t *testing.T) {
	dir, want := shopRepo(t)
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	var progress strings.Builder
	var steps []string
	step := func(i, n int, commit string) { steps = append(steps, fmt.Sprintf("%d/%d %.12s", i+1, n, commit)) }
	dump := filepath.Join(t.TempDir(), "dump")
	rep, err := Recall(t.Context(), dir, Options{Commits: 10, Budgets: []int{2000, 32000}, Progress: &progress, Step: step, Dump: dump})
	if err != nil {
		t.Fatal(err)
	}
	checkDump(t, dump, rep.Cases, 2)
	// Step is called once per case, in order.
	if len(steps) != rep.Cases {
		t.Errorf("steps %q for %d cases", steps, rep.Cases)
	}
	for i, st := range steps {
		if !strings.HasPrefix(st, fmt.Sprintf("%d/%d ", i+1, rep.Cases)) || len(st) < 12 {
			t.Errorf("step %d is %q", i, st)
		}
	}
	if rep.Cases != len(want) {
		t.Fatalf("cases = %d, want %d", rep.Cases, len(want))
	}
	if len(rep.Budgets) != 2 || rep.Budgets[0].ContextBudget <= 0 || rep.Budgets[0].ContextBudget >= rep.Budgets[1].ContextBudget {
		t.Fatalf("budgets = %+v", rep.Budgets)
	}
	// Every file of this small repository fits into 32k: both methods
	// find every answer.
	big := rep.Budgets[1]
	if big.Ctxd.All != 1 || big.Ctxd.Recall != 1 || big.BM25.All != 1 || big.Ctxd.AllFull != 1 || big.Ctxd.AllLines != 1 || big.Ctxd.LineRecall != 1 {
		t.Errorf("at 32000: %+v", big)
	}
	for _, b := range rep.Budgets {
		for _, s := range []Score{b.Ctxd, b.BM25} {
			if s.All > s.Recall || s.Recall > s.Any || s.Any > 1 || s.AllFull > s.All || s.AllLines > s.LineRecall || s.LineRecall > s.Recall {
				t.Errorf("inconsistent score %+v", s)
			}
			r := s.Rank
			if r.Top1 > r.Top3 || r.Top3 > r.Top5 || r.Top5 > r.Top10 || r.Top10 > 1 || r.Mean < 1 || r.Mean > rankCap {
				t.Errorf("inconsistent answer rank %+v", r)
			}
		}
	}
	for b, ms := range rep.Misses {
		for _, m := range ms {
			for i, w := range m.Why {
				if !strings.Contains(w, "lexical rank") && !strings.Contains(w, "no lexical match") || len(m.Why) != len(m.Missing) {
					t.Errorf("at %d, %s missed %s: why %q", b, m.Commit[:8], m.Missing[i], w)
				}
			}
		}
	}
	if got := strings.Count(progress.String(), "\n"); got != len(want) {
		t.Errorf("progress has %d lines, want %d:\n%s", got, len(want), progress.String())
	}
	untouched(t, dir)
	var out strings.Builder
	rep.Print(&out)
	for _, s := range []string{"all-found", "all-full", "all-lines", "line-recall", "ctxd", "bm25", "32000", "answer rank", "top10"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
	// Eval's parses and git commands have all the time they need: none
	// timed out, and the report says so by saying nothing.
	if rep.ParseTimeouts != 0 || rep.GitTimeouts != 0 || strings.Contains(out.String(), "timed out") {
		t.Errorf("%d parses, %d git commands timed out:\n%s", rep.ParseTimeouts, rep.GitTimeouts, out.String())
	}
	rep.ParseTimeouts = 2
	out.Reset()
	rep.Print(&out)
	if !strings.Contains(out.String(), "2 parses and 0 git commands timed out") {
		t.Errorf("report does not say what timed out:\n%s", out.String())
	}
}

// checkDump checks that dir holds one file per case and budget, each
// naming the answer files with their changed lines and the included chunks
// and at 32000 (where everything fits) no hidden line and each answer
// file's decl and match lines.
func checkDump(t *testing.T, dir string, cases, budgets int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) != cases*budgets {
		t.Fatalf("dump holds %d files (%v), want %d", len(files), err, cases*budgets)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, want := range []string{"request: ", "answer:\n  ", " rank=", " bm25rank=", " view=", " seen=[", "priority_base=", "included (score order):\n", "skipped:", "bm25 whole files:"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q:\n%s", filepath.Base(f), want, s)
			}
		}
		if strings.HasSuffix(f, "-32000.txt") && (strings.Contains(s, "view=-") || !strings.Contains(s, "hidden=[]")) {
			t.Errorf("%s: at 32000 every answer line fits:\n%s", filepath.Base(f), s)
		}
		if strings.HasSuffix(f, "-32000.txt") && !strings.Contains(s, "\n    decl [") {
			// An answer file in the context says which of its lines the
			// request pointed at (module-level decl lines, match lines).
			t.Errorf("%s lacks an answer file's decl and match lines:\n%s", filepath.Base(f), s)
		}
	}
}

// untouched checks that the temporary worktree is gone and the
// repository's checkout is untouched.
func untouched(t *testing.T, dir string) {
	t.Helper()
	if wts := testutil.Git(t, dir, "worktree", "list"); strings.Count(wts, "\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", wts)
	}
	if st := testutil.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("repository changed:\n%s", st)
	}
}

func TestChangedLines(t *testing.T) {
	diff := "diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -3,2 +3,3 @@ func f() {\n-x\n-y\n+x\n+y\n+z\n@@ -10 +11 @@\n-q\n+r\n@@ -20,0 +22,2 @@\n+n\n" +
		"diff --git a/b.go b/b.go\n--- a/b.go\n+++ b/b.go\n@@ -0,0 +1 @@\n+package b\n"
	got := parseChangedLines([]byte(diff))
	want := map[string][]int{"a.go": {3, 4, 10, 20}, "b.go": {1}}
	if len(got) != len(want) || !slices.Equal(got["a.go"], want["a.go"]) || !slices.Equal(got["b.go"], want["b.go"]) {
		t.Errorf("changed lines = %v, want %v", got, want)
	}
	tests := []struct {
		name   string
		chunks []ctxd.Chunk
		seen   int
	}{
		{"absent", nil, 0},
		{"whole", []ctxd.Chunk{{Source: "a.go", Content: "x"}, {Source: "b.go", Content: "x"}}, 5},
		{"body elided", []ctxd.Chunk{{Source: "a.go", Content: "x", Elided: []ctxd.LineRange{{Start: 4, End: 12}}}}, 2},
		{"empty chunk", []ctxd.Chunk{{Source: "a.go"}}, 0},
	}
	for _, tt := range tests {
		seen, total := VisibleLines(tt.chunks, got)
		if seen != tt.seen || total != 5 {
			t.Errorf("%s: visible %d of %d, want %d of 5", tt.name, seen, total, tt.seen)
		}
	}
}

func TestRecallNoEligibleCommits(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{"a.go": "package a\n"})
	if _, err := Recall(t.Context(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "no eligible commits") {
		t.Errorf("err = %v", err)
	}
	if _, err := Recall(t.Context(), filepath.Join(dir, "missing"), Options{}); err == nil {
		t.Error("no error for a missing repository")
	}
}

func TestBaselineRanksByWords(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		"a.go": "package a\n// parcel weight grams carrier\n",
		"b.go": "package b\n// card token charge\n",
		"c.md": "parcel parcel parcel\n",
	})
	b, err := newBaseline(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.rank("parcel weight"); !slices.Equal(got, []string{"a.go"}) {
		t.Errorf("rank = %v, want [a.go] (markdown is not source)", got)
	}
}

// go test -fuzz=FuzzRequest ./eval
func FuzzRequest(f *testing.F) {
	f.Add("Round the cart total half to even (#123)\n\nBody.\n\nSigned-off-by: A <a@b>")
	f.Add("fix")
	f.Add("")
	f.Fuzz(func(t *testing.T, msg string) {
		req, ok := Request(msg)
		if ok != (req != "") {
			t.Fatalf("Request(%q) = %q, %v", msg, req, ok)
		}
		if ok && len(strings.Fields(subject(req))) < 4 {
			t.Fatalf("short subject accepted: %q", req)
		}
	})
}

func TestAnswerRanks(t *testing.T) {
	env := &ctxd.Envelope{Context: ctxd.CompressedContext{
		Chunks: []ctxd.Chunk{
			{Source: "structure", ChunkType: ctxd.ChunkStructure, Score: 2000},
			{Source: "b.go", ChunkType: ctxd.ChunkFile, Score: 900},
			{Source: "a.go", ChunkType: ctxd.ChunkFile, Score: 1000},
		},
		Skipped: []ctxd.Skipped{{Source: "deps", Score: 950}, {Source: "c.go", Score: 950}, {Source: "d.go", Score: 10}},
	}}
	got := fileRanks(env)
	want := map[string]int{"a.go": 1, "c.go": 2, "b.go": 3, "d.go": 4}
	if len(got) != len(want) {
		t.Errorf("ranks = %v, want %v", got, want)
	}
	for p, r := range want {
		if got[p] != r {
			t.Errorf("rank of %s = %d, want %d (all %v)", p, got[p], r, got)
		}
	}
	tests := []struct {
		name  string
		ranks []int
		want  Rank
	}{
		{"first", []int{1}, Rank{Top1: 1, Top3: 1, Top5: 1, Top10: 1, Mean: 1}},
		{"spread", []int{1, 3, 7, 0}, Rank{Top1: 0.25, Top3: 0.5, Top5: 0.5, Top10: 0.75, Mean: float64(1+3+7+rankCap) / 4}},
		{"past the cap", []int{80}, Rank{Mean: rankCap}},
		{"none", nil, Rank{}},
	}
	for _, tt := range tests {
		var rt rankTally
		for _, r := range tt.ranks {
			rt.add(r)
		}
		if got := rt.rank(); got != tt.want {
			t.Errorf("%s: rank %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestRecallOracle: with Options.Oracle the engine is told each case's
// answer files, so an answer no word of the request finds, among many
// files the words do find, is in the context; without it, it is not.
func TestRecallOracle(t *testing.T) {
	files := map[string]string{"go.mod": "module example.com/ship\n\ngo 1.26\n"}
	for i := range 30 {
		var b strings.Builder
		fmt.Fprintf(&b, "package carrier%d\n\n// Surcharge adds the carrier's heavy parcel surcharge for weight in grams.\n", i)
		for j := range 12 {
			fmt.Fprintf(&b, "func Surcharge%d(grams int) int {\n\tif grams > %d {\n\t\treturn grams / %d\n\t}\n\treturn 0\n}\n\n", j, 1000*(j+1), j+2)
		}
		files[fmt.Sprintf("carrier%d/surcharge.go", i)] = b.String()
	}
	files["tax/tax.go"] = "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tswitch country {\n\tcase \"DE\":\n\t\treturn 19\n\t}\n\treturn 0\n}\n"
	dir := testutil.GitRepo(t, files)
	commit(t, dir, "Heavy parcel surcharge by weight in grams for every carrier", map[string]string{
		"tax/tax.go": "package tax\n\n// Rate is the VAT rate in percent for a country code.\nfunc Rate(country string) int {\n\tswitch country {\n\tcase \"DE\":\n\t\treturn 19\n\tcase \"AT\":\n\t\treturn 20\n\t}\n\treturn 0\n}\n",
	})
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	for _, oracle := range []bool{false, true} {
		rep, err := Recall(t.Context(), dir, Options{Commits: 1, Budgets: []int{4000}, Oracle: oracle})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cases != 1 {
			t.Fatalf("cases = %d, want 1", rep.Cases)
		}
		s := rep.Budgets[0].Ctxd
		if oracle && (s.All != 1 || s.AllLines != 1) {
			t.Errorf("oracle: the answer file told to the engine is not shown whole: %+v", s)
		}
		if !oracle && s.AllLines == 1 {
			t.Errorf("without the oracle the answer no word finds is shown: %+v (the test shows nothing)", s)
		}
	}
}

// TestCasesAfter: --skip's selection starts after the newest skip eligible
// commits (ineligible ones do not count), and a skip past them all
// leaves none.
func TestCasesAfter(t *testing.T) {
	dir, want := shopRepo(t)
	for skip := range len(want) + 2 {
		cases, err := CasesAfter(t.Context(), dir, skip, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cases {
			got = append(got, c.Commit)
		}
		if w := want[min(skip, len(want)):]; !slices.Equal(got, w) {
			t.Errorf("skip %d: %v, want %v", skip, got, w)
		}
	}
	if cases, err := CasesAfter(t.Context(), dir, 1, 1); err != nil || len(cases) != 1 || cases[0].Commit != want[1] {
		t.Errorf("skip 1, n 1: %v, %v", cases, err)
	}
}

// TestRecallFeatures: --skip replays the older commits only, and
// --features writes one line per case and budget with every scored
// chunk, the answer files labelled (and only they).
func TestRecallFeatures(t *testing.T) {
	dir, want := shopRepo(t)
	t.Setenv("CTXD_CONFIG", filepath.Join(t.TempDir(), "none.toml"))
	var feat bytes.Buffer
	rep, err := Recall(t.Context(), dir, Options{Commits: 10, Skip: 1, Budgets: []int{2000, 32000}, Features: &feat})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cases != len(want)-1 {
		t.Fatalf("cases = %d, want %d", rep.Cases, len(want)-1)
	}
	fcs, err := ReadFeatures(&feat)
	if err != nil {
		t.Fatal(err)
	}
	if len(fcs) != 2*(len(want)-1) {
		t.Fatalf("%d feature lines, want %d", len(fcs), 2*(len(want)-1))
	}
	answers := map[string][]string{}
	cases, _ := Cases(t.Context(), dir, 10)
	for _, c := range cases {
		answers[c.Commit] = c.Answer
	}
	for k, fc := range fcs {
		if wantCommit := want[1+k/2]; fc.Commit != wantCommit {
			t.Errorf("line %d: commit %.8s, want %.8s (the newest is skipped)", k, fc.Commit, wantCommit)
		}
		if !slices.Equal(fc.Answer, answers[fc.Commit]) {
			t.Errorf("line %d: answer %v, want %v", k, fc.Answer, answers[fc.Commit])
		}
		labelled, files := 0, 0
		for i, it := range fc.Chunks {
			if it.Answer != slices.Contains(fc.Answer, it.Source) {
				t.Errorf("line %d: %s labelled answer=%v", k, it.Source, it.Answer)
			}
			if it.Answer {
				labelled++
			}
			if it.Type == ctxd.ChunkFile {
				files++
			}
			if i > 0 && it.Score > fc.Chunks[i-1].Score {
				t.Errorf("line %d: not in score order at %s", k, it.Source)
			}
			sum := 0.0
			for _, v := range it.Terms {
				sum += v
			}
			if math.Abs(sum-it.Score) > 0.5 {
				t.Errorf("line %d: %s terms %v sum to %.1f, score %.1f", k, it.Source, it.Terms, sum, it.Score)
			}
		}
		// The shop is small: every file is gathered, the answer with it.
		if labelled != len(fc.Answer) || fc.Answers != labelled || files < 3 {
			t.Errorf("line %d: %d answers labelled of %v among %d files", k, labelled, fc.Answer, files)
		}
	}
}
