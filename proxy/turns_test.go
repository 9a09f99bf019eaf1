package proxy_test

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/compact/smart/replay"
	"github.com/ctxd/ctxd/compact/smart/replay/convert"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/internal/filelock"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/proxy"
	"github.com/ctxd/ctxd/tokens"
)

// The turn-by-turn replay (BENCHMARKS.md, "Turn by turn through the
// proxy"): long agent sessions (real trajectories of one repository
// chained into 50+ turns) go through the proxy one request at a time, as
// the agent sent them (each request is every earlier message), and each
// forwarded body is billed with a provider's prefix cache beside the
// same requests sent unmodified.
//
//	CTXD_TURNS_TRAJ=DIR[:DIR...]   directories of *.traj / *.traj.json (required; else skipped)
//	CTXD_TURNS_WINDOWS=16000,...   context windows (default 16000,32000,128000,200000; 0: none)
//	CTXD_TURNS_FORMATS=chat,...    chat, anthropic, responses (default chat)
//	CTXD_TURNS_MIN=50              fewest turns of a chained session
//	CTXD_TURNS_HORIZON, CTXD_TURNS_STEP, CTXD_TURNS_LONG  masking settings (default: the proxy's; -1: off)
//	CTXD_TURNS_HINTS=all           the proxy's --hints
//	CTXD_TURNS_SHOW_HIDDEN=N       log N hidden signals (distinct measure) per session
//	CTXD_TURNS_SHOW_LEDGER=1       log the ledger of each session's last forwarded request
//	CTXD_TURNS_SHOW_PERTINENT=1    log each pertinent signal hidden at a session's last turn
//	CTXD_TURNS_BIG, CTXD_TURNS_BIG_HORIZON, CTXD_TURNS_PACED=1  the size-aware horizon and paced steps
//	CTXD_TURNS_CAUSES=1            decompose the bill by cause (turns_causes_test.go)
//
// The prefix-cache model: the longest prefix (whole items, and the bytes
// before the first item) a request shares with one of the four requests
// sent before it in the session is cached when it is 1,024 tokens or
// more; cached input costs 0.1, new input 1 (OpenAI) or 1.25 (Anthropic,
// which charges cache writes). Give it development trajectories only: the
// corpora issue 26 holds out are its evaluation, never its input.
func TestTurnByTurnReplay(t *testing.T) {
	dirs := testutil.Env(t, "CTXD_TURNS_TRAJ", "directories of *.traj / *.traj.json (BENCHMARKS.md)")
	minTurns := envInt(t, "CTXD_TURNS_MIN", 50)
	chains := turnChains(t, strings.Split(dirs, ":"), minTurns)
	stateRoot := replayStateRoot(t)
	windows := envInts(t, "CTXD_TURNS_WINDOWS", []int{16000, 32000, 128000, 200000})
	fmts := strings.Split(cmp.Or(os.Getenv("CTXD_TURNS_FORMATS"), "chat"), ",")
	call := smart.Call{MaskHorizon: envInt(t, "CTXD_TURNS_HORIZON", 0), MaskStep: envInt(t, "CTXD_TURNS_STEP", 0), MaskLong: envInt(t, "CTXD_TURNS_LONG", 0),
		MaskBig: envInt(t, "CTXD_TURNS_BIG", 0), MaskBigHorizon: envInt(t, "CTXD_TURNS_BIG_HORIZON", 0), MaskPaced: envInt(t, "CTXD_TURNS_PACED", 0) > 0}
	hints, err := proxy.ParseHints(os.Getenv("CTXD_TURNS_HINTS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fname := range fmts {
		f, err := request.ParseFormat(fname)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range windows {
			var tot turnTotals
			for _, ch := range chains {
				row := replayTurns(t, stateRoot, ch, f, w, call, hints)
				tot.add(row)
				t.Logf("%-10s %6s %-24s split (openai, of pass-through's bill): newest %.3f  re-sent %.3f  cached %.3f  (pass-through %.3f / %.3f / %.3f)",
					fname, windowName(w), ch.name, row.split[0]/row.pass[0], row.split[1]/row.pass[0], row.split[2]/row.pass[0], row.passSplit[0]/row.pass[0], row.passSplit[1]/row.pass[0], row.passSplit[2]/row.pass[0])
				if row.causes.bill != nil {
					row.causes.log(t, fmt.Sprintf("%-10s %6s %-24s", fname, windowName(w), ch.name), row.pass[0], false)
				}
				t.Logf("%-10s %6s %-24s turns %3d  bill %.3f (openai) %.3f (anthropic)  cache-stable %5.1f%%  visible %5.1f%% (%d distinct; every occurrence %5.1f%%; pertinent %5.1f%% of %d)  recoverable %5.1f%% (%5.1f%%)  fits %5.1f%%  pairs %5.1f%%  latest-user %5.1f%%",
					fname, windowName(w), ch.name, row.turns, row.ratio(0), row.ratio(1), pct(row.stable, row.turns-1), pct(row.dVisible, row.dSignals), row.dSignals, pct(row.visible, row.signals), pct(row.pVisible, row.pertinent), row.pertinent, pct(row.dRecovered, row.dSignals), pct(row.recovered, row.signals), pct(row.fits, row.turns), pct(row.pairs, row.turns), pct(row.latest, row.turns))
			}
			// Every chained session has minTurns turns or more (turnChains):
			// the total is the "sessions of 50 turns or more".
			t.Logf("%-10s %6s %-24s %d sessions, each of %d turns or more; pass-through: %.0f input tokens, %.1f%% of them new", fname, windowName(w), "TOTAL", len(chains), minTurns, tot.passTok, 100*tot.passNew/max(tot.passTok, 1))
			t.Logf("%-10s %6s %-24s turns %3d  bill %.3f (openai) %.3f (anthropic)  max session %.3f  cache-stable %5.1f%%  visible %5.1f%% (%d distinct; every occurrence %5.1f%% of %d; pertinent %5.1f%% of %d)  recoverable %5.1f%% (%5.1f%%)  fits %5.1f%%  pairs %5.1f%%  latest-user %5.1f%%",
				fname, windowName(w), "TOTAL", tot.turns, tot.ratio(0), tot.ratio(1), tot.maxRatio, pct(tot.stable, tot.turns-len(chains)), pct(tot.dVisible, tot.dSignals), tot.dSignals, pct(tot.visible, tot.signals), tot.signals, pct(tot.pVisible, tot.pertinent), tot.pertinent, pct(tot.dRecovered, tot.dSignals), pct(tot.recovered, tot.signals), pct(tot.fits, tot.turns), pct(tot.pairs, tot.turns), pct(tot.latest, tot.turns))
			t.Logf("%-10s %6s %-24s split (openai, of pass-through's bill): newest %.3f  re-sent %.3f  cached %.3f  (pass-through %.3f / %.3f / %.3f)",
				fname, windowName(w), "TOTAL", tot.split[0]/tot.pass[0], tot.split[1]/tot.pass[0], tot.split[2]/tot.pass[0], tot.passSplit[0]/tot.pass[0], tot.passSplit[1]/tot.pass[0], tot.passSplit[2]/tot.pass[0])
			t.Logf("%-10s %6s %-24s proxy overhead p50 %.1f ms p95 %.1f ms (%d requests); of 100k tokens or more p50 %.1f ms p95 %.1f ms (%d)", fname, windowName(w), "TOTAL",
				quantile(tot.overheads, 0.5)/1000, quantile(tot.overheads, 0.95)/1000, len(tot.overheads), quantile(tot.bigOverheads, 0.5)/1000, quantile(tot.bigOverheads, 0.95)/1000, len(tot.bigOverheads))
			if tot.causes.bill != nil {
				tot.causes.log(t, fmt.Sprintf("%-10s %6s %-24s", fname, windowName(w), "TOTAL"), tot.pass[0], true)
			}
			for _, k := range slices.Sorted(maps.Keys(tot.kinds)) {
				v := tot.kinds[k]
				t.Logf("%-10s %6s %-24s visible %-8s %5.1f%% of %d (every occurrence)", fname, windowName(w), "TOTAL", k, pct(v[1], v[0]), v[0])
			}
			for _, k := range slices.Sorted(maps.Keys(tot.dKinds)) {
				v := tot.dKinds[k]
				t.Logf("%-10s %6s %-24s visible %-8s %5.1f%% of %d (distinct)", fname, windowName(w), "TOTAL", k, pct(v[1], v[0]), v[0])
			}
			for _, k := range slices.Sorted(maps.Keys(tot.where)) {
				t.Logf("%-10s %6s %-24s hidden %-32s %5d (distinct; kind, where, status at the last turn)", fname, windowName(w), "TOTAL", k, tot.where[k])
			}
		}
	}
}

// chain is one long development session.
type chain struct {
	name string
	t    *convert.Trajectory
}

// turnChains reads the trajectories and chains those of one repository
// (the name before the instance number) in name order into sessions of
// at least minTurns turns; what is left of a repository joins its last
// chain, a repository too short alone is left out.
func turnChains(t *testing.T, dirs []string, minTurns int) []chain {
	t.Helper()
	byRepo := map[string][]string{}
	for _, d := range dirs {
		var files []string
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".traj") || strings.HasSuffix(p, ".traj.json")) {
				files = append(files, p)
			}
			return nil
		})
		for _, p := range files {
			repo := repoOf(filepath.Base(p))
			byRepo[repo] = append(byRepo[repo], p)
		}
	}
	var out []chain
	for _, repo := range slices.Sorted(maps.Keys(byRepo)) {
		paths := byRepo[repo]
		slices.Sort(paths)
		var cur []*convert.Trajectory
		turns, start := 0, len(out)
		for _, p := range paths {
			fh, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := convert.Parse(fh)
			fh.Close()
			if err != nil {
				t.Logf("skip %s: %v", p, err)
				continue
			}
			cur = append(cur, tr)
			turns += tr.Turns()
			if turns >= minTurns {
				out = append(out, chain{name: fmt.Sprintf("%s#%d", repo, len(out)-start+1), t: convert.Chain(cur...)})
				cur, turns = nil, 0
			}
		}
		if len(cur) > 0 && len(out) > start {
			last := &out[len(out)-1]
			last.t = convert.Chain(append([]*convert.Trajectory{last.t}, cur...)...)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no session of %d turns or more in %v", minTurns, dirs)
	}
	return out
}

