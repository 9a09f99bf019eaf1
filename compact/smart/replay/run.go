package replay

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/internal/stats"
	"github.com/ctxd/ctxd/tokens"
)

// Options configure a replay run.
type Options struct {
	// StateDir holds each session's artifact store; "" uses a temporary
	// directory removed after the run.
	StateDir string
	// Logger receives the optimizer's records; nil discards.
	Logger *slog.Logger
}

// Long sessions: at least this many turns and a last request of at least
// this many tokens (exact).
const (
	LongTurns  = 12
	LongTokens = 8000
)

// Hard cases the corpus must exercise; coverage is computed from what the
// run observes.
const (
	Case30Turns        = "30_turn_continuation"
	CaseRepeatedOutput = "repeated_build_test_output"
	CaseErrors         = "compiler_runtime_errors"
	CaseLargeDiffs     = "large_diffs"
	CaseNavigation     = "repository_navigation"
	CaseRefactoring    = "multi_file_refactoring"
	CaseStaticChanges  = "changing_static_instructions"
	CaseMissing        = "missing_artifacts"
	CaseCorrupted      = "corrupted_artifacts"
	CaseDuplicateCalls = "duplicate_tool_calls_outputs"
	CaseNoisyBinary    = "noisy_binary_output"
	CaseRecovery       = "failure_recovery"
	CaseWindow16k      = "window_16k"
	CaseWindow32k      = "window_32k"
	CaseWindow128k     = "window_128k"
	CaseWindow200k     = "window_200k"
)

// Cases lists the hard cases in report order.
var Cases = []string{Case30Turns, CaseRepeatedOutput, CaseErrors, CaseLargeDiffs, CaseNavigation, CaseRefactoring,
	CaseStaticChanges, CaseMissing, CaseCorrupted, CaseDuplicateCalls, CaseNoisyBinary, CaseRecovery,
	CaseWindow16k, CaseWindow32k, CaseWindow128k, CaseWindow200k}

// strategy is one way of sending a session: exact, current (the pruner)
// or optimized (Smart Context).
type strategy struct {
	sent       strings.Builder // continued sessions: every text sent so far
	tokens     int             // input tokens of the requests, summed
	total      int             // plus the cost of recovery turns
	ok         bool
	why        string
	recoveries int
}

func (s *strategy) fail(why string) {
	if s.ok {
		s.ok, s.why = false, why
	}
}

// runner holds what a run accumulates.
type runner struct {
	ctx      context.Context
	opts     Options
	rep      *Report
	cover    map[string]string // case -> evidence
	overhead []int64           // microseconds per optimized request
	seed     maphash.Seed
	signals  map[uint64][]string
	cache    *prune.Cache
	noisy    bool
	blob     bool
}

// Run replays every session of the corpus three ways (exact, the
// pruner, Smart Context) and computes the metrics. An error is returned
// only when the run cannot proceed (a store cannot be created); failed
// checks are in the report.
func Run(ctx context.Context, c *Corpus, opts Options) (*Report, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.StateDir == "" {
		dir, err := os.MkdirTemp("", "ctxd-replay-")
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		defer os.RemoveAll(dir)
		opts.StateDir = dir
	}
	r := &runner{ctx: ctx, opts: opts, rep: &Report{Targets: map[string]bool{}}, cover: map[string]string{},
		seed: maphash.MakeSeed(), signals: map[uint64][]string{}, cache: prune.NewCache()}
	r.rep.Counts.CorpusBytes = c.Bytes
	var rows []SessionRow
	for _, s := range c.Sessions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row, err := r.session(s)
		if err != nil {
			return nil, fmt.Errorf("replay session %s: %w", s.Name, err)
		}
		rows = append(rows, row)
	}
	r.rep.Sessions = rows
	r.finish()
	return r.rep, nil
}

