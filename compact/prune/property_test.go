package prune

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
)

var propertyRuns = flag.Int("property_runs", 100, "random histories checked by TestProperties")

// checkOutput asserts the invariants every Compress output must hold and
// returns the parsed output.
func checkOutput(t *testing.T, in, out []byte, rep *Report, opts Options) *request.Request {
	return checkOutputDetect(t, in, out, rep, opts, true)
}

// checkOutputDetect is checkOutput; detect also requires the output to be
// detected as the input's format, which holds when the input's format
// signals survive (not for arbitrary fuzz input, where the only signal
// may be an orphan that is removed).
func checkOutputDetect(t *testing.T, in, out []byte, rep *Report, opts Options, detect bool) *request.Request {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("output is not valid JSON:\n%s", out)
	}
	orig, err := request.Parse(in, opts.Format)
	if err != nil {
		t.Fatal(err)
	}
	got, err := request.Parse(out, orig.Format)
	if err != nil {
		t.Fatalf("output does not parse as %s: %v", orig.Format, err)
	}
	// A conversation is never emptied: that is refused as over budget
	// (no provider answers it).
	if len(orig.Items) > 0 && len(got.Items) == 0 {
		t.Fatalf("the %d messages were all removed and no error said so:\n%s", len(orig.Items), out)
	}
	// An empty messages array (an empty input's) carries no format
	// signal; otherwise the output must read as the input's format.
	if f, err := request.Detect(out); detect && len(got.Items) > 0 && (err != nil || f != orig.Format) {
		t.Errorf("output detected as %q (%v), want %q", f, err, orig.Format)
	}
	if err := got.Check(); err != nil {
		t.Errorf("output integrity: %v", err)
	}
	// The accounting is exact: re-estimating the output gives the report's
	// figure.
	name := opts.Model
	if name == "" {
		name = orig.Model
	}
	c, m := tokens.ForModel(name, opts.ContextWindow)
	est := request.NewEstimator(c, request.ImageRuleFor(m, orig.Format))
	if n := est.Request(got); n != rep.TokensAfter {
		t.Errorf("output re-counts to %d tokens, report says %d", n, rep.TokensAfter)
	}
	if rep.Format != orig.Format {
		t.Errorf("report format %q, request %q", rep.Format, orig.Format)
	}
	if !rep.Fits {
		t.Errorf("the output (%d tokens) does not fit budget %d, and no error said so", rep.TokensAfter, rep.Budget)
	}
	if rep.Fits != (rep.TokensAfter <= rep.Budget) {
		t.Errorf("fits = %v with %d tokens for budget %d", rep.Fits, rep.TokensAfter, rep.Budget)
	}
	if len(rep.Messages) != len(orig.Items) {
		t.Fatalf("report has %d decisions for %d items", len(rep.Messages), len(orig.Items))
	}
	// Order: kept items appear in input order, kept ones byte for byte;
	// inserted items sit where the report says.
	inserted := map[int]bool{}
	for _, in := range rep.Inserted {
		inserted[in.Index] = true
	}
	j := 0
	for i, d := range rep.Messages {
		if d.Decision == DecisionEvicted || d.Decision == DecisionSummarized {
			continue
		}
		for inserted[j] {
			j++
		}
		if j >= len(got.Items) {
			t.Fatalf("item %d (%s) is missing from the output", i, d.Decision)
		}
		o, g := orig.Items[i], got.Items[j]
		if d.Decision == DecisionKept && !bytes.Equal(o.Raw(), g.Raw()) {
			t.Errorf("kept item %d changed:\n%s\n%s", i, o.Raw(), g.Raw())
		}
		if o.Role() != g.Role() || o.Type() != g.Type() {
			t.Errorf("item %d became %s/%s, was %s/%s", i, g.Role(), g.Type(), o.Role(), o.Type())
		}
		j++
	}
	for inserted[j] {
		j++
	}
	if j != len(got.Items) {
		t.Errorf("output has %d items, %d accounted for", len(got.Items), j)
	}
	// The first system message and the latest user turn are byte-identical.
	// A forced format that is not the body's own makes no such promise.
	if opts.Format != "" {
		return got
	}
	for _, raw := range protected(orig) {
		if !slices.ContainsFunc(got.Items, func(it *request.Item) bool { return bytes.Equal(it.Raw(), raw) }) {
			t.Errorf("protected item missing or changed: %.200s", raw)
		}
	}
	for k, f := range orig.Fixed {
		if k >= len(got.Fixed) || f.Text != got.Fixed[k].Text {
			t.Errorf("fixed part %d changed", k)
		}
	}
	return got
}