var instanceNumber = regexp.MustCompile(`-\d+(\.traj(\.json)?)?$`)

// repoOf is the repository a trajectory file is of: its name without the
// instance number ("django__django-11066.traj.json" is django__django).
func repoOf(name string) string {
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".traj")
	name, _, _ = strings.Cut(name, "--") // a copy's suffix (several runs of one instance)
	return instanceNumber.ReplaceAllString(name, "")
}

// turnRow is one session's account.
type turnRow struct {
	turns, stable int
	cost, pass    [2]float64 // openai, anthropic
	// split is the bill (OpenAI prices) by term: new input that is the
	// turn's new messages, new input re-sent (an item the previous
	// turn had, rewritten or after a rewrite), cached input.
	split, passSplit            [3]float64
	passNew, passTok            float64           // pass-through: new input tokens, all input tokens
	signals, visible, recovered int               // every occurrence (the old measure)
	kinds                       map[string][2]int // kind: total, visible
	// The distinct measure (replay.Signals.Distinct): the bar.
	dSignals, dVisible, dRecovered int
	// pertinent, pVisible: the distinct signals still pertinent at the
	// last turn and those visible (replay.Measure.Pertinent).
	pertinent, pVisible         int
	dKinds                      map[string][2]int
	where                       map[string]int // hidden: "kind place status" (replay.Measure.Where)
	fits, pairs, latest         int
	forwardedTokens, passTokens int
	maxRatio                    float64
	// overheads are the proxy's time before forwarding (proxy_overhead_us,
	// wall clock), all requests and those of 100k tokens or more.
	overheads, bigOverheads []float64
	causes                  causes // CTXD_TURNS_CAUSES=1
}