// session replays one session.
func (r *runner) session(s *Session) (SessionRow, error) {
	ctx := r.ctx
	dir := filepath.Join(r.opts.StateDir, s.SessionID)
	store, err := artifacts.Open(dir, artifacts.Options{MaxBytes: -1})
	if err != nil {
		return SessionRow{}, err
	}
	if err := seed(ctx, store, dir, s); err != nil {
		return SessionRow{}, err
	}
	opt := smart.New(smart.Options{Store: store, Logger: r.opts.Logger})
	pr, err := prune.New(prune.Options{Model: s.Model, ContextWindow: s.ContextWindow, Format: s.Format, Cache: r.cache})
	if err != nil {
		return SessionRow{}, err
	}
	counter, model := tokens.ForModel(s.Model, s.ContextWindow)
	est := request.NewEstimator(counter, request.ImageRuleFor(model, s.Format))
	limit := model.ContextWindow - min(model.MaxOutput, model.ContextWindow/4)

	row := SessionRow{Name: s.Name, Format: string(s.Format), Window: model.ContextWindow, Turns: len(s.Turns)}
	exact, current, optimized := &strategy{ok: true}, &strategy{ok: true}, &strategy{ok: true}
	currentOK := true
	contOK := true
	sawFail := map[string]bool{} // commands whose output failed
	mutated := map[string]bool{}
	nav := 0
	lastExact := 0
	seen := map[string]bool{} // call ids observed
	reqs := s.Requests()
	for k, body := range reqs {
		turn := k + 1
		t := s.Turns[k]
		if k > 0 {
			for _, d := range t.Damage {
				damage(dir, d)
			}
		}
		in, err := request.Parse(body, s.Format)
		if err != nil {
			return row, fmt.Errorf("turn %d: the corpus request does not parse: %w", turn, err)
		}
		exactTokens := est.Request(in)
		lastExact = exactTokens
		r.observeInput(s, in, seen, sawFail, mutated, &nav)

		// Current: the pruner of the previous issue.
		var curReq *request.Request
		if out, _, err := pr.Compress(ctx, body); err != nil {
			currentOK = false
			current.fail(fmt.Sprintf("turn %d: pruner error: %v", turn, err))
		} else if curReq, err = request.Parse(out, s.Format); err != nil {
			currentOK = false
			current.fail(fmt.Sprintf("turn %d: pruner output does not parse", turn))
		}

		// Optimized: Smart Context, timed alone.
		t0 := time.Now()
		res, err := opt.Optimize(ctx, body, smart.Call{Session: s.SessionID, Model: s.Model, ContextWindow: s.ContextWindow})
		elapsed := time.Since(t0)
		var optReq *request.Request
		switch {
		case errors.Is(err, request.ErrUnresolvedReference):
			// Failed closed: the request carries a reference its session
			// cannot resolve, and nothing was sent. The agent's request
			// stands in for the proxy below (exact sends the same). The
			// turn is not among the rewritten turns the integrity rates
			// count.
			r.rep.Counts.FailedClosedTurns++
			at := fmt.Sprintf("%s turn %d", s.Name, turn)
			if errors.Is(err, ctxd.ErrNotFound) {
				r.observe(CaseMissing, at+": a reference to a missing artifact failed closed before upstream")
			}
			if errors.Is(err, artifacts.ErrCorrupt) {
				r.observe(CaseCorrupted, at+": an artifact that fails its sha256 failed closed before upstream")
			}
		case errors.Is(err, ctxd.ErrOverBudget):
			// Refused: even the protocol-exact minimum does not fit
			// the window, and nothing was sent. Counted, not hidden:
			// the turn is not among the rewritten turns.
			r.rep.Counts.OverBudgetTurns++
		case err != nil:
			return row, fmt.Errorf("turn %d: optimize: %w", turn, err)
		default:
			r.overhead = append(r.overhead, elapsed.Microseconds())
			r.rep.Counts.Turns++
			var ok bool
			optReq, ok = r.checkOptimized(s, turn, in, res, store)
			if !ok {
				contOK = false
			}
			r.observeReport(s, turn, in, res.Report)
		}

		exact.tokens += exactTokens
		exact.total += exactTokens
		r.play(exact, s, turn, t, in, exactTokens, limit, store, est)
		if curReq != nil {
			n := est.Request(curReq)
			current.tokens += n
			current.total += n
			r.play(current, s, turn, t, curReq, n, limit, store, est)
		}
		if optReq == nil {
			optReq = in // the failed output is counted; the original stands in
		}
		n := est.Request(optReq)
		optimized.tokens += n
		optimized.total += n
		r.play(optimized, s, turn, t, optReq, n, limit, store, est)
	}
	if len(s.Turns) >= 30 && contOK {
		r.observe(Case30Turns, fmt.Sprintf("%s: %d turns, every one intact", s.Name, len(s.Turns)))
	}
	if nav >= 5 {
		r.observe(CaseNavigation, fmt.Sprintf("%s: %d navigation calls (grep, find, ls, tree)", s.Name, nav))
	}
	if len(mutated) >= 3 {
		r.observe(CaseRefactoring, fmt.Sprintf("%s: edits to %d files", s.Name, len(mutated)))
	}
	if w := Window(model.ContextWindow); slices.Contains([]string{"16k", "32k", "128k", "200k"}, w) {
		r.observe("window_"+w, fmt.Sprintf("%s (%d tokens)", s.Name, model.ContextWindow))
	}
	row.Long = len(s.Turns) >= LongTurns && lastExact >= LongTokens
	row.ExactTokens, row.CurrentTokens, row.OptimizedToks = exact.tokens, current.tokens, optimized.tokens
	row.ReductionPct = reduction(optimized.tokens, exact.tokens)
	if currentOK {
		row.CurrentRedPct = reduction(current.tokens, exact.tokens)
	} else {
		row.CurrentTokens = 0
	}
	row.ExactOK, row.CurrentOK, row.OptimizedOK = exact.ok, current.ok && currentOK, optimized.ok
	row.ExactWhy, row.CurrentWhy, row.OptimizedWhy = exact.why, current.why, optimized.why
	row.Recoveries = optimized.recoveries
	row.ExactTotal, row.CurrentTotal, row.OptimizedTotal = exact.total, current.total, optimized.total
	if optimized.ok {
		for cmd := range sawFail {
			if strings.HasPrefix(cmd, "recovered:") {
				r.observe(CaseRecovery, fmt.Sprintf("%s: %s failed, then passed; the optimized session succeeded", s.Name, strings.TrimPrefix(cmd, "recovered:")))
				break
			}
		}
	}
	return row, nil
}

