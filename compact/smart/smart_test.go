package smart

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testWindow is the window of the tests' calls that name none: the
// histories of history(n) (about 1.2k tokens a turn) put it under
// pressure, where condensing is allowed (below it only lossless
// rewrites are; TestLosslessBelowPressure).
const testWindow = 48000

func optimize(t *testing.T, o *Optimizer, in []byte, c Call) *Result {
	t.Helper()
	if c.ContextWindow == 0 && c.Budget == 0 {
		c.ContextWindow = testWindow
	}
	res, err := o.Optimize(t.Context(), in, c)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// storeFiles lists the artifact files under dir.
func storeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// damagePack flips the byte at offset at of hash's record in a pack
// (0 is the start of its header).
func damagePack(t *testing.T, pack, hash string, at int) {
	t.Helper()
	b, err := os.ReadFile(pack)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(hash)
	i := bytes.Index(b, raw)
	if i < 4 {
		t.Fatalf("no record of %s in %s", hash[:12], pack)
	}
	b[i-4+at] ^= 1
	if err := os.WriteFile(pack, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestExactModeIsByteIdentical(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			in := body(f, history(12))
			// Odd but valid bytes: whitespace, escapes, number forms.
			in = append([]byte(" \n\t"), in...)
			in = bytes.Replace(in, []byte(`"model":"gpt-4o"`), []byte(`"model" : "gpt\u002d4o", "temperature": 1.50e0`), 1)
			dir := t.TempDir()
			store, _ := artifacts.Open(dir, artifacts.Options{})
			o := New(Options{Store: store})
			res := optimize(t, o, in, Call{Session: "s", Mode: ModeExact})
			if &res.Body[0] != &in[0] || !bytes.Equal(res.Body, in) {
				t.Fatal("exact mode did not return the input itself")
			}
			if res.Report.RolloutMode != RolloutExact || res.Report.Applied {
				t.Errorf("report: mode %s applied %v", res.Report.RolloutMode, res.Report.Applied)
			}
			if files := storeFiles(t, dir); len(files) > 0 {
				t.Errorf("exact mode wrote %v", files)
			}
			// Even a body that is not a request passes in exact mode.
			junk := []byte(`{"not":"a request"`)
			if res := optimize(t, o, junk, Call{Mode: ModeExact}); !bytes.Equal(res.Body, junk) {
				t.Error("exact mode changed a malformed body")
			}
		})
	}
}

func TestShadowAndCanaryOutChangeNothing(t *testing.T) {
	in := body(request.FormatChat, history(16))
	tests := []struct {
		name     string
		rollout  Rollout
		call     Call
		wantMode string
		reason   string
	}{
		{"shadow requested", Rollout{}, Call{Session: "s", Mode: ModeShadow}, RolloutShadow, "shadow_requested"},
		{"shadow env", Rollout{Shadow: true}, Call{Session: "s"}, RolloutShadow, "shadow_env"},
		{"canary 0%", Rollout{Canary: true, CanaryPercent: 0}, Call{Session: "s"}, RolloutCanaryOut, "rollout_canary_out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			store, _ := artifacts.Open(dir, artifacts.Options{})
			var logs bytes.Buffer
			o := New(Options{Store: store, Rollout: tt.rollout, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			res := optimize(t, o, in, tt.call)
			if !bytes.Equal(res.Body, in) || res.Report.Applied {
				t.Fatal("the original was not returned")
			}
			if res.Report.RolloutMode != tt.wantMode || res.Report.RolloutReason != tt.reason {
				t.Errorf("rollout %s/%s, want %s/%s", res.Report.RolloutMode, res.Report.RolloutReason, tt.wantMode, tt.reason)
			}
			if files := storeFiles(t, dir); len(files) > 0 {
				t.Errorf("wrote artifacts: %v", files)
			}
			if s := o.session("s"); s != (sessionState{}) {
				t.Errorf("session state changed: %+v", s)
			}
			if !strings.Contains(logs.String(), tt.reason) {
				t.Errorf("log does not say %s: %s", tt.reason, logs.String())
			}
			if tt.wantMode == RolloutShadow {
				// Shadow computes the decisions it would have made.
				if res.Report.SelectedCandidateCount == 0 || res.Report.EstimatedTokensAfter >= res.Report.EstimatedTokensBefore {
					t.Errorf("shadow computed nothing: %+v", res.Report.Telemetry)
				}
				for _, a := range res.Report.Artifacts {
					if a.Status != "planned" {
						t.Errorf("shadow artifact status %q", a.Status)
					}
				}
			}
		})
	}
}

func TestCanaryIsStableBySession(t *testing.T) {
	in := body(request.FormatChat, history(10))
	o := New(Options{Store: newStore(t), Rollout: Rollout{Canary: true, CanaryPercent: 50}})
	in50, out50 := 0, 0
	for i := range 40 {
		s := fmt.Sprintf("session-%d", i)
		res := optimize(t, o, in, Call{Session: s})
		again := optimize(t, o, in, Call{Session: s})
		if res.Report.RolloutMode != again.Report.RolloutMode || res.Report.RolloutCanaryBucket != canaryBucket(s) {
			t.Fatalf("session %s: bucket or mode not stable", s)
		}
		switch res.Report.RolloutMode {
		case RolloutOptimize:
			in50++
			if canaryBucket(s) >= 50 || !res.Report.Applied {
				t.Errorf("session %s bucket %d rewritten=%v", s, canaryBucket(s), res.Report.Applied)
			}
		case RolloutCanaryOut:
			out50++
			if canaryBucket(s) < 50 || !bytes.Equal(res.Body, in) {
				t.Errorf("session %s bucket %d passed through wrongly", s, canaryBucket(s))
			}
		}
	}
	if in50 == 0 || out50 == 0 {
		t.Errorf("40 sessions at 50%%: %d in, %d out", in50, out50)
	}
}

// checkOutput verifies an optimized request against its input the way a
// caller would: valid JSON of the same format, the same items with the
// same ids in order, protocol bytes untouched, tokens saved, every
// reference resolving to its original, every critical signal present.
func checkOutput(t *testing.T, store *artifacts.Store, session string, in, out []byte) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatal("output is not JSON")
	}
	a, err := request.Parse(in, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := request.Parse(out, a.Format)
	if err != nil {
		t.Fatalf("output does not parse as %s: %v", a.Format, err)
	}
	if len(a.Items) != len(b.Items) {
		t.Fatalf("%d items, want %d", len(b.Items), len(a.Items))
	}
	if err := b.Check(); (err == nil) != (a.Check() == nil) {
		t.Fatalf("tool-call integrity changed: %v", err)
	}
	for i := range a.Items {
		ia, ib := a.Items[i], b.Items[i]
		if !slices.Equal(ia.Calls(), ib.Calls()) || !slices.Equal(ia.Results(), ib.Results()) || ia.Role() != ib.Role() {
			t.Fatalf("item %d: ids or role changed", i)
		}
		for j := range ia.Segments {
			sa, sb := &ia.Segments[j], &ib.Segments[j]
			if sa.Text == sb.Text {
				continue
			}
			if sa.Kind != request.SegToolResult && !ia.Notice {
				t.Fatalf("item %d segment %d (%s) changed", i, j, sa.Kind)
			}
			ms := request.ParseMarkers(sb.Text)
			resolved := false
			for _, m := range ms {
				got, _, err := store.Get(t.Context(), session, m.Hash)
				if err != nil {
					t.Fatalf("item %d: reference %s does not resolve: %v", i, m.Hash, err)
				}
				if string(got) != sa.Text {
					t.Fatalf("item %d: reference %s does not stand for the original", i, m.Hash)
				}
				resolved = true
			}
			if !resolved {
				norm := normalized(sb.Text)
				for _, sig := range Signals(sa.Text) {
					if !strings.Contains(norm, sig) {
						t.Fatalf("item %d: signal %q lost", i, sig)
					}
				}
			}
		}
	}
}