func (r *turnRow) ratio(k int) float64 { return r.cost[k] / max(r.pass[k], 1) }

type turnTotals struct{ turnRow }

func (t *turnTotals) add(r turnRow) {
	t.turns += r.turns
	t.stable += r.stable
	for k := range 2 {
		t.cost[k] += r.cost[k]
		t.pass[k] += r.pass[k]
	}
	t.passNew += r.passNew
	for k := range 3 {
		t.split[k] += r.split[k]
		t.passSplit[k] += r.passSplit[k]
	}
	t.passTok += r.passTok
	t.signals += r.signals
	t.visible += r.visible
	t.kinds = addKinds(t.kinds, r.kinds)
	t.recovered += r.recovered
	t.dSignals += r.dSignals
	t.dVisible += r.dVisible
	t.dRecovered += r.dRecovered
	t.pertinent += r.pertinent
	t.pVisible += r.pVisible
	t.dKinds = addKinds(t.dKinds, r.dKinds)
	if t.where == nil {
		t.where = map[string]int{}
	}
	for k, v := range r.where {
		t.where[k] += v
	}
	t.overheads = append(t.overheads, r.overheads...)
	t.bigOverheads = append(t.bigOverheads, r.bigOverheads...)
	t.causes.merge(r.causes)
	t.fits += r.fits
	t.pairs += r.pairs
	t.latest += r.latest
	t.maxRatio = max(t.maxRatio, r.ratio(0), r.ratio(1))
}

