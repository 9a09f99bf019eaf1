package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/replay/convert"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/proxy"
)

// agentTrajectory is an agent session written for the test (in
// mini-SWE-agent's shape): rounds tool calls with long outputs, a user
// message every seventh round, ending with the assistant's last call.
func agentTrajectory(t *testing.T, rounds int) *convert.Trajectory {
	t.Helper()
	msgs := []any{
		map[string]any{"role": "system", "content": "You are a coding agent."},
		map[string]any{"role": "user", "content": "Fix the failing tests in pkg."},
	}
	for i := range rounds {
		if i > 0 && i%7 == 0 {
			msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("Also check pkg%d.", i)})
		}
		id := fmt.Sprintf("call_%d", i)
		out := strings.Join(strings.SplitAfter(testutil.ToolOutput(i), "\n")[:150], "")
		if i%3 == 0 {
			out += fmt.Sprintf("--- FAIL: TestCart%d (0.00s)\n    cart_test.go:%d: got 90, want 85\nFAIL\n", i, 10+i)
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": fmt.Sprintf("Step %d.", i), "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": fmt.Sprintf(`{"command":"go test ./pkg%d"}`, i)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": out})
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "Done."})
	b, err := json.Marshal(map[string]any{"messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := convert.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// sessionThroughProxy renders a trajectory's requests in a format and
// starts a proxy (the defaults) to a fake upstream for them.
func sessionThroughProxy(t *testing.T, tr *convert.Trajectory, name string) (request.Format, [][]byte, *upstream, *httptest.Server) {
	t.Helper()
	format, err := request.ParseFormat(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tr.Session("stable-"+name, format, "gpt-4o", 0)
	if err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t)
	px, _ := startProxy(t, up, setup{})
	return format, s.Requests(), up, px
}

// resultsFrom counts the tool outputs of r whose item ends after byte at.
func resultsFrom(r *request.Request, at int) int {
	n := 0
	for _, it := range r.Items {
		if it.Span().End > at {
			n += len(it.Results())
		}
	}
	return n
}

// forwardedOutputs are a forwarded request's tool outputs by call id.
func forwardedOutputs(r *request.Request) map[string]string {
	m := map[string]string{}
	for _, it := range r.Items {
		for _, s := range it.Segments {
			if s.Kind == request.SegToolResult {
				m[s.CallID()] = s.Text
			}
		}
	}
	return m
}

// Cache-stable by contract: within a session, what went upstream last
// turn goes again byte for byte this turn, up to the new messages,
// unless a masking step is due (a turn that masks an output the last one
// forwarded whole or condensed: with the default paced step of 1 a step
// may come at any output, where its rewrite pays); a masked output is never whole
// again; a step after the first rewrites no more than the latest two
// outputs (each output of this session is a large test log, masked one
// output old: a step a turn, each cheap); and masking does mask (the
// session ends smaller, every critical line still inline).
func TestForwardedPrefixIsStable(t *testing.T) {
	tr := agentTrajectory(t, 30)
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			format, reqs, up, px := sessionThroughProxy(t, tr, f.name)
			var prev *request.Request
			steps := 0
			for k, body := range reqs {
				if resp, answer := post(t, px.URL, f.path, body, nil); resp.StatusCode != http.StatusOK {
					t.Fatalf("turn %d: status %d: %s", k+1, resp.StatusCode, answer)
				}
				got, err := request.Parse(up.last(t).Body, format)
				if err != nil {
					t.Fatalf("turn %d: %v", k+1, err)
				}
				if prev != nil {
					end := prev.Items[len(prev.Items)-1].Span().End
					prefix := len(got.Body) >= end && bytes.Equal(got.Body[:end], prev.Body[:end])
					before, now := forwardedOutputs(prev), forwardedOutputs(got)
					step := false // an output forwarded last turn changed: masked now
					for id, text := range now {
						was, ok := before[id]
						if request.HasMarker(was) && !request.HasMarker(text) {
							t.Errorf("turn %d: output %s was masked, now whole again", k+1, id)
						}
						if ok && was != text {
							step = true
							if !request.HasMarker(text) {
								t.Errorf("turn %d: output %s changed, not to a masked view", k+1, id)
							}
						}
					}
					switch {
					case !step && !prefix:
						t.Errorf("turn %d (no output newly masked): the forwarded body does not start with the previous one", k+1)
					case !prefix:
						steps++
						// After the first, a step rewrites little: the
						// outputs forwarded last turn from its first
						// change on are at most the latest two.
						i := 0
						for i < end && i < len(got.Body) && got.Body[i] == prev.Body[i] {
							i++
						}
						if n := resultsFrom(prev, i); steps > 1 && n > 2 {
							t.Errorf("turn %d: a masking step rewrote %d of the outputs forwarded last turn", k+1, n)
						}
					}
				}
				prev = got
			}
			if steps == 0 {
				t.Errorf("%d masking steps over 30 outputs", steps)
			}
			last := reqs[len(reqs)-1]
			fwd := up.last(t).Body
			if len(fwd) >= len(last)*3/4 || !bytes.Contains(fwd, []byte("[ctxd:ref sha256=")) {
				t.Errorf("masking saved little: %d -> %d bytes", len(last), len(fwd))
			}
			for i := 0; i < 30; i += 3 {
				if want := fmt.Sprintf("cart_test.go:%d: got 90, want 85", 10+i); !bytes.Contains(fwd, []byte(want)) {
					t.Errorf("critical line %q not inline", want)
				}
			}
		})
	}
}

