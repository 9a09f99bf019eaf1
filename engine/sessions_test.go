package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/sessions"
)

var sessionRepo = map[string]string{
	"go.mod":            "module example.com/shop\n\ngo 1.26\n",
	"cart/cart.go":      "package cart\n\n// Cart holds items.\ntype Cart struct{ Items []Item }\n\n// Item is a line.\ntype Item struct {\n\tSKU string\n\tQty int\n}\n\n// Total sums quantities.\nfunc (c *Cart) Total() int {\n\tn := 0\n\tfor _, it := range c.Items {\n\t\tn += it.Qty\n\t}\n\treturn n\n}\n",
	"cart/price.go":     "package cart\n\n// Price returns the price of a SKU in cents.\nfunc Price(sku string) int {\n\treturn len(sku) * 100\n}\n",
	"cart/discount.go":  "package cart\n\n// Discount is a percentage off.\nfunc Discount(total, pct int) int {\n\treturn total - total*pct/100\n}\n",
	"cart/cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif (&Cart{}).Total() != 0 {\n\t\tt.Fatal()\n\t}\n}\n",
}

// sessionEngine builds a git workspace from sessionRepo and its engine,
// with the state directory at its default place.
func sessionEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	t.Setenv(EnvStateDir, "")
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, sessionRepo)
	testutil.GitCommitAll(t, dir)
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return newEngine(t, root), root
}

