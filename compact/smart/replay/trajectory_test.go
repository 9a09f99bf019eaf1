package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/internal/stats"
	"github.com/ctxd/ctxd/tokens"
)

// EnvTrajectoryCorpus names the directory of the development corpus of
// real agent trajectories (scripts/convert-trajectories writes it). The
// corpus is third-party data kept outside the repository, so the test
// skips without it.
const EnvTrajectoryCorpus = "CTXD_TRAJECTORY_CORPUS"

// trajStats aggregates one compactor at one window.
type trajStats struct {
	requests, fits, pairs, json, exact, overBudget int
	// refused counts the over-budget errors of requests whose
	// protocol-exact minimum (protocolMinimum) is itself over the limit:
	// the refusal the issue asks for, not a shortfall.
	refused            int
	signals, recovered int
	refs, refsOK       int
	reductions         []float64
	pressed            []float64 // reductions of requests over the budget
	befores            []float64
	byFormat           map[request.Format][]float64
	micros             []int64
	lost               []string
}

// fitsOfRest is the share of fitting outputs among the requests not
// justly refused.
func (s *trajStats) fitsOfRest() float64 {
	if s.requests == s.refused {
		return 100
	}
	return 100 * float64(s.fits) / float64(s.requests-s.refused)
}

func (s *trajStats) pct(n int) float64 {
	if s.requests == 0 {
		return 0
	}
	return 100 * float64(n) / float64(s.requests)
}