func TestOptimizeFormats(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			store := newStore(t)
			o := New(Options{Store: store})
			in := body(f, history(24))
			res := optimize(t, o, in, Call{Session: "s1", WindowSize: 6})
			rep := res.Report
			if !rep.Applied || rep.EstimatedTokensAfter*2 > rep.EstimatedTokensBefore {
				t.Errorf("tokens %d -> %d, want at least half saved", rep.EstimatedTokensBefore, rep.EstimatedTokensAfter)
			}
			if rep.SegmentRollbackCount != 0 || rep.FullRequestFallbackCount != 0 || rep.UnresolvedArtifactRefs != 0 {
				t.Errorf("rollbacks %d, fallbacks %d, unresolved %d", rep.SegmentRollbackCount, rep.FullRequestFallbackCount, rep.UnresolvedArtifactRefs)
			}
			for _, n := range []int{rep.ToolOutputsCondensed, rep.DuplicateTexts, rep.LosslessTransforms, rep.RepeatToolOutputRefs} {
				if n == 0 {
					t.Errorf("a transform never applied: %+v", rep.Telemetry)
					break
				}
			}
			checkOutput(t, store, "s1", in, res.Body)
			// The same request again is byte-identical (deterministic) and
			// stores nothing new.
			again := optimize(t, o, in, Call{Session: "s1", WindowSize: 6})
			if !bytes.Equal(again.Body, res.Body) {
				t.Error("second run differs")
			}
			if again.Report.ArtifactsStored != 0 {
				t.Errorf("second run stored %d artifacts", again.Report.ArtifactsStored)
			}
		})
	}
}

func TestGoldenOutputs(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			o := New(Options{Store: newStore(t)})
			res := optimize(t, o, body(f, history(9)), Call{Session: "golden"})
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, res.Body, "", " "); err != nil {
				t.Fatal(err)
			}
			testutil.GoldenFile(t, "history9."+string(f), pretty.Bytes(), *update)
		})
	}
}

// failingStore fails to store one text.
type failingStore struct {
	*artifacts.Store
	fail string // hash
}

func (s failingStore) Put(ctx context.Context, session string, content []byte) (artifacts.Ref, string, error) {
	if artifacts.Hash(content) == s.fail {
		return artifacts.Ref{}, "", errors.New("disk full")
	}
	return s.Store.Put(ctx, session, content)
}

func (s failingStore) PutWith(ctx context.Context, session string, write func(io.Writer) error) (artifacts.Ref, string, error) {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return artifacts.Ref{}, "", err
	}
	return s.Put(ctx, session, b.Bytes())
}

func TestFailedArtifactFailsOnlyItsSegment(t *testing.T) {
	in := body(request.FormatAnthropic, history(16))
	req, _ := request.Parse(in, "")
	// The second file read (item index of its result varies by format):
	// find the first read result's text.
	var target string
	for _, it := range req.Items {
		for _, s := range it.Segments {
			if s.Kind == request.SegToolResult && strings.HasPrefix(s.Text, "package file4") {
				target = s.Text
			}
		}
	}
	if target == "" {
		t.Fatal("no target")
	}
	store := newStore(t)
	o := New(Options{Store: failingStore{store, artifacts.Hash([]byte(target))}})
	res := optimize(t, o, in, Call{Session: "s"})
	rep := res.Report
	if rep.UnresolvedArtifactRefs != 1 || rep.SegmentRollbackCount != 1 || rep.FullRequestFallbackCount != 0 {
		t.Fatalf("unresolved %d rollbacks %d fallbacks %d", rep.UnresolvedArtifactRefs, rep.SegmentRollbackCount, rep.FullRequestFallbackCount)
	}
	if !strings.Contains(string(res.Body), `package file4\n`) {
		t.Error("the failed segment was not kept whole")
	}
	if rep.SelectedCandidateCount < 5 {
		t.Errorf("only %d other segments optimized", rep.SelectedCandidateCount)
	}
	checkOutput(t, store, "s", in, res.Body)
}

