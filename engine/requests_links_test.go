package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/prioritize"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Hand-written requests whose answer file shares no word with the request:
// only the import/reference graph (the answer is imported by the file the
// request matches or points at) or git co-change (the answer changed
// together with it) can find it. The repository is built here with a
// history; noise packages fill an 8k budget's worth of candidates.

func linksRequestsRepo(t *testing.T) string {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.22\n",
		"api/handler.go": "package api\n\nimport \"example.com/app/store\"\n\n// RefundPayment is the refund payment endpoint.\n" +
			"func RefundPayment(id string) int {\n\tl := store.OpenLedger()\n\tl.rows = append(l.rows, len(id))\n\treturn 200 // refund payment endpoint status\n}\n",
		"store/ledger.go": "package store\n\n// Journal keeps balances.\ntype Journal struct{ rows []int }\n\n// OpenLedger opens the journal.\n" +
			"func OpenLedger() *Journal {\n\tj := new(Journal) // ledgerMarker\n\treturn j\n}\n",
		"billing/charge.py": "\"\"\"Charges.\"\"\"\n\n\ndef charge_card(card):\n    \"\"\"Charge a card; a declined card raises.\"\"\"\n    raise ValueError(\"card declined\")\n",
		"audit/trail.py":    "\"\"\"Bookkeeping.\"\"\"\n\n\ndef record(entry):\n    return [entry]  # trailMarker\n",
	}
	// Noise: packages that talk about payments, refunds and cards too, so
	// the lexical ranking alone fills the context with them.
	for i := range 40 {
		var b strings.Builder
		fmt.Fprintf(&b, "package noise%d\n\n// Payment%d handles a payment, a refund or a card.\n", i%8, i)
		for k := range 30 {
			fmt.Fprintf(&b, "func payment%dStep%d(card string, refund int) int {\n\tif card == \"\" {\n\t\treturn refund + %d\n\t}\n\treturn %d\n}\n\n", i, k, k, i)
		}
		files[fmt.Sprintf("noise%d/payment%02d.go", i%8, i)] = b.String()
	}
	dir := testutil.GitRepo(t, files)
	// The first commit is too large to count as co-change; charge.py and
	// trail.py then change together three times.
	for i := range 3 {
		testutil.WriteFiles(t, dir, map[string]string{
			"billing/charge.py": files["billing/charge.py"] + strings.Repeat("\n# v\n", i+1),
			"audit/trail.py":    files["audit/trail.py"] + strings.Repeat("\n# v\n", i+1),
		})
		testutil.GitCommitAll(t, dir)
	}
	return dir
}

func TestLinksRequests(t *testing.T) {
	dir := linksRequestsRepo(t)
	e := newEngine(t, dir)
	tests := []struct {
		name, request string
		open          []ctxd.OpenFile
		target        string
		marker        string
		term          string
	}{
		{"imported by the matched file", "the refund payment endpoint answers with a wrong status",
			nil, "store/ledger.go", "ledgerMarker", ctxd.TermGraph},
		{"imported by the innermost frame", "panic: runtime error: index out of range [3] with length 0\n\ngoroutine 1 [running]:\nexample.com/app/api.RefundPayment({0x0, 0x0})\n\t" + dir + "/api/handler.go:8 +0x1d\n",
			nil, "store/ledger.go", "ledgerMarker", ctxd.TermGraph},
		{"changed with the matched file", "a declined card raises for a valid card on charge",
			nil, "audit/trail.py", "trailMarker", ctxd.TermCoChange},
		{"changed with the open file", "why is this so slow",
			[]ctxd.OpenFile{{Path: "billing/charge.py", Line: 4}}, "audit/trail.py", "trailMarker", ctxd.TermCoChange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := e.Rank(t.Context(), tt.request, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Path == tt.target {
					t.Fatalf("%s matches the request lexically; the case needs it not to", tt.target)
				}
			}
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, OpenFiles: tt.open, TokenBudget: &BudgetRequest{Total: 8000}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, order := targetChunk(t, &env.Context, tt.target)
			if got == nil {
				t.Fatalf("%s not in the envelope (task %s); included %v", tt.target, env.TaskType, order)
			}
			if !strings.Contains(got.Content, tt.marker) {
				t.Errorf("%s at view %q hides %q", tt.target, got.Truncation, tt.marker)
			}
			var term *ctxd.ScoreTerm
			for i := range got.ScoreBreakdown {
				if got.ScoreBreakdown[i].Term == tt.term {
					term = &got.ScoreBreakdown[i]
				}
			}
			if term == nil || term.Value <= 0 || term.Share <= 0 || term.Reason == "" {
				t.Errorf("breakdown %+v lacks a %s term with a share", got.ScoreBreakdown, tt.term)
			}
		})
	}
}

// TestLinkWeightsOption: the link weights and options are values an engine
// is opened with (a weight search replays with others, eval.Options),
// never package state: with the graph's weight at 0 the imported file
// carries no graph term, and with a co-change history of one commit the
// files changed together three times before it are not linked; an engine opened
// with the defaults beside them still links both.
func TestLinkWeightsOption(t *testing.T) {
	dir := linksRequestsRepo(t)
	// The newest commit changes neither linked file: a history of one
	// commit does not see them change together.
	testutil.WriteFiles(t, dir, map[string]string{"README.md": "# app\n"})
	testutil.GitCommitAll(t, dir)
	graphReq := "the refund payment endpoint answers with a wrong status"
	coReq := "a declined card raises for a valid card on charge"
	termOf := func(e *Engine, request, target, term string) bool {
		t.Helper()
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: request, TokenBudget: &BudgetRequest{Total: 8000}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := targetChunk(t, &env.Context, target)
		if got == nil {
			return false
		}
		for _, st := range got.ScoreBreakdown {
			if st.Term == term && st.Value > 0 {
				return true
			}
		}
		return false
	}
	noGraph := prioritize.DefaultFusion()
	noGraph.Graph = 0
	shortHistory := tree.DefaultLinks()
	shortHistory.Commits = 1
	tests := []struct {
		name           string
		opts           Options
		graphLinked    bool
		coChangeLinked bool
	}{
		{"defaults", Options{}, true, true},
		{"graph weight 0", Options{Fusion: noGraph}, false, true},
		{"one commit of history", Options{Links: shortHistory, StateDir: t.TempDir()}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.StateDir == "" {
				tt.opts.StateDir = t.TempDir()
			}
			e := openEngine(t, dir, tt.opts)
			if got := termOf(e, graphReq, "store/ledger.go", ctxd.TermGraph); got != tt.graphLinked {
				t.Errorf("store/ledger.go graph term %v, want %v", got, tt.graphLinked)
			}
			if got := termOf(e, coReq, "audit/trail.py", ctxd.TermCoChange); got != tt.coChangeLinked {
				t.Errorf("audit/trail.py co-change term %v, want %v", got, tt.coChangeLinked)
			}
		})
	}
}