func reduction(after, before int) float64 {
	if before == 0 {
		return 0
	}
	return round1(100 * (1 - float64(after)/float64(before)))
}

// seed stores the session's seed artifacts, then damages them as the
// corpus says.
func seed(ctx context.Context, store *artifacts.Store, dir string, s *Session) error {
	for _, a := range s.SeedArtifacts {
		if a.State == "missing" {
			continue
		}
		ref, _, err := store.Put(ctx, s.SessionID, []byte(a.Content))
		if err != nil {
			return err
		}
		if a.State == "corrupt" {
			damage(dir, Damage{Op: "corrupt", SHA256: ref.Hash})
		}
	}
	for _, d := range s.Turns[0].Damage {
		damage(dir, d)
	}
	return nil
}

// damage deletes or corrupts an artifact wherever it is under dir: a file
// named by its hash (the per-file layout), or its record in a session's
// pack (a flipped header byte loses the record: "delete"; a flipped
// content byte fails its sha256: "corrupt").
func damage(dir string, d Damage) {
	raw, _ := hex.DecodeString(d.SHA256)
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		var b []byte
		switch {
		case e.Name() == artifacts.PackName && len(raw) == 32:
			if b, err = os.ReadFile(p); err != nil {
				return nil
			}
			i := bytes.Index(b, raw)
			if i < 4 {
				return nil
			}
			n := int(binary.BigEndian.Uint64(b[i+32 : i+40]))
			at := i - 4 + 40 // in the length: the header no longer verifies
			if d.Op == "corrupt" && n > 0 {
				at = i - 4 + artifacts.RecordHeaderSize + n/2
			}
			b[at] ^= 0x55
		case e.Name() == d.SHA256 && d.Op == "delete":
			os.Remove(p)
			return nil
		case e.Name() == d.SHA256 && d.Op == "corrupt":
			if b, err = os.ReadFile(p); err != nil || len(b) == 0 {
				return nil
			}
			b[len(b)/2] ^= 0x55
		default:
			return nil
		}
		os.WriteFile(p, b, 0o600)
		past := time.Now().Add(-time.Hour)
		os.Chtimes(p, past, past)
		return nil
	})
}