// persisted returns the optimized history an agent would keep, with a
// new user request appended.
func persisted(t *testing.T, f request.Format, out []byte, ask string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	key := "messages"
	if f == request.FormatResponses {
		key = "input"
	}
	items, _ := convo.Items(f, []convo.Msg{convo.Assistant("Done."), convo.User(ask)})
	for _, it := range items {
		var v any
		json.Unmarshal(it, &v)
		m[key] = append(m[key].([]any), v)
	}
	b, _ := json.Marshal(m)
	return b
}

func TestInputReferences(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			dir := t.TempDir()
			store, _ := artifacts.Open(dir, artifacts.Options{})
			o := New(Options{Store: store})
			first := optimize(t, o, body(f, history(16)), Call{Session: "s"})
			if len(first.Report.Artifacts) < 3 {
				t.Fatalf("%d artifacts", len(first.Report.Artifacts))
			}
			arts := first.Report.Artifacts
			asked, missing, corrupt := arts[0].Hash, arts[1].Hash, arts[2].Hash

			// Ask for one reference back: it is put back, verified.
			ask := persisted(t, f, first.Body, "Show me lines 1-20 of sha256="+asked[:16])
			res := optimize(t, New(Options{Store: store}), ask, Call{Session: "s"}) // a fresh process: nothing cached
			if rep := res.Report; rep.RehydratedRefs != 1 || rep.RehydrationTokenCost <= 0 || rep.UnresolvedArtifactRefs != 0 {
				t.Errorf("rehydrated %d (cost %d, unresolved %d), want 1", rep.RehydratedRefs, rep.RehydrationTokenCost, rep.UnresolvedArtifactRefs)
			}
			original, _, err := store.Get(t.Context(), "s", asked)
			if err != nil {
				t.Fatal(err)
			}
			out := parsed(t, res.Body, f)
			found := false
			for _, it := range out.Items {
				for _, s := range it.Segments {
					found = found || s.Text == string(original)
				}
			}
			if !found {
				t.Error("the asked-for reference was not rehydrated")
			}

			// Remove one artifact and corrupt another: the request fails
			// closed; shadow mode reports what does not resolve.
			// (In the session's pack: a flipped header byte loses the
			// record; a flipped content byte fails its hash.)
			damagePack(t, artifacts.PackPath(dir, "s"), missing, 40)
			damagePack(t, artifacts.PackPath(dir, "s"), corrupt, artifacts.RecordHeaderSize+1)
			next := persisted(t, f, first.Body, "Show me lines 1-20 of sha256="+asked[:16]+" and of sha256="+corrupt[:16])
			_, err = New(Options{Store: store}).Optimize(t.Context(), next, Call{Session: "s", ContextWindow: testWindow})
			if !errors.Is(err, request.ErrUnresolvedReference) || !errors.Is(err, artifacts.ErrCorrupt) || !errors.Is(err, ctxd.ErrNotFound) {
				t.Fatalf("live call with a missing and a corrupt artifact: %v, want a fail-closed error naming both", err)
			}
			for _, h := range []string{missing, corrupt} {
				if !strings.Contains(err.Error(), h[:16]) {
					t.Errorf("error does not name %s: %v", h[:16], err)
				}
			}
			shadow := optimize(t, New(Options{Store: store}), next, Call{Session: "s", Mode: ModeShadow})
			rep := shadow.Report
			if !bytes.Equal(shadow.Body, next) {
				t.Error("shadow mode changed the request")
			}
			if rep.ArtifactHashFailures < 1 || rep.MissingArtifactRequests != 1 || rep.UnresolvedArtifactRefs < 2 {
				t.Errorf("hash failures %d, missing requests %d, unresolved %d", rep.ArtifactHashFailures, rep.MissingArtifactRequests, rep.UnresolvedArtifactRefs)
			}
		})
	}
}

func TestSessionsNeverShareArtifacts(t *testing.T) {
	dir := t.TempDir()
	store, _ := artifacts.Open(dir, artifacts.Options{})
	o := New(Options{Store: store})
	msgs := history(12)
	a := optimize(t, o, body(request.FormatChat, msgs), Call{Session: "alice", ContextWindow: 20000})
	// Bob's conversation is similar: one file read differs.
	msgs[3].Result = &convo.Result{CallID: msgs[3].Result.CallID, Text: msgs[3].Result.Text + "\n// bob's line\n"}
	b := optimize(t, o, body(request.FormatChat, msgs), Call{Session: "bob", ContextWindow: 20000})
	checkOutput(t, store, "alice", body(request.FormatChat, history(12)), a.Body)
	checkOutput(t, store, "bob", body(request.FormatChat, msgs), b.Body)
	only := ""
	for _, art := range a.Report.Artifacts {
		if !slices.ContainsFunc(b.Report.Artifacts, func(x ArtifactUse) bool { return x.Hash == art.Hash }) {
			only = art.Hash
		}
	}
	if only == "" {
		t.Fatal("no artifact unique to alice")
	}
	if _, err := Rehydrate(t.Context(), store, "bob", only, 0, 0); !errors.Is(err, ctxd.ErrNotFound) {
		t.Errorf("bob read alice's artifact: %v", err)
	}
	// A request naming alice's reference in bob's session cannot
	// rehydrate it either.
	next := persisted(t, request.FormatChat, a.Body, "show sha256="+only[:16])
	if _, err := o.Optimize(t.Context(), next, Call{Session: "bob", ContextWindow: testWindow}); !errors.Is(err, request.ErrUnresolvedReference) {
		t.Errorf("bob's request carrying alice's reference: %v, want it to fail closed", err)
	}
}

func TestRestartKeepsArtifacts(t *testing.T) {
	dir := t.TempDir()
	s1, _ := artifacts.Open(dir, artifacts.Options{})
	in := body(request.FormatResponses, history(12))
	first := optimize(t, New(Options{Store: s1}), in, Call{Session: "s"})
	// A new daemon over the same state directory.
	s2, _ := artifacts.Open(dir, artifacts.Options{})
	second := optimize(t, New(Options{Store: s2}), in, Call{Session: "s"})
	if !bytes.Equal(first.Body, second.Body) {
		t.Error("restart changed the rewrite")
	}
	if second.Report.ArtifactsStored != 0 {
		t.Errorf("restart re-stored %d artifacts", second.Report.ArtifactsStored)
	}
	checkOutput(t, s2, "s", in, second.Body)
}