// TestTrajectoryCorpus replays every request of the development corpus
// through both compactors (ctxd compress and ctxd optimize) at the
// session's window and checks, per request: the output fits the window
// less the reply reserve; tool calls and results pair; the JSON is valid;
// the system prompt and the latest user message are byte-identical; every
// critical signal of the input (error lines, failing tests, path:line,
// diff paths) is in the output verbatim or in the text a reference of the
// output resolves to (resolved in the store, verified); every reference
// resolves. It prints the table by window (BENCHMARKS.md).
//
//	CTXD_TRAJECTORY_CORPUS=/work/data/corpus go test ./compact/smart/replay -run TestTrajectoryCorpus -v
//
// CTXD_TRAJECTORY_ONLY=NAME replays only the sessions whose name holds NAME.
func TestTrajectoryCorpus(t *testing.T) {
	dir := os.Getenv(EnvTrajectoryCorpus)
	if dir == "" {
		t.Skip("$" + EnvTrajectoryCorpus + " is not set (the development corpus is kept outside the repository)")
	}
	corpus, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cache := request.NewCache()
	byWindow := map[string]map[string]*trajStats{} // window → compactor
	get := func(w, c string) *trajStats {
		if byWindow[w] == nil {
			byWindow[w] = map[string]*trajStats{}
		}
		if byWindow[w][c] == nil {
			byWindow[w][c] = &trajStats{byFormat: map[request.Format][]float64{}}
		}
		return byWindow[w][c]
	}
	only := os.Getenv("CTXD_TRAJECTORY_ONLY") // a session-name substring, to replay one while debugging
	for _, s := range corpus.Sessions {
		if only != "" && !strings.Contains(s.Name, only) {
			continue
		}
		store, err := artifacts.Open(t.TempDir(), artifacts.Options{MaxBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := prune.New(prune.Options{Model: s.Model, ContextWindow: s.ContextWindow, Format: s.Format, Store: store, Session: s.SessionID, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		opt := smart.New(smart.Options{Store: store, Cache: cache})
		counter, model := tokens.ForModel(s.Model, s.ContextWindow)
		est := request.NewEstimator(counter, request.ImageRuleFor(model, s.Format))
		limit := model.ContextWindow - min(model.MaxOutput, model.ContextWindow/4)
		w := Window(model.ContextWindow)
		reqs := s.Requests()
		for k, body := range reqs {
			final := k == len(reqs)-1
			in, err := request.Parse(body, s.Format)
			if err != nil {
				t.Fatalf("%s turn %d: %v", s.Name, k+1, err)
			}
			before := est.Request(in)
			at := fmt.Sprintf("%s/%s turn %d", s.SessionID, w, k+1)

			t0 := time.Now()
			out, _, err := pr.Compress(ctx, body)
			took := time.Since(t0)
			checkTrajectory(t, get(w, "compress"), at, in, out, err, took, before, limit, est, store, s.SessionID)
			if final {
				checkTrajectory(t, get(w, "compress/final"), at, in, out, err, took, before, limit, est, store, s.SessionID)
			}

			t0 = time.Now()
			res, err := opt.Optimize(ctx, body, smart.Call{Session: s.SessionID, Model: s.Model, ContextWindow: s.ContextWindow})
			var ob []byte
			if res != nil {
				ob = res.Body
			}
			took = time.Since(t0)
			checkTrajectory(t, get(w, "optimize"), at, in, ob, err, took, before, limit, est, store, s.SessionID)
			if final {
				checkTrajectory(t, get(w, "optimize/final"), at, in, ob, err, took, before, limit, est, store, s.SessionID)
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-7s %-14s %5s %7s %7s %7s %9s %9s %8s %8s %7s  %s\n", "window", "compactor", "reqs", "fits%", "pairs%", "json%", "sys+user%", "signals%", "refs%", "median%", "p95ms", "median% chat/anthropic/responses")
	fmt.Fprintf(&sb, "        (refused: over-budget errors whose protocol-exact minimum is itself over the window less reserve; fits-of-rest: fits among the other requests)\n")
	fmt.Fprintf(&sb, "        (final: each session's last request only; over: requests over the window less reserve and their median reduction; tokens: median and max input tokens)\n")
	for _, w := range []string{"16k", "32k", "128k", "200k"} {
		for _, c := range []string{"compress", "optimize", "compress/final", "optimize/final"} {
			st := byWindow[w][c]
			if st == nil {
				continue
			}
			sigPct, refPct := 100.0, 100.0
			if st.signals > 0 {
				sigPct = 100 * float64(st.recovered) / float64(st.signals)
			}
			if st.refs > 0 {
				refPct = 100 * float64(st.refsOK) / float64(st.refs)
			}
			var fm []string
			for _, f := range request.Formats {
				fm = append(fm, fmt.Sprintf("%.1f", stats.Median(st.byFormat[f])))
			}
			fmt.Fprintf(&sb, "%-7s %-14s %5d %7.1f %7.1f %7.1f %9.1f %9.1f %8.1f %8.1f %7.1f  %s  over %d: %.1f%%  tokens %.0f/%.0f  errors %d (refused %d, fits-of-rest %.1f%%)\n", w, c, st.requests, st.pct(st.fits), st.pct(st.pairs), st.pct(st.json), st.pct(st.exact), sigPct, refPct,
				stats.Median(st.reductions), float64(stats.Percentile(st.micros, 95))/1000, strings.Join(fm, "/"), len(st.pressed), stats.Median(st.pressed), stats.Median(st.befores), slices.Max(append(st.befores, 0)), st.overBudget, st.refused, st.fitsOfRest())
			for i, l := range st.lost {
				if i == 5 {
					fmt.Fprintf(&sb, "    ... %d more\n", len(st.lost)-5)
					break
				}
				fmt.Fprintf(&sb, "    %s\n", l)
			}
		}
	}
	t.Log(sb.String())
}

func checkTrajectory(t *testing.T, st *trajStats, at string, in *request.Request, out []byte, err error, took time.Duration, before, limit int, est *request.Estimator, store *artifacts.Store, scope string) {
	t.Helper()
	st.requests++
	if errors.Is(err, ctxd.ErrOverBudget) {
		st.overBudget++
		if m := protocolMinimum(in, est); m > limit {
			st.refused++
			st.lost = append(st.lost, fmt.Sprintf("%s: refused, minimum %d tokens over %d", at, m, limit))
			return
		}
		st.lost = append(st.lost, at+": "+err.Error())
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", at, err)
	}
	st.micros = append(st.micros, took.Microseconds())
	if !json.Valid(out) {
		st.lost = append(st.lost, at+": invalid JSON")
		return
	}
	st.json++
	got, err := request.Parse(out, in.Format)
	if err != nil {
		st.lost = append(st.lost, at+": output does not parse")
		return
	}
	if got.Check() == nil {
		st.pairs++
	} else {
		st.lost = append(st.lost, at+": tool pairs broken")
	}
	after := est.Request(got)
	if after <= limit {
		st.fits++
	} else {
		st.lost = append(st.lost, fmt.Sprintf("%s: %d tokens over %d", at, after, limit))
	}
	red := 0.0
	if before > 0 {
		red = 100 * (1 - float64(after)/float64(before))
	}
	st.reductions = append(st.reductions, red)
	st.befores = append(st.befores, float64(before))
	if before > limit {
		st.pressed = append(st.pressed, red)
	}
	st.byFormat[in.Format] = append(st.byFormat[in.Format], red)
	if protectedIntact(in, got) {
		st.exact++
	} else {
		st.lost = append(st.lost, at+": system or latest user message changed")
	}
	// References: each must resolve (Get verifies the hash), and so must
	// the references inside what they resolve to (an evicted round's
	// artifact holds its outputs as the request carried them, which may
	// be references themselves: `ctxd rehydrate` resolves each in turn).
	sig := CheckSignals(in, got, func(hash string) ([]byte, error) {
		b, _, err := store.Get(t.Context(), scope, hash)
		return b, err
	}, at)
	st.refs += sig.Refs
	st.refsOK += sig.RefsOK
	st.signals += sig.Total
	st.recovered += sig.Recovered
	st.lost = append(st.lost, sig.Lost...)
}

// protocolMinimum is what no compactor may remove, counted independently
// of both: the fixed parts, every system message, the latest user-role
// item and the last unit (the last item with tool calls and
// everything after it: the open tool pair the model answers; in
// Responses the run of call items).
func protocolMinimum(in *request.Request, est *request.Estimator) int {
	total := request.ReplyPriming + est.Fixed(in)
	calls := func(it *request.Item) bool {
		return slices.ContainsFunc(it.Segments, func(s request.Segment) bool { return s.Kind == request.SegToolCall })
	}
	lastUser, unit := -1, len(in.Items)
	for i, it := range in.Items {
		if it.Role() == "user" {
			lastUser = i
		}
		if calls(it) {
			unit = i
		}
	}
	// Responses sends each call as its own item: the unit starts at the
	// first of the run.
	for unit < len(in.Items) && unit > 0 && calls(in.Items[unit-1]) {
		unit--
	}
	for i, it := range in.Items {
		if it.Role() == "system" || it.Role() == "developer" || i == lastUser || i >= unit {
			total += est.Item(it)
		}
	}
	return total
}

// protectedIntact reports that the fixed parts (system, instructions,
// tools), every system message and the latest user message (the latest
// user-role item with text or an image: in Anthropic Messages an item
// carrying only tool results is the tools' output, as Chat's tool
// messages are) are in the output byte for byte.
func protectedIntact(in, out *request.Request) bool {
	if len(in.Fixed) != len(out.Fixed) {
		return false
	}
	for i := range in.Fixed {
		if in.Fixed[i].Text != out.Fixed[i].Text {
			return false
		}
	}
	has := func(raw []byte) bool {
		return slices.ContainsFunc(out.Items, func(it *request.Item) bool { return bytes.Equal(it.Raw(), raw) })
	}
	last := -1
	for i, it := range in.Items {
		if it.Role() == "system" || it.Role() == "developer" {
			if !has(it.Raw()) {
				return false
			}
		}
		if it.Role() == "user" && slices.ContainsFunc(it.Segments, func(s request.Segment) bool {
			return s.Kind == request.SegText || s.Kind == request.SegImage
		}) {
			last = i
		}
	}
	return last < 0 || has(in.Items[last].Raw())
}