// play applies the success proxy to one request of a strategy: it must
// fit the usable window, and every fact the turn needs must be in it
// verbatim, or behind a reference that resolves in the session's store
// (a recovery turn: the model asks, the agent rehydrates and sends the
// request again with the lines).
func (r *runner) play(st *strategy, s *Session, turn int, t Turn, req *request.Request, n, limit int, store *artifacts.Store, est *request.Estimator) {
	if n > limit {
		st.fail(fmt.Sprintf("turn %d: %d tokens over the %d-token window less reserve (upstream context error)", turn, n, limit))
	}
	if len(t.Needs) == 0 && !s.Continued {
		return
	}
	text := requestText(req)
	if s.Continued {
		// The provider holds the earlier turns (previous_response_id):
		// what this strategy sent before is in the model's context too.
		st.sent.WriteString(text)
		text = st.sent.String()
		if len(t.Needs) == 0 {
			return
		}
	}
	var markers []request.Marker
	for _, f := range t.Needs {
		r.rep.Counts.FactsChecked++
		if strings.Contains(text, f) {
			continue
		}
		if markers == nil {
			markers = request.ParseMarkers(text)
		}
		recovered := false
		for _, m := range markers {
			content, _, err := store.Get(r.ctx, s.SessionID, m.Hash)
			if err != nil {
				continue
			}
			i := strings.Index(string(content), f)
			if i < 0 {
				continue
			}
			line := strings.Count(string(content[:i]), "\n") + 1
			l, err := store.Lines(r.ctx, s.SessionID, m.Hash, max(1, line-2), line+2)
			if err != nil {
				continue
			}
			st.recoveries++
			st.total += n + est.Text(l.Text)
			recovered = true
			break
		}
		if !recovered {
			st.fail(fmt.Sprintf("turn %d: a needed fact is neither in the request nor behind a resolvable reference", turn))
		}
	}
}

// checkOptimized checks one optimized request against its input:
// JSON, the control plane byte for byte, tool-call ids, critical-signal
// recall, and that every reference it introduced resolves. It returns
// the parsed output (nil when it does not parse) and whether the control
// plane is intact.
func (r *runner) checkOptimized(s *Session, turn int, in *request.Request, res *smart.Result, store *artifacts.Store) (*request.Request, bool) {
	c := &r.rep.Counts
	if res.Report.FullRequestFallbackCount > 0 {
		c.FallbackTurns++
	}
	c.SegmentRollbacks += res.Report.SegmentRollbackCount
	if !json.Valid(res.Body) {
		r.rep.Metrics.CorruptedJSONCount++
		r.failf("%s turn %d: output is not valid JSON", s.Name, turn)
		return nil, false
	}
	out, err := request.Parse(res.Body, s.Format)
	if err != nil {
		r.rep.Metrics.CorruptedJSONCount++
		r.failf("%s turn %d: output does not parse as %s", s.Name, turn, s.Format)
		return nil, false
	}
	intact := controlPlaneIntact(in, out)
	if intact {
		c.ContinuationOK++
	} else {
		r.failf("%s turn %d: protocol or continuation bytes changed", s.Name, turn)
	}
	if toolCallsIntact(in, out) {
		c.ToolCallsOK++
	} else {
		r.failf("%s turn %d: tool-call ids or pairing changed", s.Name, turn)
	}
	if len(in.Items) != len(out.Items) {
		return out, false
	}
	contents := map[string][]byte{}
	resolve := func(prefix string) ([]byte, bool) {
		if b, ok := contents[prefix]; ok {
			return b, b != nil
		}
		b, _, err := store.Get(r.ctx, s.SessionID, prefix)
		if err != nil {
			b = nil
		}
		contents[prefix] = b
		return b, b != nil
	}
	errorsRecalled, sawErrors := true, false
	for i, it := range in.Items {
		for j := range it.Segments {
			sa := &it.Segments[j]
			if j >= len(out.Items[i].Segments) {
				continue
			}
			sb := &out.Items[i].Segments[j]
			sigs := r.sigs(sa.Text)
			if hasCompilerOrRuntimeError(sigs) {
				sawErrors = true
			}
			c.SignalsChecked += len(sigs)
			if sa.Text == sb.Text {
				c.SignalsRecalled += len(sigs)
				continue
			}
			// References this rewrite introduced must resolve.
			var refs [][]byte
			for _, m := range request.ParseMarkers(sb.Text) {
				if strings.Contains(sa.Text, "sha256="+m.Hash) {
					continue
				}
				c.NewReferences++
				b, ok := resolve(m.Hash)
				if !ok {
					r.rep.Metrics.UnresolvedMandatoryArtifactRefs++
					r.failf("%s turn %d: reference %s does not resolve", s.Name, turn, m.Hash)
					continue
				}
				refs = append(refs, b)
			}
			// A segment put back from a reference of the input is that
			// reference's verified text.
			if restored(sa.Text, sb.Text) {
				c.SignalsRecalled += len(sigs)
				continue
			}
			for _, sig := range sigs {
				found := strings.Contains(sb.Text, sig)
				for _, b := range refs {
					found = found || strings.Contains(string(b), sig)
				}
				if found {
					c.SignalsRecalled++
					continue
				}
				errorsRecalled = false
				r.failf("%s turn %d: item %d lost a critical signal", s.Name, turn, i)
			}
		}
	}
	if sawErrors && errorsRecalled {
		r.observe(CaseErrors, fmt.Sprintf("%s turn %d: compiler or runtime errors, every signal recalled", s.Name, turn))
	}
	return out, intact
}