func TestCrossTurnDuplicates(t *testing.T) {
	store := newStore(t)
	o := New(Options{Store: store})
	out := testOutput("example.com/parser", true, 3)
	turn := func(n int, prev string) []byte {
		id := fmt.Sprintf("call_%d", n)
		msgs := []convo.Msg{convo.Assistant("", convo.Call{ID: id, Name: "bash", Args: `{"command":"go test ./parser"}`}), convo.Tool(id, "bash", out, false)}
		items, _ := convo.Items(request.FormatResponses, msgs)
		// The call item belongs to the previous response; a continued
		// request carries only the output.
		extra := map[string]any{"previous_response_id": prev}
		b := convo.Body(request.FormatResponses, "gpt-4o", nil, extra)
		var m map[string]any
		json.Unmarshal(b, &m)
		var v any
		json.Unmarshal(items[1], &v)
		m["input"] = []any{v}
		b, _ = json.Marshal(m)
		return b
	}
	first := optimize(t, o, turn(1, "resp_1"), Call{Session: "c"})
	if first.Report.Applied || first.Report.ArtifactsStored != 1 {
		t.Errorf("first turn: applied %v stored %d", first.Report.Applied, first.Report.ArtifactsStored)
	}
	second := optimize(t, o, turn(2, "resp_2"), Call{Session: "c"})
	if second.Report.CrossTurnDuplicateTexts != 1 || !second.Report.Applied {
		t.Fatalf("second turn: cross-turn duplicates %d", second.Report.CrossTurnDuplicateTexts)
	}
	if !bytes.Contains(second.Body, []byte(`"previous_response_id":"resp_2"`)) || !bytes.Contains(second.Body, []byte("[ctxd:dup sha256=")) {
		t.Errorf("second turn body: %s", second.Body)
	}
	// The provider lost resp_2: the next continued request makes no
	// cross-turn duplicate (its anchor is not in the provider's context).
	in := turn(3, "resp_2")
	third := optimize(t, o, in, Call{Session: "c", Feedback: Feedback{PreviousResponseNotFound: 1}})
	if third.Report.CrossTurnDuplicateTexts != 0 || bytes.Contains(third.Body, []byte("[ctxd:dup")) ||
		!slices.Contains(third.Report.PolicyReasons, "no_cross_turn_refs_after_previous_response_not_found") || third.Report.PreviousResponseNotFound != 1 {
		t.Errorf("after previous_response_not_found: cross-turn %d reasons %v", third.Report.CrossTurnDuplicateTexts, third.Report.PolicyReasons)
	}
}

// TestUpstreamInvalidContinuationFallsBack: after the provider refused
// a session's request for its tool-call continuation, the next request
// goes as the agent sent it, and says why.
func TestUpstreamInvalidContinuationFallsBack(t *testing.T) {
	in := body(request.FormatChat, history(40))
	o := New(Options{Store: newStore(t)})
	res := optimize(t, o, in, Call{Session: "s", ContextWindow: 64000, Feedback: Feedback{UpstreamInvalidContinuation: 1}})
	rep := res.Report
	if !bytes.Equal(res.Body, in) || rep.Applied || rep.FullRequestFallbackCount != 1 || rep.InvalidToolCallContinuaton != 1 ||
		!slices.Contains(rep.PolicyReasons, "full_request_fallback_upstream_invalid_continuation") {
		t.Errorf("applied %v fallback %d invalid %d reasons %v", rep.Applied, rep.FullRequestFallbackCount, rep.InvalidToolCallContinuaton, rep.PolicyReasons)
	}
	// Without the feedback the same request is rewritten.
	if res := optimize(t, o, in, Call{Session: "s", ContextWindow: 64000}); !res.Report.Applied {
		t.Error("the request is not rewritten without the feedback either: the test shows nothing")
	}
}

func TestStaticContextDeltas(t *testing.T) {
	o := New(Options{Store: newStore(t)})
	msgs := history(8)
	optimize(t, o, body(request.FormatChat, msgs), Call{Session: "s"})
	msgs[0].Text += " Always run gofmt."
	res := optimize(t, o, body(request.FormatChat, msgs), Call{Session: "s"})
	if res.Report.StaticContextDeltas != 1 {
		t.Errorf("static context deltas %d, want 1", res.Report.StaticContextDeltas)
	}
	// Injected notices: an old one superseded by a newer version.
	reminder := func(v int) string {
		return fmt.Sprintf("<system-reminder>\nThe todo list of this session has changed; keep working on it.\n%s</system-reminder>", strings.Repeat(fmt.Sprintf("- [ ] item %d of version %d\n", v, v), 30))
	}
	msgs = append(msgs[:4], append([]convo.Msg{convo.User(reminder(1))}, msgs[4:]...)...)
	msgs = append(msgs, convo.User(reminder(2)))
	res = optimize(t, o, body(request.FormatChat, msgs), Call{Session: "s2"})
	if res.Report.StaticContextDeltas != 1 {
		t.Errorf("superseded notice: deltas %d, want 1", res.Report.StaticContextDeltas)
	}
	if !bytes.Contains(res.Body, []byte(`superseded by the notice at message`)) {
		t.Error("no supersession marker")
	}
}