// addKinds adds src's counts by kind (total, visible) to dst.
func addKinds(dst, src map[string][2]int) map[string][2]int {
	if dst == nil {
		dst = map[string][2]int{}
	}
	for k, v := range src {
		c := dst[k]
		dst[k] = [2]int{c[0] + v[0], c[1] + v[1]}
	}
	return dst
}

// replayStateRoot is the directory the replay keeps each session's state
// in: always the same path, so that the references the proxy writes (their
// rehydrate hints name the state directory) are the same bytes run after
// run and the bill is reproducible to the token (a random t.TempDir made
// three cells differ by 0.001 between runs). A lock beside it serializes
// replays on the machine: a second replay waits for the first.
func replayStateRoot(t *testing.T) string {
	root := filepath.Join(os.TempDir(), "ctxd-turn-replay")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(os.TempDir(), "ctxd-turn-replay.lock")
	t.Logf("replay state under %s (waits while another replay holds %s)", root, lock)
	l, err := filelock.LockPath(t.Context(), lock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Unlock)
	return root
}

// replayTurns sends a session's requests through a proxy, one turn at a
// time, and bills what went upstream and what was sent.
func replayTurns(t *testing.T, stateRoot string, ch chain, f request.Format, window int, call smart.Call, hints proxy.Hints) turnRow {
	t.Helper()
	model := "gpt-4o"
	if f == request.FormatAnthropic {
		model = "claude-sonnet-4.5"
	}
	s, err := ch.t.Session(ch.name, f, model, 0)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(stateRoot, "state")
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	logs := &testutil.SyncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	flow, err := proxy.NewFlowWith(engine.RequestsOptions{StateDir: state, Logger: log}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var forwarded []byte
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		forwarded, _ = io.ReadAll(r.Body)
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"id":"x"}`)), Request: r}, nil
	})
	up, _ := url.Parse("http://upstream.invalid")
	call.ContextWindow = window
	p, err := proxy.New(proxy.Options{Upstream: up, Flow: flow, Transport: rt, Logger: log, FullRecords: true, Call: call, Hints: hints})
	if err != nil {
		t.Fatal(err)
	}
	p.SetPublicURL("http://127.0.0.1:8787")
	route := map[request.Format]string{request.FormatChat: proxy.RouteChat, request.FormatAnthropic: proxy.RouteMessages, request.FormatResponses: proxy.RouteResponses}[f]
	store, err := artifacts.Open(artifacts.Dir(state), artifacts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	counter, _ := tokens.ForModel(model, 0)
	cache := request.NewCache()
	est := cache.Estimator(counter, "")
	var row turnRow
	var sent, passed billHistory
	prevItems := 0
	var prevOut *request.Request
	debugDiff := os.Getenv("CTXD_TURNS_DEBUG") != ""
	withCauses := os.Getenv("CTXD_TURNS_CAUSES") != ""
	reqs := s.Requests()
	for k, body := range reqs {
		forwarded = nil
		rec := httptest.NewRecorder()
		hr := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+route, bytes.NewReader(body)) // a loopback Host: the proxy refuses others
		hr.Header.Set("Content-Type", "application/json")
		p.ServeHTTP(rec, hr)
		if rec.Code != 200 || forwarded == nil {
			t.Fatalf("%s turn %d: status %d: %s", ch.name, k+1, rec.Code, rec.Body.Bytes())
		}
		in, err := request.Parse(body, f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := request.Parse(forwarded, f)
		if err != nil {
			t.Fatalf("%s turn %d: forwarded body does not parse: %v", ch.name, k+1, err)
		}
		row.turns++
		fresh := len(in.Items) - prevItems // the messages new this turn
		prevItems = len(in.Items)
		c, stable := sent.bill(out, est, fresh)
		if withCauses {
			row.causes.add(out, &sent, est, fresh)
		}
		pc, _ := passed.bill(in, est, fresh)
		for j := range 3 {
			row.split[j] += sent.lastSplit[j]
			row.passSplit[j] += passed.lastSplit[j]
		}
		row.passNew += passed.lastNew
		row.passTok += passed.lastTotal
		if stable && k > 0 {
			row.stable++
		}
		if debugDiff && !stable && prevOut != nil {
			d := 0
			for d < len(prevOut.Items) && d < len(out.Items) && bytes.Equal(prevOut.Items[d].Raw(), out.Items[d].Raw()) {
				d++
			}
			if d < len(prevOut.Items) && d < len(out.Items) {
				a, b := prevOut.Items[d].Raw(), out.Items[d].Raw()
				c := 0
				for c < len(a) && c < len(b) && a[c] == b[c] {
					c++
				}
				t.Logf("DIFF %s turn %d item %d/%d: ...%q\n  vs ...%q", ch.name, k+1, d, len(prevOut.Items), a[max(c-100, 0):min(c+200, len(a))], b[max(c-100, 0):min(c+200, len(b))])
			}
		}
		prevOut = out
		for j := range 2 {
			row.cost[j] += c[j]
			row.pass[j] += pc[j]
		}
		if out.Check() == nil {
			row.pairs++
		}
		if li, lo := lastUser(in), lastUser(out); li != nil && lo != nil && bytes.Equal(li.Raw(), lo.Raw()) {
			row.latest++
		}
		if window == 0 || est.Request(out)+request.ReplyPriming <= window-min(16384, window/4) {
			row.fits++
		}
		if k == len(reqs)-1 {
			for _, rec := range parseRecords(t, logs) {
				us, _ := rec["proxy_overhead_us"].(float64)
				row.overheads = append(row.overheads, us)
				if n, _ := rec["estimated_tokens_before"].(float64); n >= 100000 {
					row.bigOverheads = append(row.bigOverheads, us)
				}
			}
			session := sessionOf(t, logs)
			sig := replay.CheckSignals(in, out, func(hash string) ([]byte, error) {
				b, _, err := store.Get(t.Context(), session, hash)
				return b, err
			}, ch.name)
			row.signals, row.visible, row.recovered = sig.Total, sig.Visible, sig.Recovered
			row.kinds = map[string][2]int{}
			for k, v := range sig.Kinds {
				row.kinds[k] = [2]int{v.Total, v.Visible}
			}
			row.dSignals, row.dVisible, row.dRecovered = sig.Distinct.Total, sig.Distinct.Visible, sig.Distinct.Recovered
			row.pertinent, row.pVisible = sig.Distinct.Pertinent, sig.Distinct.PertinentVisible
			row.dKinds = map[string][2]int{}
			row.where = sig.Distinct.Where
			for k, v := range sig.Distinct.Kinds {
				row.dKinds[k] = [2]int{v.Total, v.Visible}
			}
			if os.Getenv("CTXD_TURNS_SHOW_LEDGER") != "" {
				for _, it := range out.Items {
					if it.Kind == request.KindSummary && len(it.Segments) > 0 {
						t.Logf("%s %s ledger (%d tokens):\n%s", ch.name, windowName(window), est.Item(it), it.Segments[0].Text)
					}
				}
			}
			if os.Getenv("CTXD_TURNS_SHOW_PERTINENT") != "" {
				for _, h := range sig.Distinct.HiddenPertinent {
					t.Logf("%s %s hidden pertinent: %s", ch.name, windowName(window), h)
				}
			}
			for _, h := range sig.Distinct.Hidden[:min(len(sig.Distinct.Hidden), envInt(t, "CTXD_TURNS_SHOW_HIDDEN", 0))] {
				t.Logf("%s %s hidden: %s", ch.name, windowName(window), h)
			}
		}
	}
	return row
}

// lastUser is the latest user message with text (the agent's latest
// request, which is never modified).
func lastUser(r *request.Request) *request.Item {
	for i := len(r.Items) - 1; i >= 0; i-- {
		it := r.Items[i]
		if it.Role() == "user" && it.Kind == request.KindMessage && slices.ContainsFunc(it.Segments, func(s request.Segment) bool { return s.Kind == request.SegText }) {
			return it
		}
	}
	return nil
}

// billHistory is a session's last four requests as a provider's cache
// sees them: the bytes before the first item and each item's bytes.
type billHistory struct {
	last               []billed
	lastNew, lastTotal float64    // the last request's new and total input tokens
	lastSplit          [3]float64 // the last request's bill: newest, re-sent, cached
	// lastCached is how many items of the last request were billed as
	// cached (0 under the 1,024-token floor); lastItemTok their tokens.
	lastCached  int
	lastItemTok []int
}

type billed struct {
	head  []byte
	items []string // item hashes
}

// bill prices a request: the longest prefix it shares with one of the
// last four is cached from 1,024 tokens on (0.1), the rest is new input
// (1, or 1.25 where writes are charged). stable reports that the
// previous request is a prefix of this one (its every item, in order).
// The new input is split into the last fresh items (the turn's new
// messages) and the rest (re-sent).
func (h *billHistory) bill(r *request.Request, est *request.Estimator, fresh int) (cost [2]float64, stable bool) {
	first := len(r.Body)
	if len(r.Items) > 0 {
		first = r.Items[0].Span().Start
	}
	cur := billed{head: r.Body[:first]}
	total := est.Request(r)
	itemTok := make([]int, len(r.Items))
	fixed := total
	for i, it := range r.Items {
		cur.items = append(cur.items, it.Hash())
		itemTok[i] = est.Item(it)
		fixed -= itemTok[i]
	}
	best, bestN := 0, 0
	for k, prev := range h.last {
		if !bytes.Equal(prev.head, cur.head) {
			continue
		}
		n, tok := 0, fixed
		for n < len(prev.items) && n < len(cur.items) && prev.items[n] == cur.items[n] {
			tok += itemTok[n]
			n++
		}
		if tok > best {
			best, bestN = tok, n
		}
		if k == len(h.last)-1 && n == len(prev.items) {
			stable = true
		}
	}
	if best < 1024 {
		best, bestN = 0, 0
	}
	h.lastCached, h.lastItemTok = bestN, itemTok
	best = min(best, total)
	newTok := float64(total - best)
	h.lastNew, h.lastTotal = newTok, float64(total)
	freshTok := 0
	for i := max(len(r.Items)-fresh, 0); i < len(r.Items); i++ {
		freshTok += itemTok[i]
	}
	newest := min(newTok, float64(freshTok))
	h.lastSplit = [3]float64{newest, newTok - newest, 0.1 * float64(best)}
	cost = [2]float64{0.1*float64(best) + newTok, 0.1*float64(best) + 1.25*newTok}
	h.last = append(h.last, cur)
	if len(h.last) > 4 {
		h.last = h.last[1:]
	}
	return cost, stable
}

// sessionOf is the session of the last proxy_request record.
func sessionOf(t *testing.T, logs *testutil.SyncBuffer) string {
	t.Helper()
	recs := parseRecords(t, logs)
	if len(recs) == 0 {
		t.Fatal("no record")
	}
	s, _ := recs[len(recs)-1]["session_id"].(string)
	return s
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

func envInts(t *testing.T, name string, def []int) []int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("%s=%q: %v", name, v, err)
		}
		out = append(out, n)
	}
	return out
}

func windowName(w int) string {
	if w == 0 {
		return "model"
	}
	return fmt.Sprintf("%dk", w/1000)
}

// quantile is the q-quantile of xs (0 for none).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func pct(a, b int) float64 {
	if b <= 0 {
		return 100
	}
	return 100 * float64(a) / float64(b)
}