// restored reports an output text that is the text a marker of the input
// stands for (rehydration).
func restored(in, out string) bool {
	h := artifacts.Hash([]byte(out))
	for _, m := range request.ParseMarkers(in) {
		if strings.HasPrefix(h, m.Hash) {
			return true
		}
	}
	return false
}

// compilerOrRuntime are what compiler and runtime errors print.
var compilerOrRuntime = []string{"undefined:", "cannot use", "expected ", "syntax error", "error TS", "error[E", "panic:", "Traceback", "Exception", "Error:", "segmentation", "SIGSEGV"}

func hasCompilerOrRuntimeError(sigs []string) bool {
	for _, s := range sigs {
		for _, m := range compilerOrRuntime {
			if strings.Contains(s, m) {
				return true
			}
		}
	}
	return false
}

// sigs returns the critical signals of a text, cached by content.
func (r *runner) sigs(text string) []string {
	if text == "" {
		return nil
	}
	k := maphash.String(r.seed, text)
	if s, ok := r.signals[k]; ok {
		return s
	}
	s := slices.Clone(smart.Signals(text))
	request.Detach(s) // kept across the turns: the texts are views of their bodies
	if len(r.signals) > 1<<16 {
		clear(r.signals)
	}
	r.signals[k] = s
	return s
}

func (r *runner) failf(format string, args ...any) {
	if len(r.rep.Failures) < 50 {
		r.rep.Failures = append(r.rep.Failures, fmt.Sprintf(format, args...))
	}
}

// observe records the first evidence of a hard case.
func (r *runner) observe(c, evidence string) {
	if _, ok := r.cover[c]; !ok {
		r.cover[c] = evidence
	}
}

var (
	navWords      = []string{"grep", "rg", "find", "ls", "tree", "glob", "search", "list_dir"}
	mutationWords = []string{"write", "edit", "patch", "apply", "replace", "create", "str_replace"}
	pathKeys      = []string{"path", "file_path", "filepath", "file", "target_file"}
)

// observeInput notes, once per call id, navigation calls, edits, and
// build or test commands that fail and later pass.
func (r *runner) observeInput(s *Session, in *request.Request, seen, fails, mutated map[string]bool, nav *int) {
	calls := map[string]string{}
	for _, it := range in.Items {
		for j := range it.Segments {
			sg := &it.Segments[j]
			switch sg.Kind {
			case request.SegToolCall:
				calls[sg.CallID()] = sg.Text
				if seen["call:"+sg.CallID()] {
					continue
				}
				seen["call:"+sg.CallID()] = true
				if request.NameHas(sg.Name(), navWords) || strings.Contains(sg.Text, `"grep `) || strings.Contains(sg.Text, `"find `) || strings.Contains(sg.Text, `"ls `) {
					*nav++
				}
				if request.NameHas(sg.Name(), mutationWords) {
					var args map[string]any
					if json.Unmarshal([]byte(sg.Text), &args) == nil {
						for _, k := range pathKeys {
							if p, ok := args[k].(string); ok {
								mutated[p] = true
								break
							}
						}
					}
				}
			case request.SegToolResult:
				if seen["result:"+sg.CallID()] {
					continue
				}
				seen["result:"+sg.CallID()] = true
				cmd := calls[sg.CallID()]
				switch {
				case !buildLike(sg.Text):
				case failing(sg.Text):
					fails[cmd] = true
				case fails[cmd]:
					fails["recovered:"+cmd] = true
				}
			}
		}
	}
}