func TestBudget(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		call      Call
		used      int
		window    int
		source    string
		band      string
		mode      string
		usableMax int
	}{
		{"explicit", "gpt-4o", Call{ContextWindow: 16000}, 1000, 16000, WindowExplicit, BandLow, ModeRelaxed, 12000},
		{"registry", "gpt-4o", Call{}, 100000, 128000, WindowRegistry, BandHigh, ModeTight, 111616},
		{"observed", "acme-model", Call{ObservedContextWindow: 32000}, 20000, 32000, WindowObserved, BandMedium, ModeTight, 28000},
		{"none", "acme-model", Call{}, 8000, request.NoWindow, WindowNone, BandLow, ModeRelaxed, request.NoWindow},
		{"low confidence", "claude-sonnet-4.5", Call{}, 90000, 200000, WindowRegistry, BandMedium, ModeTight, 150000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := resolveBudget(tt.model, tt.call)
			if err != nil {
				t.Fatal(err)
			}
			b.setPressure(tt.used, 0)
			if b.window != tt.window || b.windowSource != tt.source || b.band != tt.band || b.mode != tt.mode {
				t.Errorf("window %d (%s) band %s mode %s; want %d (%s) %s %s", b.window, b.windowSource, b.band, b.mode, tt.window, tt.source, tt.band, tt.mode)
			}
			if b.usable <= 0 || b.usable > tt.usableMax || b.safetyFloor < 256 {
				t.Errorf("usable %d (max %d), floor %d", b.usable, tt.usableMax, b.safetyFloor)
			}
			want := tt.used * 10000 / (b.window - b.reserve)
			if d := b.pressureBP - want; d < -1 || d > 1 {
				t.Errorf("pressure %d bp, want %d", b.pressureBP, want)
			}
		})
	}
	b, _ := resolveBudget("gpt-4o", Call{})
	b.setPressure(1000, 5000)
	if b.used != 5000 || !slices.Contains(b.reasons, "observed_tokens_exceed_estimate") {
		t.Errorf("observed tokens not used: %+v", b)
	}
	b, _ = resolveBudget("gpt-4o", Call{Budget: 20000})
	b.setPressure(10000, 0)
	if b.limit != 20000 || b.pressureBP != 5000 || b.usable != 20000-400 || !slices.Contains(b.reasons, "explicit_budget") {
		t.Errorf("explicit budget: limit %d pressure %d usable %d %v", b.limit, b.pressureBP, b.usable, b.reasons)
	}
	// The observed/estimated ratio calibrates the estimate: 50,000
	// estimated tokens the provider counts 1.6 times over are 80,000,
	// high pressure instead of low, and the usable window (in estimated
	// tokens) shrinks by as much; a ratio below 1 lowers the pressure
	// but never widens the window.
	plain, _ := resolveBudget("gpt-4o", Call{ContextWindow: 100000, OutputReserve: 4000})
	plain.setPressure(50000, 0)
	for _, tt := range []struct {
		ratio  float64
		band   string
		usable int
	}{
		{1.6, BandHigh, int(float64(plain.usable) / 1.6)},
		{1, BandMedium, plain.usable},
		{0.8, BandLow, plain.usable},
	} {
		b, err := resolveBudget("gpt-4o", Call{ContextWindow: 100000, OutputReserve: 4000, EstimateRatio: tt.ratio})
		if err != nil {
			t.Fatal(err)
		}
		b.setPressure(50000, 0)
		if want := int(math.Round(50000 * tt.ratio)); b.used != want || b.band != tt.band || b.usable != tt.usable ||
			!slices.Contains(b.reasons, "estimate_calibrated_by_observed_ratio") {
			t.Errorf("ratio %g: used %d (want %d) band %s (want %s) usable %d (want %d) %v", tt.ratio, b.used, want, b.band, tt.band, b.usable, tt.usable, b.reasons)
		}
	}
	if plain.band != BandMedium || slices.Contains(plain.reasons, "estimate_calibrated_by_observed_ratio") {
		t.Errorf("uncalibrated: band %s %v", plain.band, plain.reasons)
	}
	for _, bad := range []float64{-1, 0.1, 5} {
		if err := (Call{EstimateRatio: bad}).validate(); !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Errorf("estimate ratio %g: %v, want invalid params", bad, err)
		}
	}
	if _, err := resolveBudget("gpt-4o", Call{ContextWindow: 1000, OutputReserve: 1000}); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("reserve filling the window: %v", err)
	}
}

func TestEmergencyFitsSmallWindow(t *testing.T) {
	store := newStore(t)
	o := New(Options{Store: store})
	in := body(request.FormatChat, history(40))
	res := optimize(t, o, in, Call{Session: "s", ContextWindow: 16000})
	rep := res.Report
	if rep.EstimatedTokensBefore <= 16000 || !rep.Fits || rep.BudgetMode != ModeEmergency {
		t.Errorf("before %d after %d usable %d fits %v mode %s", rep.EstimatedTokensBefore, rep.EstimatedTokensAfter, *rep.EffectiveUsableTokens, rep.Fits, rep.BudgetMode)
	}
	checkOutput(t, store, "s", in, res.Body)
}

func TestRolloutFromEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want Rollout
		err  bool
	}{
		{map[string]string{}, Rollout{}, false},
		{map[string]string{EnvShadow: "1"}, Rollout{Shadow: true}, false},
		{map[string]string{EnvShadow: "0", EnvCanaryPercent: "25"}, Rollout{Canary: true, CanaryPercent: 25}, false},
		{map[string]string{EnvCanaryPercent: "0"}, Rollout{Canary: true}, false},
		{map[string]string{EnvCanaryPercent: "101"}, Rollout{}, true},
		{map[string]string{EnvCanaryPercent: "x"}, Rollout{}, true},
		{map[string]string{EnvShadow: "maybe"}, Rollout{}, true},
	}
	for _, tt := range tests {
		got, err := RolloutFromEnv(func(k string) string { return tt.env[k] })
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("%v: got %+v %v, want %+v error %v", tt.env, got, err, tt.want, tt.err)
		}
	}
}

// seedFields are the telemetry field names of the seed.
var seedFields = strings.Fields(`body_bytes_before body_bytes_after estimated_tokens_before estimated_tokens_after
body_bytes_saved rewrite_ratio_percent model_context_window_tokens model_context_window_source observed_context_tokens
available_tokens pressure_basis_points pressure_band estimator_confidence effective_usable_context_tokens
absolute_safety_floor_tokens budget_mode policy_reasons artifacts_stored tool_outputs_condensed duplicate_texts
cross_turn_duplicate_texts repeat_tool_output_refs blob_outputs_condensed rehydrated_refs rehydration_token_cost
static_context_deltas repo_state_facts transformed_segment_categories candidate_count selected_candidate_count
rejected_candidate_count selected_candidate_utility_points segment_rollback_count full_request_fallback_count
artifact_hash_failures rollout_mode rollout_reason rollout_canary_bucket rollout_canary_percent
task_quality_upstream_context_errors task_quality_previous_response_not_found task_quality_invalid_tool_call_continuation
task_quality_missing_artifact_requests task_quality_repeated_tool_call_count task_quality_model_reread_requests
task_quality_corrective_user_messages task_quality_test_or_build_failed_after_rewrite task_quality_task_completed
task_quality_additional_turns_before_completion task_quality_final_total_input_tokens`)