func chatHistory(t *testing.T, msgs ...string) json.RawMessage {
	t.Helper()
	var out []map[string]string
	for i, m := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out = append(out, map[string]string{"role": role, "content": m})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBuildPromptRecordsCheckpoint(t *testing.T) {
	e, root := sessionEngine(t)
	ctx := t.Context()
	unsaved := "package cart\n\n// Price is being rewritten.\nfunc Price(sku string) int { return 1 }\n"
	req := PromptRequest{
		UserRequest: "fix Total in cart/cart.go",
		SessionID:   "s-build",
		OpenFiles:   []ctxd.OpenFile{{Path: "cart/price.go", Line: 3, Text: &unsaved}},
	}
	env, err := e.BuildPrompt(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(env.Warnings) > 0 {
		for _, w := range env.Warnings {
			if strings.Contains(w, "checkpoint") {
				t.Fatalf("warning: %s", w)
			}
		}
	}
	st, err := e.SessionStore()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".ctxd", "sessions"); st.Dir() != want {
		t.Errorf("store at %s, want %s", st.Dir(), want)
	}
	r, err := st.Restore(ctx, "s-build", 0)
	if err != nil {
		t.Fatal(err)
	}
	cp := r.Checkpoint
	if cp.Seq != 1 || cp.State != sessions.StateRunning || cp.UserRequest != req.UserRequest || cp.TaskType != env.TaskType || cp.Model != env.Model.Name || cp.Root != root {
		t.Errorf("checkpoint: %+v", cp)
	}
	if len(cp.Chunks) != len(env.Context.Chunks) || cp.ContextSummary.TokensUsed != env.Context.TokensUsed {
		t.Fatalf("chunks %d summary %+v; envelope %d chunks %d tokens", len(cp.Chunks), cp.ContextSummary, len(env.Context.Chunks), env.Context.TokensUsed)
	}
	for i, c := range env.Context.Chunks {
		ref := cp.Chunks[i]
		if ref.Source != c.Source || ref.Hash != c.Hash || ref.Tokens != c.Tokens || ref.Truncation != c.Truncation {
			t.Errorf("chunk %d: recorded %+v for %s %s", i, ref, c.Source, c.Hash)
		}
	}
	if strings.Contains(string(cp.BuildRequest), "being rewritten") {
		t.Errorf("the unsaved buffer's text was recorded: %s", cp.BuildRequest)
	}
	var build PromptRequest
	if err := json.Unmarshal(cp.BuildRequest, &build); err != nil || len(build.OpenFiles) != 1 || build.OpenFiles[0].Line != 3 {
		t.Errorf("build request: %v %s", err, cp.BuildRequest)
	}

	// A second build appends; ctx/gather and builds without a session do
	// not record.
	if _, err := e.BuildPrompt(ctx, req, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Gather(ctx, PromptRequest{UserRequest: "x", SessionID: "s-build"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.BuildPrompt(ctx, PromptRequest{UserRequest: "no session"}, nil); err != nil {
		t.Fatal(err)
	}
	tl, err := st.Timeline(ctx, "s-build")
	if err != nil || len(tl.Entries) != 2 {
		t.Fatalf("timeline: %v %+v", err, tl)
	}
	l, err := st.List(ctx)
	if err != nil || len(l.Sessions) != 1 {
		t.Fatalf("list: %v %+v", err, l)
	}

	if _, err := e.BuildPrompt(ctx, PromptRequest{UserRequest: "x", SessionID: "../escape"}, nil); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("a bad session id: %v", err)
	}
}

func TestSaveCheckpointCarriesOver(t *testing.T) {
	e, _ := sessionEngine(t)
	ctx := t.Context()
	hist := chatHistory(t, "add a discount", "I'll edit cart/discount.go")
	res, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "s-save", UserRequest: "add a discount", TaskType: "implement", ConversationHistory: hist, Artifacts: []ctxd.Artifact{{Type: "file", Path: "cart/discount.go"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Seq != 1 || res.State != sessions.StateRunning {
		t.Errorf("first save: %+v", res)
	}
	if _, err := e.BuildPrompt(ctx, PromptRequest{UserRequest: "add a discount to cart/discount.go", SessionID: "s-save"}, nil); err != nil {
		t.Fatal(err)
	}
	r, err := e.RestoreCheckpoint(ctx, RestoreRequest{SessionID: "s-save"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoint.Seq != 2 || string(r.Checkpoint.ConversationHistory) != string(hist) || len(r.Checkpoint.Artifacts) != 1 || len(r.Checkpoint.Chunks) == 0 {
		t.Errorf("the build did not carry the history and artifacts over: %+v", r.Checkpoint)
	}
	if r.Checkpoint.HistoryFormat != "openai-chat" {
		t.Errorf("history format %q", r.Checkpoint.HistoryFormat)
	}
	done, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "s-save", State: "completed"})
	if err != nil || done.Seq != 3 || done.State != sessions.StateCompleted || done.ContextSummary.ChunksIncluded == 0 {
		t.Fatalf("completing: %v %+v", err, done)
	}
	l, err := e.ListSessions(ctx, ListRequest{State: "running"})
	if err != nil || len(l.Sessions) != 0 {
		t.Errorf("running sessions: %v %+v", err, l)
	}

	tests := []struct {
		name string
		req  SaveRequest
	}{
		{"no id", SaveRequest{}},
		{"bad state", SaveRequest{SessionID: "x", State: "paused"}},
		{"bad task", SaveRequest{SessionID: "x", TaskType: "dance"}},
		{"history object", SaveRequest{SessionID: "x", ConversationHistory: json.RawMessage(`{"messages":[]}`)}},
		{"bad format", SaveRequest{SessionID: "x", ConversationHistory: json.RawMessage(`[]`), HistoryFormat: "gemini"}},
		{"format alone", SaveRequest{SessionID: "x", HistoryFormat: "chat"}},
		{"bad id", SaveRequest{SessionID: "a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.SaveCheckpoint(ctx, tt.req); !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Errorf("got %v, want invalid params", err)
			}
		})
	}
}

func TestResumeFlagsChangedAndMissing(t *testing.T) {
	e, root := sessionEngine(t)
	ctx := t.Context()
	if _, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "s-old", UserRequest: "old work", State: "running"}); err != nil {
		t.Fatal(err)
	}
	env, err := e.BuildPrompt(ctx, PromptRequest{
		UserRequest: "refactor the cart pricing",
		SessionID:   "s-resume",
		Patterns:    []string{"cart/cart.go", "cart/price.go", "cart/discount.go"},
		OpenFiles:   []ctxd.OpenFile{{Path: "cart/cart.go", Line: 14}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"cart/cart.go", "cart/price.go", "cart/discount.go"} {
		if !hasSource(env, s) {
			t.Fatalf("the first build lacks %s", s)
		}
	}
	// A newer session that is completed: resume picks the running one.
	if _, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "s-done", UserRequest: "finished", State: "completed"}); err != nil {
		t.Fatal(err)
	}
	newPrice := "package cart\n\n// Price returns the price of a SKU in cents, now with tax.\nfunc Price(sku string) int {\n\treturn len(sku) * 119\n}\n"
	testutil.WriteFiles(t, root, map[string]string{"cart/price.go": newPrice})
	if err := os.Remove(filepath.Join(root, "cart", "discount.go")); err != nil {
		t.Fatal(err)
	}

	res, err := e.ResumeSession(ctx, ResumeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed || res.SessionID != "s-resume" {
		t.Fatalf("resumed %v %s (%s)", res.Resumed, res.SessionID, res.Reason)
	}
	status := map[string]SourceStatus{}
	for _, s := range res.Sources {
		status[s.Source] = s
	}
	want := map[string]string{"cart/cart.go": SourceUnchanged, "cart/price.go": SourceChanged, "cart/discount.go": SourceMissing}
	for src, st := range want {
		if status[src].Status != st {
			t.Errorf("%s: %+v, want %s", src, status[src], st)
		}
	}
	if res.Changed != 1 || res.Missing != 1 || res.Unchanged < 1 {
		t.Errorf("counts: changed %d missing %d unchanged %d", res.Changed, res.Missing, res.Unchanged)
	}
	if p := status["cart/price.go"]; p.NewHash == p.OldHash || p.NewHash == "" || !p.Included {
		t.Errorf("price.go: %+v", p)
	}
	if status["cart/discount.go"].Included || hasSource(res.Envelope, "cart/discount.go") {
		t.Error("a missing file is in the rebuilt envelope")
	}
	if c := chunkOf(res.Envelope, "cart/price.go"); c == nil || !strings.Contains(c.Content, "now with tax") {
		t.Errorf("price.go was not re-read: %+v", c)
	}
	if c := chunkOf(res.Envelope, "cart/cart.go"); c == nil || !c.Facts.Open || c.Facts.Cursor != 14 {
		t.Errorf("cart.go is not open at line 14 again: %+v", c)
	}
	if res.Envelope.UserRequest != "refactor the cart pricing" || res.Envelope.SessionID != "s-resume" {
		t.Errorf("envelope: %q %q", res.Envelope.UserRequest, res.Envelope.SessionID)
	}
	if tl, _ := e.SessionTimeline(ctx, TimelineRequest{SessionID: "s-resume"}); len(tl.Entries) != 1 {
		t.Errorf("resume saved a checkpoint: %d entries", len(tl.Entries))
	}

	// Named sessions resume whatever their state; a missing one is an
	// error.
	if res, err := e.ResumeSession(ctx, ResumeRequest{SessionID: "s-done"}); err != nil || !res.Resumed {
		t.Errorf("resume by id: %v %+v", err, res)
	}
	if _, err := e.ResumeSession(ctx, ResumeRequest{SessionID: "nope"}); !errors.Is(err, ctxd.ErrNotFound) {
		t.Errorf("resume of a missing session: %v", err)
	}
	for _, id := range []string{"s-old", "s-resume"} {
		if _, err := e.DeleteSession(ctx, DeleteRequest{SessionID: id}); err != nil {
			t.Fatal(err)
		}
	}
	res, err = e.ResumeSession(ctx, ResumeRequest{})
	if err != nil || res.Resumed || res.Reason == "" {
		t.Errorf("resume with nothing running: %v %+v", err, res)
	}
}

func hasSource(env *ctxd.Envelope, src string) bool { return chunkOf(env, src) != nil }

func chunkOf(env *ctxd.Envelope, src string) *ctxd.Chunk {
	if env == nil {
		return nil
	}
	for i := range env.Context.Chunks {
		if env.Context.Chunks[i].Source == src {
			return &env.Context.Chunks[i]
		}
	}
	return nil
}

func TestForkPrunesHistoryWithLesson(t *testing.T) {
	e, _ := sessionEngine(t)
	ctx := t.Context()
	good := chatHistory(t, "add a discount to the cart", "Reading cart/discount.go first.")
	// The failed attempt: a long history with big tool outputs.
	var msgs []map[string]any
	if err := json.Unmarshal(good, &msgs); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		id := "call_" + string(rune('a'+i%26)) + string(rune('0'+i/26))
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "run_tests", "arguments": "{}"}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("--- FAIL: TestDiscount (0.00s)\n    discount_test.go:12: got 90, want 85\n", 40)},
		)
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "it still fails"})
	bad, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []json.RawMessage{good, bad} {
		if _, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "s-fail", UserRequest: "add a discount", ConversationHistory: h}); err != nil {
			t.Fatal(err)
		}
	}
	// Checkpoint 2 failed; fork from N-1 = 1 by default.
	errText := "ValueError: invalid input\n  at cart/discount.go:5"
	res, err := e.ForkSession(ctx, ForkRequest{SessionID: "s-fail", Error: errText, NewSessionID: "s-retry"})
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "s-retry" || res.Parent != (sessions.Parent{SessionID: "s-fail", Seq: 1}) {
		t.Errorf("fork: %s parent %+v", res.SessionID, res.Parent)
	}
	cp := res.Checkpoint
	if cp.Seq != 1 || cp.State != sessions.StateRunning || cp.Parent == nil || !strings.Contains(cp.Note, "ValueError") {
		t.Errorf("new checkpoint: %+v", cp)
	}
	var got []map[string]any
	if err := json.Unmarshal(cp.ConversationHistory, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0]["content"] != "add a discount to the cart" {
		t.Fatalf("history: %s", cp.ConversationHistory)
	}
	note, _ := got[2]["content"].(string)
	if got[2]["role"] != "user" || !strings.HasPrefix(note, prune.RetryPrefix) || !strings.Contains(note, "ValueError: invalid input") || !strings.Contains(note, "rolled back to a previous checkpoint") {
		t.Errorf("lesson note: %q", note)
	}
	if res.Report == nil || len(res.Report.Inserted) == 0 || res.Report.Inserted[len(res.Report.Inserted)-1].Kind != "retry_note" {
		t.Errorf("report: %+v", res.Report)
	}

	// The old timeline is untouched; the new one starts with the fork.
	old, err := e.SessionTimeline(ctx, TimelineRequest{SessionID: "s-fail"})
	if err != nil || len(old.Entries) != 2 {
		t.Fatalf("old timeline: %v %+v", err, old)
	}
	tl, err := e.SessionTimeline(ctx, TimelineRequest{SessionID: "s-retry"})
	if err != nil || len(tl.Entries) != 1 || tl.Parent == nil || tl.Parent.SessionID != "s-fail" {
		t.Fatalf("new timeline: %v %+v", err, tl)
	}

	// Forking the failed checkpoint itself, with a small budget, prunes
	// its big tool outputs.
	res2, err := e.ForkSession(ctx, ForkRequest{SessionID: "s-fail", Seq: 2, Error: errText, Budget: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Report.TokensAfter >= res2.Report.TokensBefore || res2.Report.TokensAfter > 3000 {
		t.Errorf("pruning: %d -> %d tokens (budget 3000)", res2.Report.TokensBefore, res2.Report.TokensAfter)
	}
	if !strings.HasPrefix(res2.SessionID, "s-") || res2.Parent.Seq != 2 {
		t.Errorf("second fork: %s %+v", res2.SessionID, res2.Parent)
	}
	if !strings.Contains(string(res2.Checkpoint.ConversationHistory), prune.RetryPrefix) {
		t.Error("no lesson note in the second fork")
	}
	// What the fork condensed or evicted rehydrates under the new
	// session: the fork goes through the request flow's artifact store.
	marks := request.ParseMarkers(string(res2.Checkpoint.ConversationHistory))
	if len(marks) == 0 {
		t.Fatalf("the pruned fork carries no reference:\n%s", res2.Checkpoint.ConversationHistory)
	}
	for _, m := range marks {
		l, err := e.Rehydrate(ctx, RehydrateRequest{SessionID: res2.SessionID, Hash: m.Hash})
		if err != nil || l.Text == "" {
			t.Errorf("reference %s of the fork does not rehydrate under %s: %v", m.Hash, res2.SessionID, err)
		}
	}

	tests := []struct {
		name string
		req  ForkRequest
		want error
	}{
		{"no error text", ForkRequest{SessionID: "s-fail"}, ctxd.ErrInvalidParams},
		{"no session", ForkRequest{Error: "x"}, ctxd.ErrInvalidParams},
		{"missing session", ForkRequest{SessionID: "nope", Error: "x"}, ctxd.ErrNotFound},
		{"missing checkpoint", ForkRequest{SessionID: "s-fail", Seq: 9, Error: "x"}, ctxd.ErrNotFound},
		{"existing new id", ForkRequest{SessionID: "s-fail", Error: "x", NewSessionID: "s-retry"}, ctxd.ErrInvalidParams},
		{"bad new id", ForkRequest{SessionID: "s-fail", Error: "x", NewSessionID: "a/b"}, ctxd.ErrInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := e.ForkSession(ctx, tt.req); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestForkOfSingleCheckpointWarns(t *testing.T) {
	e, _ := sessionEngine(t)
	ctx := t.Context()
	if _, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "one", UserRequest: "x", ConversationHistory: json.RawMessage(`[]`)}); err != nil {
		t.Fatal(err)
	}
	res, err := e.ForkSession(ctx, ForkRequest{SessionID: "one", Error: "boom"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Parent.Seq != 1 || len(res.Warnings) != 1 || !strings.Contains(string(res.Checkpoint.ConversationHistory), "boom") {
		t.Errorf("fork: %+v", res)
	}
}

// TestCustomStateDirIsNotGathered moves the state directory inside the
// workspace under another name: its checkpoints (which hold conversation
// histories) must never be gathered, in a git workspace and outside git.
func TestCustomStateDirIsNotGathered(t *testing.T) {
	for _, git := range []bool{true, false} {
		name := "plain"
		if git {
			name = "git"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteFiles(t, dir, sessionRepo)
			if git {
				testutil.GitCommitAll(t, dir)
			}
			root, err := filepath.EvalSymlinks(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv(EnvStateDir, "agent-state")
			e := newEngine(t, root)
			if got := e.StateDir(); got != filepath.Join(root, "agent-state") {
				t.Fatalf("state dir %s", got)
			}
			ctx := t.Context()
			if _, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "secret", UserRequest: "x", ConversationHistory: chatHistory(t, "the password is hunter2")}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(root, "agent-state", "sessions", "secret", "000001.json")); err != nil {
				t.Fatal(err)
			}
			env, err := e.BuildPrompt(ctx, PromptRequest{UserRequest: "what is the password hunter2 in the session checkpoint json", Patterns: []string{"**"}, SessionID: "secret"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range env.Context.Chunks {
				if strings.HasPrefix(c.Source, "agent-state/") || strings.Contains(c.Content, "hunter2") {
					t.Errorf("gathered %s from the state directory", c.Source)
				}
			}
			if strings.Contains(env.Prompt, "hunter2\"") {
				t.Error("the prompt holds the checkpoint's history")
			}
		})
	}
}

// TestFailedBuildPromptSavesNoCheckpoint: a ctx/buildPrompt naming a
// session that fails (cancelled before it starts, cancelled while the
// prompt is assembled, right before the checkpoint would be written, or a
// bad parameter) answers an error and leaves no checkpoint: the client
// never saw an envelope, so none may be recorded.
func TestFailedBuildPromptSavesNoCheckpoint(t *testing.T) {
	tests := []struct {
		name     string
		req      PromptRequest
		cancelAt string // progress stage to cancel at; "start" cancels first
	}{
		{"cancelled before", PromptRequest{UserRequest: "fix Total", SessionID: "s1"}, "start"},
		{"cancelled while gathering", PromptRequest{UserRequest: "fix Total", SessionID: "s1"}, "gathering"},
		{"cancelled while assembling", PromptRequest{UserRequest: "fix Total", SessionID: "s1"}, "assembling"},
		{"bad budget", PromptRequest{UserRequest: "fix Total", SessionID: "s1", TokenBudget: &BudgetRequest{Total: -5}}, ""},
		{"bad format", PromptRequest{UserRequest: "fix Total", SessionID: "s1", Format: "yaml"}, ""},
		{"bad session id", PromptRequest{UserRequest: "fix Total", SessionID: "../escape"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := sessionEngine(t)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancelAt == "start" {
				cancel()
			}
			env, err := e.BuildPrompt(ctx, tt.req, func(stage string) {
				if stage == tt.cancelAt {
					cancel()
				}
			})
			if err == nil {
				t.Fatalf("no error; envelope with %d chunks", len(env.Context.Chunks))
			}
			l, lerr := e.ListSessions(t.Context(), ListRequest{})
			if lerr != nil {
				t.Fatal(lerr)
			}
			if len(l.Sessions) != 0 || len(l.Problems) != 0 {
				t.Errorf("failed request (%v) left sessions %+v, problems %+v", err, l.Sessions, l.Problems)
			}
			if _, err := os.Stat(filepath.Join(e.StateDir(), "sessions", tt.req.SessionID)); !errors.Is(err, os.ErrNotExist) && tt.req.SessionID != "../escape" {
				t.Errorf("session directory: %v", err)
			}
		})
	}
}

// TestResumeKeepsTheBuildsBudget: a resumed session rebuilds with the
// budget its build planned by. A request shorter than its share left the
// rest to the context, and so does the rebuild (it planned with the
// recorded parts as if the caller had set them: 2,000 of the build's
// 2,338 at a total of 4,000); parts the caller set stay as set.
func TestResumeKeepsTheBuildsBudget(t *testing.T) {
	tests := []struct {
		name  string
		br    *BudgetRequest
		spare bool
	}{
		{"total only", &BudgetRequest{Total: 4000}, true},
		{"no budget", nil, true},
		{"parts set", &BudgetRequest{System: 200, Context: 3000, UserRequest: 400, Response: 400}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := sessionEngine(t)
			ctx := t.Context()
			env, err := e.BuildPrompt(ctx, PromptRequest{
				UserRequest: "refactor the cart pricing",
				SessionID:   "s1",
				TokenBudget: tt.br,
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := env.Context.Budget > env.TokenBudget.Context; got != tt.spare {
				t.Fatalf("the build's context budget %d, its share %d: spare moved %v, want %v", env.Context.Budget, env.TokenBudget.Context, got, tt.spare)
			}
			res, err := e.ResumeSession(ctx, ResumeRequest{SessionID: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Envelope == nil {
				t.Fatalf("no envelope: %v", res.Warnings)
			}
			if res.Envelope.Context.Budget != env.Context.Budget || res.Envelope.TokenBudget != env.TokenBudget {
				t.Errorf("resume planned context %d of %+v, the build %d of %+v", res.Envelope.Context.Budget, res.Envelope.TokenBudget, env.Context.Budget, env.TokenBudget)
			}
		})
	}
}

// TestResumeDropsAMalformedPosition: a checkpoint whose open file has a
// cursor or selection that names no line (written before positions were
// checked, or brought from elsewhere) resumes with the file still open
// and the position dropped, rather than failing the check a new request
// gets (open_files[0] ...: line -4: line numbers start at 1).
func TestResumeDropsAMalformedPosition(t *testing.T) {
	e, _ := sessionEngine(t)
	ctx := t.Context()
	env, err := e.BuildPrompt(ctx, PromptRequest{
		UserRequest: "refactor the cart pricing",
		SessionID:   "s-good",
		OpenFiles:   []ctxd.OpenFile{{Path: "cart/cart.go", Line: 14}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := chunkOf(env, "cart/cart.go")
	if c == nil || !c.Facts.Open {
		t.Fatalf("cart.go is not open in the build: %+v", c)
	}
	c.Facts.Cursor = -4
	c.Facts.Selection = &ctxd.LineRange{Start: 9, End: 3}
	if _, err := e.SaveCheckpoint(ctx, SaveRequest{SessionID: "s-bad", UserRequest: "refactor the cart pricing", State: "running", Envelope: env}); err != nil {
		t.Fatal(err)
	}
	res, err := e.ResumeSession(ctx, ResumeRequest{SessionID: "s-bad"})
	if err != nil {
		t.Fatalf("resume of a checkpoint with a malformed position: %v", err)
	}
	if res.Envelope == nil {
		t.Fatalf("no envelope: %v", res.Warnings)
	}
	c = chunkOf(res.Envelope, "cart/cart.go")
	if c == nil || !c.Facts.Open || c.Facts.Cursor != 0 || c.Facts.Selection != nil {
		t.Errorf("cart.go after resume: %+v, want open with no cursor or selection", c)
	}
	// A new request with the same position is refused.
	_, err = e.BuildPrompt(ctx, PromptRequest{UserRequest: "x", OpenFiles: []ctxd.OpenFile{{Path: "cart/cart.go", Line: -4}}}, nil)
	if !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(err.Error(), "open_files[0] cart/cart.go: line -4: line numbers start at 1") {
		t.Errorf("a request with line -4: %v, want invalid params naming the line", err)
	}
}