// A session shorter than the masking horizon is forwarded byte for byte.
func TestShortSessionUntouched(t *testing.T) {
	tr := agentTrajectory(t, proxy.DefaultMaskHorizon)
	for _, f := range formats {
		_, reqs, up, px := sessionThroughProxy(t, tr, f.name)
		for k, body := range reqs {
			post(t, px.URL, f.path, body, nil)
			if !bytes.Equal(up.last(t).Body, body) {
				t.Errorf("%s turn %d: a session within the horizon was rewritten", f.name, k+1)
			}
		}
	}
}

// Anthropic cache_control breakpoints stay where the agent put them: on
// the same blocks, as many, when older outputs are masked.
func TestCacheControlStays(t *testing.T) {
	s, err := agentTrajectory(t, 24).Session("cc", request.FormatAnthropic, "claude-sonnet-4.5", 0)
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	var v map[string]any
	if err := json.Unmarshal(reqs[len(reqs)-1], &v); err != nil {
		t.Fatal(err)
	}
	msgs := v["messages"].([]any)
	marked := []int{2, len(msgs) / 2, len(msgs) - 1} // an old tool result, a middle one, the latest
	for _, i := range marked {
		m := msgs[i].(map[string]any)
		blocks, ok := m["content"].([]any)
		if !ok {
			blocks = []any{map[string]any{"type": "text", "text": m["content"]}}
		}
		blocks[len(blocks)-1].(map[string]any)["cache_control"] = map[string]any{"type": "ephemeral"}
		m["content"] = blocks
	}
	body, _ := json.Marshal(v)
	up := newUpstream(t)
	px, _ := startProxy(t, up, setup{})
	post(t, px.URL, proxy.RouteMessages, body, nil)
	fwd := up.last(t).Body
	if len(fwd) >= len(body) {
		t.Fatalf("nothing masked: %d -> %d bytes", len(body), len(fwd))
	}
	var out map[string]any
	if err := json.Unmarshal(fwd, &out); err != nil {
		t.Fatal(err)
	}
	omsgs := out["messages"].([]any)
	if len(omsgs) != len(msgs) || bytes.Count(fwd, []byte(`"cache_control"`)) != len(marked) {
		t.Fatalf("%d messages (want %d), %d breakpoints (want %d)", len(omsgs), len(msgs), bytes.Count(fwd, []byte(`"cache_control"`)), len(marked))
	}
	for _, i := range marked {
		blocks := omsgs[i].(map[string]any)["content"].([]any)
		if _, ok := blocks[len(blocks)-1].(map[string]any)["cache_control"]; !ok {
			t.Errorf("message %d lost its breakpoint", i)
		}
	}
}

// OpenAI's prompt_cache_key (and any top-level field) passes through
// byte for byte when the outputs are masked.
func TestPromptCacheKeyPassesThrough(t *testing.T) {
	s, err := agentTrajectory(t, 24).Session("key", request.FormatChat, "gpt-4o", 0)
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	body := append([]byte(`{"prompt_cache_key":"agent-7 \u00e9",`), reqs[len(reqs)-1][1:]...)
	up := newUpstream(t)
	px, _ := startProxy(t, up, setup{})
	post(t, px.URL, proxy.RouteChat, body, nil)
	fwd := up.last(t).Body
	if len(fwd) >= len(body) || !bytes.HasPrefix(fwd, []byte(`{"prompt_cache_key":"agent-7 \u00e9",`)) {
		t.Errorf("masked %v, key kept %v", len(fwd) < len(body), bytes.HasPrefix(fwd, []byte(`{"prompt_cache_key":"agent-7 \u00e9",`)))
	}
}
