package replay

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
)

// agentSession is a debugging session of n rounds: large file reads,
// failing pytest runs, greps and edits, with the assistant's reasoning.
func agentSession(n int) []convo.Msg {
	msgs := []convo.Msg{
		convo.System("You are a coding agent working in a Python repository. Use the tools to read, search, edit and test."),
		convo.User("tests/test_schema.py fails since the last release; find the cause and fix it."),
	}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		var c convo.Call
		var out string
		switch i % 4 {
		case 0:
			c = convo.Call{ID: id, Name: "read_file", Args: fmt.Sprintf(`{"path":"src/schema/fields%d.py"}`, i)}
			var sb strings.Builder
			for k := range 260 {
				fmt.Fprintf(&sb, "%d:    def serialize_%d(self, value, attr, obj):  # field %d handles %d\n", k+1, k, i, k*i)
			}
			out = sb.String()
		case 1:
			c = convo.Call{ID: id, Name: "bash", Args: `{"command":"python -m pytest tests/test_schema.py -q"}`}
			var sb strings.Builder
			for k := range 40 {
				fmt.Fprintf(&sb, "tests/test_schema.py::test_case_%d_%d PASSED\n", i, k)
			}
			fmt.Fprintf(&sb, "    def test_dump_%d():\n>       assert schema.dump(obj) == expected\nE       AssertionError: assert {'a': %d} == {'a': 1}\n\ntests/test_schema.py:%d: AssertionError\nFAILED tests/test_schema.py::test_dump_%d - AssertionError: assert {'a': %d} == {'a': 1}\n1 failed, 40 passed in 0.31s\n", i, i, 40+i, i, i)
			out = sb.String()
		case 2:
			c = convo.Call{ID: id, Name: "grep", Args: fmt.Sprintf(`{"pattern":"serialize_%d"}`, i)}
			var sb strings.Builder
			for k := range 60 {
				fmt.Fprintf(&sb, "src/schema/fields%d.py:%d:    def serialize_%d(self, value, attr, obj):\n", k, 10+k, i)
			}
			out = sb.String()
		case 3:
			c = convo.Call{ID: id, Name: "edit_file", Args: fmt.Sprintf(`{"path":"src/schema/fields%d.py","old":"return value","new":"return None if value is None else value"}`, i-3)}
			out = "The file was edited. Lines 40-44 now read:\n40:    def serialize(self, value):\n41:        return None if value is None else value\n"
		}
		msgs = append(msgs, convo.Assistant(fmt.Sprintf("Round %d: the failure points at the serializer; checking the next piece.", i), c), convo.Tool(id, c.Name, out, false))
	}
	return append(msgs, convo.User("Run the failing test once more and tell me whether it passes."))
}

// TestFormatParity: the same conversation in Chat, Anthropic Messages
// and Responses is compacted by the same share (within 5 points) by
// both compactors, at windows that press it, and every reference either
// emits rehydrates byte for byte to the text it replaced.
func TestFormatParity(t *testing.T) {
	testutil.NoRace(t) // one goroutine: compact/smart's TestConcurrentOptimize is the race test
	msgs := agentSession(32)
	for _, window := range []int{16000, 32000} {
		for _, compactor := range []string{"compress", "optimize"} {
			t.Run(fmt.Sprintf("%s-%dk", compactor, window/1000), func(t *testing.T) {
				saved := map[request.Format]float64{}
				for _, f := range request.Formats {
					body := convo.Body(f, "gpt-4o", msgs, nil)
					store, err := artifacts.Open(t.TempDir(), artifacts.Options{})
					if err != nil {
						t.Fatal(err)
					}
					var out []byte
					switch compactor {
					case "compress":
						out, _, err = prune.Compress(t.Context(), body, prune.Options{ContextWindow: window, Store: store, Session: "p"})
					default:
						var res *smart.Result
						res, err = smart.New(smart.Options{Store: store}).Optimize(t.Context(), body, smart.Call{Session: "p", ContextWindow: window})
						if res != nil {
							out = res.Body
						}
					}
					if err != nil {
						t.Fatalf("%s: %v", f, err)
					}
					in, _ := request.Parse(body, f)
					got, err := request.Parse(out, f)
					if err != nil {
						t.Fatalf("%s: %v", f, err)
					}
					c, m := tokens.ForModel("gpt-4o", window)
					est := request.NewEstimator(c, request.ImageRuleFor(m, f))
					before, after := est.Request(in), est.Request(got)
					if limit := window - min(m.MaxOutput, window/4); after > limit {
						t.Errorf("%s: %d tokens over %d", f, after, limit)
					}
					saved[f] = 100 * (1 - float64(after)/float64(before))
					rehydratesExactly(t, f, store, in, got)
				}
				lo, hi := 100.0, 0.0
				for _, v := range saved {
					lo, hi = min(lo, v), max(hi, v)
				}
				if hi-lo > 5 {
					t.Errorf("savings differ by %.1f points across formats: %v", hi-lo, saved)
				}
				t.Logf("saved %% by format: %v", saved)
			})
		}
	}
}