func buildLike(t string) bool {
	for _, m := range []string{"=== RUN", "--- FAIL", "ok  \t", "FAIL\t", "go build", "passed", "failed", "Compiling", "webpack", "error TS", "Build succeeded", "BUILD"} {
		if strings.Contains(t, m) {
			return true
		}
	}
	return false
}

func failing(t string) bool {
	for _, m := range []string{"--- FAIL", "FAIL\t", "failed", "error:", "error TS", "panic:", "Traceback", "BUILD FAILED"} {
		if strings.Contains(t, m) {
			return true
		}
	}
	return false
}

// observeReport notes the hard cases an optimize report shows.
func (r *runner) observeReport(s *Session, turn int, in *request.Request, rep *smart.Report) {
	at := fmt.Sprintf("%s turn %d", s.Name, turn)
	if rep.StaticContextDeltas > 0 {
		r.observe(CaseStaticChanges, fmt.Sprintf("%s: %d static context deltas", at, rep.StaticContextDeltas))
	}
	if rep.ArtifactHashFailures > 0 {
		r.observe(CaseCorrupted, fmt.Sprintf("%s: %d artifacts failed their sha256", at, rep.ArtifactHashFailures))
	}
	if rep.RepeatToolOutputRefs > 0 || rep.CrossTurnDuplicateTexts > 0 {
		r.observe(CaseDuplicateCalls, fmt.Sprintf("%s: %d repeated calls, %d cross-turn duplicates replaced by references", at, rep.RepeatToolOutputRefs, rep.CrossTurnDuplicateTexts))
	}
	if rep.BlobOutputsCondensed > 0 {
		r.blob = true
	}
	for _, d := range rep.Segments {
		if d.Decision == smart.DecisionRewritten {
			if r.rep.Counts.SavedByTransform == nil {
				r.rep.Counts.SavedByTransform = map[string]int{}
			}
			r.rep.Counts.SavedByTransform[d.Transform] += d.TokensBefore - d.TokensAfter
		}
		if d.Item >= len(in.Items) || d.Seg >= len(in.Items[d.Item].Segments) {
			continue
		}
		sg := &in.Items[d.Item].Segments[d.Seg]
		if d.Decision == smart.DecisionRewritten && strings.Contains(sg.Text, "\x1b[") {
			r.noisy = true // terminal escapes in a rewritten output: the rewrite drops them
		}
		if d.Transform == smart.TransformDuplicate && d.Decision == smart.DecisionRewritten && buildLike(sg.Text) {
			r.observe(CaseRepeatedOutput, at+": a repeated build or test output replaced by a reference")
		}
		if isDiff(sg.Text) && sg.Tokens >= 2000 && (d.Decision == smart.DecisionRewritten || d.Class == request.ClassCriticalExact) {
			r.observe(CaseLargeDiffs, fmt.Sprintf("%s: a %d-token diff %s", at, sg.Tokens, map[bool]string{true: "kept exact (the latest turn refers to it)", false: "condensed behind a reference"}[d.Class == request.ClassCriticalExact]))
		}
	}
	if r.noisy && r.blob {
		r.observe(CaseNoisyBinary, at+": terminal escape codes dropped and binary-like output replaced by a reference")
	}
}

func isDiff(t string) bool {
	return strings.Contains(t, "diff --git ") && strings.Contains(t, "\n@@ ")
}