func TestTelemetryRecord(t *testing.T) {
	var logs bytes.Buffer
	o := New(Options{Store: newStore(t), Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	msgs := history(16)
	in := body(request.FormatChat, msgs)
	optimize(t, o, in, Call{Session: "s", Feedback: Feedback{TaskCompleted: "false", UpstreamContextErrors: 2}})
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log records, want 1:\n%s", len(lines), logs.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["msg"] != logMessage {
		t.Errorf("message %v", rec["msg"])
	}
	for _, f := range seedFields {
		if _, ok := rec[f]; !ok {
			t.Errorf("field %s missing", f)
		}
	}
	if rec["task_quality_upstream_context_errors"] != 2.0 || rec["task_quality_task_completed"] != "false" {
		t.Errorf("feedback not recorded: %v %v", rec["task_quality_upstream_context_errors"], rec["task_quality_task_completed"])
	}
	// No request text reaches the log: not a line of any output, not the
	// user's words.
	for _, m := range msgs {
		texts := []string{m.Text}
		if m.Result != nil {
			texts = splitLines(m.Result.Text)
		}
		for _, s := range texts {
			if len(strings.TrimSpace(s)) > 12 && strings.Contains(logs.String(), strings.TrimSpace(s)) {
				t.Fatalf("log holds request text %q", s)
			}
		}
	}
	// The report's JSON has every field too.
	res := optimize(t, o, in, Call{Session: "s"})
	b, _ := json.Marshal(res.Report)
	for _, f := range seedFields {
		if !bytes.Contains(b, []byte(`"`+f+`"`)) {
			t.Errorf("report lacks %s", f)
		}
	}
}

func TestQualityProxies(t *testing.T) {
	msgs := history(9)
	// A repeated call (same name and arguments), a re-read and a
	// correction from the user.
	msgs = append(msgs, convo.User("No, that's wrong: you forgot the tests."),
		convo.Assistant("", convo.Call{ID: "again", Name: "read_file", Args: `{"path":"pkg/file0.go"}`}),
		convo.Tool("again", "read_file", goFile("file0", 120), false))
	o := New(Options{Store: newStore(t)})
	res := optimize(t, o, body(request.FormatChat, msgs), Call{Session: "q"})
	rep := res.Report
	if rep.RepeatedToolCallCount < 3 || rep.ModelRereadRequests != 1 || rep.CorrectiveUserMessages != 1 {
		t.Errorf("repeated %d rereads %d corrective %d", rep.RepeatedToolCallCount, rep.ModelRereadRequests, rep.CorrectiveUserMessages)
	}
	// A failing build after the session was rewritten.
	msgs = append(msgs, convo.User("Run the tests."), convo.Assistant("", convo.Call{ID: "t", Name: "bash", Args: `{"command":"go test"}`}),
		convo.Tool("t", "bash", testOutput("example.com/x", true, 9), false))
	res = optimize(t, o, body(request.FormatChat, msgs), Call{Session: "q"})
	if res.Report.TestOrBuildFailedAfter != 1 || res.Report.FinalTotalInputTokens <= res.Report.EstimatedTokensAfter {
		t.Errorf("failed after rewrite %d, total %d", res.Report.TestOrBuildFailedAfter, res.Report.FinalTotalInputTokens)
	}
}

func TestBadInput(t *testing.T) {
	o := New(Options{Store: newStore(t)})
	tests := []struct {
		name string
		body string
		call Call
	}{
		{"not JSON", `{"messages": [`, Call{}},
		{"not a request", `{"x": 1}`, Call{}},
		{"bad session", `{"messages": []}`, Call{Session: "../etc"}},
		{"bad mode", `{"messages": []}`, Call{Mode: "fast"}},
		{"negative window", `{"messages": []}`, Call{ContextWindow: -1}},
		{"bad feedback", `{"messages": []}`, Call{Feedback: Feedback{TaskCompleted: "maybe"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := o.Optimize(t.Context(), []byte(tt.body), tt.call); !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Errorf("err = %v, want invalid params", err)
			}
		})
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := New(Options{}).Optimize(ctx, body(request.FormatChat, history(3)), Call{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestNoStoreOnlyLossless(t *testing.T) {
	res := optimize(t, New(Options{}), body(request.FormatChat, history(16)), Call{})
	rep := res.Report
	if rep.LosslessTransforms == 0 || rep.ToolOutputsCondensed != 0 || rep.DuplicateTexts != 0 || len(rep.Artifacts) != 0 {
		t.Errorf("without a store: %+v", rep.Telemetry)
	}
	if !strings.HasPrefix(rep.Session, "conv-") || !rep.SessionDerived {
		t.Errorf("derived session %q", rep.Session)
	}
	if m := regexp.MustCompile(`\[ctxd:(ref|dup)`).Find(res.Body); m != nil {
		t.Error("a reference without a store")
	}
}

func TestBlobLines(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", true},
		{"00000000: 8950 4e47 0d0a 1a0a 0000 000d 4948 4452  .PNG........IHDR", true},
		{"00000010  00 00 00 01 00 00 00 01  08 06 00 00 00 1f 15 c4  |................|", true},
		{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855e3b0c442", true},
		{"func (s *Server) HandleRequestWithAVeryLongNameIndeed(ctx context.Context) error {", false},
		{"ThisIsAVeryLongIdentifierWithoutAnyDigitsThatGoesOnAndOnForeverAndEver", false},
		{"github.com/example/project/internal/pkg/subpkg/another/level/file.go", false},
		{"short", false},
	}
	for _, tt := range tests {
		if got := isBlobLine(tt.line); got != tt.want {
			t.Errorf("isBlobLine(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestExactItemsAreNeverRewritten(t *testing.T) {
	in := body(request.FormatChat, history(16))
	o := New(Options{Store: newStore(t)})
	first := optimize(t, o, in, Call{Session: "s"})
	target := -1
	for _, d := range first.Report.Segments {
		if d.Decision == DecisionRewritten {
			target = d.Item
			break
		}
	}
	if target < 0 {
		t.Fatal("nothing rewritten")
	}
	res := optimize(t, o, in, Call{Session: "s", ExactItems: []int{target}})
	a, _ := request.Parse(in, "")
	b := parsed(t, res.Body, a.Format)
	if !bytes.Equal(a.Items[target].Raw(), b.Items[target].Raw()) {
		t.Errorf("item %d marked exact was rewritten", target)
	}
	for _, d := range res.Report.Segments {
		if d.Item == target && (d.Class != request.ClassProtocolExact || d.Decision != DecisionKept) {
			t.Errorf("item %d: class %s decision %s", target, d.Class, d.Decision)
		}
	}
	if res.Report.SelectedCandidateCount != first.Report.SelectedCandidateCount-1 {
		t.Errorf("%d rewrites, want %d", res.Report.SelectedCandidateCount, first.Report.SelectedCandidateCount-1)
	}
}

func TestConcurrentOptimize(t *testing.T) {
	store := newStore(t)
	o := New(Options{Store: store})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			f := request.Formats[g%3]
			in := body(f, history(10+g))
			for range 3 {
				res, err := o.Optimize(context.Background(), in, Call{Session: fmt.Sprintf("s%d", g%2), ContextWindow: testWindow})
				if err != nil {
					t.Error(err)
					return
				}
				if !json.Valid(res.Body) || res.Report.FullRequestFallbackCount != 0 {
					t.Errorf("goroutine %d: bad output", g)
				}
			}
		})
	}
	wg.Wait()
}

func TestWindowSizeAndMaxToolOutput(t *testing.T) {
	in := body(request.FormatChat, history(16))
	o := New(Options{Store: newStore(t)})
	base := optimize(t, o, in, Call{Session: "w"}).Report
	wide := optimize(t, o, in, Call{Session: "w", WindowSize: 12}).Report
	if wide.EstimatedTokensAfter <= base.EstimatedTokensAfter || wide.ToolOutputsCondensed >= base.ToolOutputsCondensed {
		t.Errorf("window 12 kept no more: %d -> %d tokens, %d -> %d condensed", base.EstimatedTokensAfter, wide.EstimatedTokensAfter, base.ToolOutputsCondensed, wide.ToolOutputsCondensed)
	}
	small := optimize(t, o, in, Call{Session: "w", MaxToolOutput: 200})
	for _, d := range small.Report.Segments {
		if (d.Transform == TransformCondense || d.Transform == TransformReference) && d.Decision == DecisionRewritten && d.TokensAfter > 200 {
			t.Errorf("item %d condensed to %d tokens, over 200", d.Item, d.TokensAfter)
		}
	}
	never := optimize(t, o, in, Call{Session: "w", MaxToolOutput: -1}).Report
	if never.ToolOutputsCondensed != 0 || never.DuplicateTexts == 0 {
		t.Errorf("max_tool_output -1: %d condensed, %d duplicates", never.ToolOutputsCondensed, never.DuplicateTexts)
	}
}

// TestRetrievalHintInMarkers: with a Retrieval, every reference the
// optimizer writes says how to read it back (the command, the GET), the
// hints are part of what the estimate counts, and the references still
// parse and resolve.
func TestRetrievalHintInMarkers(t *testing.T) {
	in := body(request.FormatChat, history(40))
	rt := request.Retrieval{Command: true, StateDir: "/srv/ctxd/state", URL: "http://127.0.0.1:8787/ctxd/artifacts"}
	store := newStore(t)
	o := New(Options{Store: store})
	res := optimize(t, o, in, Call{Session: "s", ContextWindow: 16000, Retrieval: rt})
	checkOutput(t, store, "s", in, res.Body)
	out := string(res.Body)
	markers := strings.Count(out, request.MarkerOpen)
	cmds := strings.Count(out, ", or run: ctxd rehydrate --state-dir /srv/ctxd/state --session s ")
	gets := strings.Count(out, ", or GET http://127.0.0.1:8787/ctxd/artifacts/s/")
	if markers == 0 || cmds != markers || gets != markers {
		t.Errorf("%d markers, %d with the command, %d with the GET", markers, cmds, gets)
	}
	for _, m := range regexp.MustCompile(`\[ctxd:[^\]]*\]`).FindAllString(out, -1) {
		ms := request.ParseMarkers(m)
		if len(ms) != 1 || !strings.Contains(m, "/s/"+ms[0].Hash+"?lines=a-b]") || !strings.Contains(m, " --session s "+ms[0].Hash+" a-b") {
			t.Errorf("marker %q parses as %+v", m, ms)
		}
	}
	// The estimate of the request sent is the estimate of these bytes,
	// hints included.
	again := optimize(t, New(Options{}), res.Body, Call{Session: "s", ContextWindow: 16000, Mode: ModeShadow})
	if got, want := again.Report.EstimatedTokensBefore, res.Report.EstimatedTokensAfter; got != want {
		t.Errorf("estimate of the sent body %d, the report says %d", got, want)
	}
	plain := optimize(t, New(Options{Store: newStore(t)}), in, Call{Session: "s", ContextWindow: 16000})
	if strings.Contains(string(plain.Body), ", or run:") {
		t.Error("a call without Retrieval wrote hints")
	}
	for _, bad := range []request.Retrieval{{URL: "ftp://x"}, {URL: "http://[::1]:8787/ctxd/artifacts"}, {Command: true, StateDir: "/a b"}} {
		if _, err := New(Options{}).Optimize(t.Context(), in, Call{Retrieval: bad}); !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Errorf("retrieval %+v: %v, want invalid params", bad, err)
		}
	}
}

// An unknown model with no window is treated exactly as a known model
// with a very large window: no step driven by window pressure runs, and
// the request goes out as the known model's would (a small guessed
// window used to cut such requests by 90% and more). The report shows no
// window (request.NoWindow is no number: it read 1073741824) and warns
// that it is unknown, with how to give it; not when a budget bounds it.
func TestUnknownModelHasNoWindow(t *testing.T) {
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			in := body(f, history(40))
			// Not the optimize helper: it sets a test window.
			unknown, err := New(Options{Store: newStore(t)}).Optimize(t.Context(), in, Call{Session: "s", Model: "acme-gateway-alias", OutputReserve: 4096})
			if err != nil {
				t.Fatal(err)
			}
			known := optimize(t, New(Options{Store: newStore(t)}), in, Call{Session: "s", Model: "gpt-4-32k", ContextWindow: request.NoWindow, OutputReserve: 4096})
			u, k := unknown.Report, known.Report
			if !bytes.Equal(unknown.Body, known.Body) {
				t.Errorf("unknown model's request differs from the known model's with a very large window (%d vs %d bytes)", len(unknown.Body), len(known.Body))
			}
			if u.ModelContextWindowSource != WindowNone || u.ModelContextWindowTokens != 0 {
				t.Errorf("window %d from %q, want none shown from %q", u.ModelContextWindowTokens, u.ModelContextWindowSource, WindowNone)
			}
			js, _ := json.Marshal(u)
			if bytes.Contains(js, []byte(`"model_context_window_tokens"`)) || bytes.Contains(js, []byte("1073741824")) {
				t.Errorf("report JSON shows a window: %.300s", js)
			}
			// The numbers that follow from the window are unknown, and
			// say so: null, neither a value of the assumed 2^30 window
			// (a safety floor of 21,474,836) nor a 0 that could be real.
			var fields map[string]any
			if err := json.Unmarshal(js, &fields); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			slog.New(slog.NewJSONHandler(&logs, nil)).LogAttrs(t.Context(), slog.LevelInfo, logMessage, u.Telemetry.attrs()...)
			var rec map[string]any
			if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"available_tokens", "effective_usable_context_tokens", "absolute_safety_floor_tokens"} {
				for what, m := range map[string]map[string]any{"report": fields, "log record": rec} {
					if v, ok := m[f]; !ok || v != nil {
						t.Errorf("%s: %s = %v (present %v), want null", what, f, v, ok)
					}
				}
			}
			if u.AvailableTokens != nil || u.EffectiveUsableTokens != nil || u.AbsoluteSafetyFloor != nil {
				t.Errorf("unknown window: available %v usable %v floor %v, want nil", u.AvailableTokens, u.EffectiveUsableTokens, u.AbsoluteSafetyFloor)
			}
			if k.AvailableTokens == nil || k.EffectiveUsableTokens == nil || k.AbsoluteSafetyFloor == nil {
				t.Error("a known window's numbers are missing")
			}
			if len(u.Warnings) != 1 || !strings.Contains(u.Warnings[0], "context window unknown") || !strings.Contains(u.Warnings[0], "--context-window") || len(k.Warnings) != 0 {
				t.Errorf("warnings %q (known: %q), want one saying the window is unknown and how to give it", u.Warnings, k.Warnings)
			}
			bounded, err := New(Options{Store: newStore(t)}).Optimize(t.Context(), in, Call{Session: "s", Model: "acme-gateway-alias", Budget: 500_000})
			if err != nil {
				t.Fatal(err)
			}
			if len(bounded.Report.Warnings) != 0 {
				t.Errorf("with a budget: warnings %q", bounded.Report.Warnings)
			}
			// A budget bounds the request: its numbers are known.
			if b := bounded.Report; b.EffectiveUsableTokens == nil || b.AbsoluteSafetyFloor == nil || b.AvailableTokens == nil ||
				*b.AbsoluteSafetyFloor != 500_000/50 || *b.EffectiveUsableTokens > 500_000 || *b.AvailableTokens > *b.EffectiveUsableTokens {
				t.Errorf("with a budget of 500000: usable %v floor %v available %v", b.EffectiveUsableTokens, b.AbsoluteSafetyFloor, b.AvailableTokens)
			}
			if u.PressureBand != BandLow || u.PressureBand != k.PressureBand || u.BudgetMode != k.BudgetMode || u.EstimatedTokensAfter != k.EstimatedTokensAfter || !u.Fits {
				t.Errorf("unknown: band %s mode %s after %d fits %v; known: band %s mode %s after %d",
					u.PressureBand, u.BudgetMode, u.EstimatedTokensAfter, u.Fits, k.PressureBand, k.BudgetMode, k.EstimatedTokensAfter)
			}
			if !slices.Contains(u.PolicyReasons, "window_source_none") {
				t.Errorf("reasons %v lack window_source_none", u.PolicyReasons)
			}
		})
	}
}

// A caller's parse of the very body is used (one parse per body in the
// proxy), with the same result as parsing again; a parse of a copy or of
// another format is not.
func TestParsedOncePerBody(t *testing.T) {
	in := body(request.FormatChat, history(12))
	req, err := request.Parse(in, request.FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	if !parseOf(req, in, request.FormatChat) || !parseOf(req, in, "") || parseOf(req, bytes.Clone(in), "") || parseOf(req, in, request.FormatAnthropic) || parseOf(nil, in, "") {
		t.Error("parseOf accepts a parse it should not, or refuses its own")
	}
	given := optimize(t, New(Options{Store: newStore(t)}), in, Call{Session: "s", ContextWindow: 16000, Parsed: req})
	again := optimize(t, New(Options{Store: newStore(t)}), in, Call{Session: "s", ContextWindow: 16000})
	if !bytes.Equal(given.Body, again.Body) || !given.Report.Applied {
		t.Errorf("with the caller's parse the rewrite differs (applied %v)", given.Report.Applied)
	}
}