// rehydratesExactly checks every reference in out: it resolves in the
// store, and its text is the text of the input segment it replaced, or
// (a summary of evicted messages) holds every evicted segment's text.
func rehydratesExactly(t *testing.T, f request.Format, store *artifacts.Store, in, out *request.Request) {
	t.Helper()
	texts := map[string]bool{}
	for _, it := range in.Items {
		for _, s := range it.Segments {
			texts[s.Text] = true
		}
	}
	for _, it := range out.Items {
		for _, s := range it.Segments {
			for _, m := range request.ParseMarkers(s.Text) {
				b, _, err := store.Get(t.Context(), "p", m.Hash)
				if err != nil {
					t.Fatalf("%s: reference %s does not resolve: %v", f, m.Hash, err)
				}
				if texts[string(b)] {
					continue
				}
				if !strings.HasPrefix(string(b), "=== message ") {
					t.Fatalf("%s: reference %s rehydrates to a text that is not one it replaced", f, m.Hash)
				}
			}
		}
	}
}

// TestCrossCompactorReferences: a history compacted by compress (with
// its summary's reference) is accepted by optimize in the same session,
// and both refuse it once the artifacts are gone; so are messages the
// optimizer's hard budget reduced to references.
func TestCrossCompactorReferences(t *testing.T) {
	testutil.NoRace(t) // one goroutine: compact/smart's TestConcurrentOptimize is the race test
	msgs := agentSession(32)
	// A short session with long assistant prose: the hard budget
	// reduces the prose to references.
	short := agentSession(8)
	for i := range short {
		if short[i].Role == "assistant" {
			short[i].Text += " " + strings.Repeat("The serializer drops None before the schema sees it, so the dump differs. ", 30)
		}
	}
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			body := convo.Body(f, "gpt-4o", msgs, nil)
			dir := t.TempDir()
			store, err := artifacts.Open(dir, artifacts.Options{})
			if err != nil {
				t.Fatal(err)
			}
			compressed, rep, err := prune.Compress(t.Context(), body, prune.Options{ContextWindow: 6000, Store: store, Session: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Inserted) == 0 {
				t.Fatal("no summary: the test needs an eviction")
			}
			opt := smart.New(smart.Options{Store: store})
			optimized, err := opt.Optimize(t.Context(), compressed, smart.Call{Session: "x", ContextWindow: 16000})
			if err != nil {
				t.Fatalf("optimize of a compressed history: %v", err)
			}
			tight, err := opt.Optimize(t.Context(), convo.Body(f, "gpt-4o", short, nil), smart.Call{Session: "x", ContextWindow: 5000})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(tight.Body), "reduced to its reference") {
				t.Fatal("the hard budget reduced nothing: the test needs it")
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			for name, b := range map[string][]byte{"compressed": compressed, "optimized": optimized.Body, "tight": tight.Body} {
				if _, _, err := prune.Compress(t.Context(), b, prune.Options{ContextWindow: 6000, Store: store, Session: "x"}); !errors.Is(err, request.ErrUnresolvedReference) {
					t.Errorf("compress of the %s history without its artifacts: %v", name, err)
				}
				if _, err := smart.New(smart.Options{Store: store}).Optimize(t.Context(), b, smart.Call{Session: "x", ContextWindow: 16000}); !errors.Is(err, request.ErrUnresolvedReference) {
					t.Errorf("optimize of the %s history without its artifacts: %v", name, err)
				}
			}
		})
	}
}