// finish computes the metrics from the rows and counts.
func (r *runner) finish() {
	rep, m, c := r.rep, &r.rep.Metrics, &r.rep.Counts
	c.Sessions = len(rep.Sessions)
	var red, curRed, addRed []float64
	var exTot, curTot, optTot []float64
	exOK, curOK, optOK, long, with20 := 0, 0, 0, 0, 0
	for _, s := range rep.Sessions {
		if !s.Long {
			continue
		}
		long++
		red = append(red, s.ReductionPct)
		if s.ReductionPct >= 20 {
			with20++
		}
		if s.CurrentTokens > 0 {
			m.CurrentComparisonSessions++
			curRed = append(curRed, s.CurrentRedPct)
			addRed = append(addRed, reduction(s.OptimizedToks, s.CurrentTokens))
			curTot = append(curTot, float64(s.CurrentTotal))
		}
		exTot = append(exTot, float64(s.ExactTotal))
		optTot = append(optTot, float64(s.OptimizedTotal))
		if s.ExactOK {
			exOK++
		}
		if s.CurrentOK {
			curOK++
		}
		if s.OptimizedOK {
			optOK++
		}
		m.OptimizedMissingContextRecoveryTurns += s.Recoveries
	}
	m.EligibleLongSessions = long
	m.MedianInputTokenReductionPercentVsExact = round1(stats.Median(red))
	m.CurrentMedianReductionPercentVsExact = round1(stats.Median(curRed))
	m.MedianAdditionalReductionPercentVsCurrnt = round1(stats.Median(addRed))
	m.LongSessionsWith20PercentReduction = pct(with20, long)
	m.ExactMedianTotalTokens = int(stats.Median(exTot))
	m.CurrentMedianTotalTokens = int(stats.Median(curTot))
	m.OptimizedMedianTotalTokens = int(stats.Median(optTot))
	m.ExactSuccessRatePercent = pct(exOK, long)
	m.CurrentSuccessRatePercent = pct(curOK, long)
	m.OptimizedSuccessRatePercent = pct(optOK, long)
	if long > 0 {
		m.SuccessRegressionBasisPoints = (exOK - optOK) * 10000 / long
	}
	m.ContinuationIntegrityPercent = pct(c.ContinuationOK, c.Turns)
	m.ToolCallIntegrityPercent = pct(c.ToolCallsOK, c.Turns)
	m.CriticalSignalRecallPercent = pct(c.SignalsRecalled, c.SignalsChecked)
	m.P95RewriteOverheadMS = round1(float64(stats.Percentile(r.overhead, 95)) / 1000)
	c.P50RewriteOverheadM = stats.Percentile(r.overhead, 50)
	c.MaxRewriteOverheadM = stats.Percentile(r.overhead, 100)
	m.ContinuationFallbackRatePercent = pct(c.FallbackTurns, c.Turns)
	if c.Turns == 0 {
		m.ContinuationFallbackRatePercent = 0
	}
	var missing []string
	for _, k := range Cases {
		ev, ok := r.cover[k]
		if !ok {
			missing = append(missing, k)
			ev = "not observed in this run"
		}
		rep.Coverage = append(rep.Coverage, Coverage{Case: k, Observed: ok, Evidence: ev})
	}
	m.RequiredReplayCoverage = "complete"
	if len(missing) > 0 {
		m.RequiredReplayCoverage = "missing: " + strings.Join(missing, ", ")
		r.failf("coverage: %s not observed", strings.Join(missing, ", "))
	}
	if m.SuccessRegressionBasisPoints > 0 {
		r.failf("optimized success rate %.1f%% is below exact's %.1f%%", m.OptimizedSuccessRatePercent, m.ExactSuccessRatePercent)
	}
	m.Passed = long > 0 && c.Turns > 0 && c.ContinuationOK == c.Turns && c.ToolCallsOK == c.Turns &&
		c.SignalsRecalled == c.SignalsChecked && m.UnresolvedMandatoryArtifactRefs == 0 && m.CorruptedJSONCount == 0 &&
		len(missing) == 0 && m.SuccessRegressionBasisPoints <= 0
	rep.Targets["median_reduction_at_least_50_percent"] = m.MedianInputTokenReductionPercentVsExact >= 50
	rep.Targets["p95_rewrite_overhead_under_10ms"] = m.P95RewriteOverheadMS < 10
	rep.Targets["no_success_regression"] = m.SuccessRegressionBasisPoints <= 0
}