// protected returns the raw bytes of the first system message and of the
// latest user turn, unless they carry an unpaired call or result, which
// is removed from them.
func protected(r *request.Request) [][]byte {
	var out [][]byte
	for i, it := range r.Items {
		if it.Role() == "system" || it.Role() == "developer" {
			if !hasOrphan(r, i) {
				out = append(out, it.Raw())
			}
			break
		}
	}
	for i := len(r.Items) - 1; i >= 0; i-- {
		it := r.Items[i]
		if it.Role() == "user" && it.Kind != request.KindSummary && hasUserContent(it) && !hasOrphan(r, i) {
			out = append(out, it.Raw())
			break
		}
	}
	return out
}

func hasOrphan(r *request.Request, i int) bool {
	for _, o := range r.Pair().Orphans {
		if o.Item == i {
			return true
		}
	}
	return false
}

// TestProperties runs random valid histories in every format under random
// budgets and options, and checks the invariants of checkOutput.
func TestProperties(t *testing.T) {
	testutil.NoRace(t) // the pruner runs on one goroutine
	rng := rand.New(rand.NewPCG(20261122, 4))
	runs := *propertyRuns
	if testing.Short() {
		runs = 30
	}
	models := []string{"gpt-4o", "claude-sonnet-4.5", "gpt-5", "gemini-2.5-pro", "mystery-model"}
	for n := range runs {
		c := genConv(rng, rng.IntN(40), 200+rng.IntN(1500))
		f := request.Formats[rng.IntN(len(request.Formats))]
		model := models[rng.IntN(len(models))]
		body := render(f, model, c)
		p, err := New(Options{Model: model})
		if err != nil {
			t.Fatal(err)
		}
		total, err := p.CountMessages(t.Context(), body)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{
			Budget:        1 + rng.IntN(total+total/4+1),
			WindowSize:    rng.IntN(6),
			MaxToolOutput: []int{0, 100, 500, 2000, -1}[rng.IntN(5)],
		}
		if rng.IntN(3) == 0 {
			opts.Model = model
		}
		t.Run(fmt.Sprintf("%d-%s-%d", n, f, opts.Budget), func(t *testing.T) {
			out, rep, err := Compress(t.Context(), body, opts)
			var ob *OverBudgetError
			if errors.As(err, &ob) {
				// Failing is right only when the protocol-exact minimum
				// takes most of the budget.
				if 2*ob.Report.MinimumTokens <= opts.Budget {
					t.Fatalf("minimum %d is under half the budget %d, yet: %v", ob.Report.MinimumTokens, opts.Budget, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, body, out, rep, opts)
			again, _, err := Compress(t.Context(), body, opts)
			if err != nil || !bytes.Equal(again, out) {
				t.Errorf("second run differs (err %v)", err)
			}
		})
	}
}

// TestSummaryPlaceholderSameOutput: degrading decides with a placeholder
// hash while the summary cannot fit; the outputs and reports are the
// ones hashing every summary gives, over random histories in every
// format under budgets that force evictions.
func TestSummaryPlaceholderSameOutput(t *testing.T) {
	testutil.NoRace(t) // the pruner runs on one goroutine
	rng := rand.New(rand.NewPCG(20261126, 12))
	runs := 150
	if testing.Short() {
		runs = 30
	}
	summarized, refused := 0, 0
	for n := range runs {
		c := genConv(rng, 5+rng.IntN(40), 200+rng.IntN(1500))
		f := request.Formats[rng.IntN(len(request.Formats))]
		body := render(f, "gpt-4o", c)
		p, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		total, err := p.CountMessages(t.Context(), body)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{Budget: 1 + rng.IntN(total), WindowSize: rng.IntN(6)}
		want, wantRep, wantErr := compressHashing(t, body, opts, true)
		got, gotRep, gotErr := compressHashing(t, body, opts, false)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("run %d (%s, budget %d): errors differ: %v / %v", n, f, opts.Budget, wantErr, gotErr)
		}
		if wantErr != nil {
			if wantErr.Error() != gotErr.Error() {
				t.Fatalf("run %d (%s, budget %d): refusals differ:\n%v\n%v", n, f, opts.Budget, wantErr, gotErr)
			}
			refused++
			continue
		}
		if !bytes.Equal(got, want) || !reflect.DeepEqual(gotRep, wantRep) {
			t.Fatalf("run %d (%s, budget %d): the output differs from hashing every summary", n, f, opts.Budget)
		}
		if len(gotRep.Inserted) > 0 {
			summarized++
		}
	}
	if summarized < runs/4 || refused == 0 {
		t.Fatalf("%d of %d runs evicted into a summary, %d refused; the test needs more of both", summarized, runs, refused)
	}
}

// compressHashing compresses body with every summary hashed (every: the
// reference behaviour) or with the shortcuts that skip it.
func compressHashing(t *testing.T, body []byte, opts Options, every bool) ([]byte, *Report, error) {
	hashEverySummary = every
	defer func() { hashEverySummary = false }()
	return Compress(t.Context(), body, opts)
}
