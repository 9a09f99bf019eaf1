package convert

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/replay"
	"github.com/ctxd/ctxd/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// testdata/synthetic.traj is a trajectory written for ctxd in SWE-agent's
// .traj shape (actions answered by observations); no third-party data
// is checked in.
func load(t *testing.T) *Trajectory { return loadFile(t, "synthetic.traj") }

// loadFile parses a trajectory of testdata.
func loadFile(t *testing.T, name string) *Trajectory {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkedSession converts tr in format f with a 16k window and checks
// that it has turns turns, one per assistant message, and its requests
// ([checkRequests]).
func checkedSession(t *testing.T, tr *Trajectory, name string, f request.Format, turns int) *replay.Session {
	t.Helper()
	s, err := tr.Session(name, f, "gpt-4o", 16000)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != turns {
		t.Fatalf("%s: %d turns, want one per assistant message (%d)", f, len(s.Turns), turns)
	}
	checkRequests(t, s, f)
	return s
}

// checkRequests checks that every request of s parses in format f with
// its tool calls and results paired.
func checkRequests(t *testing.T, s *replay.Session, f request.Format) {
	t.Helper()
	for k, body := range s.Requests() {
		req, err := request.Parse(body, f)
		if err != nil {
			t.Fatalf("%s turn %d: %v", f, k+1, err)
		}
		if err := req.Check(); err != nil {
			t.Fatalf("%s turn %d: tool pairs: %v", f, k+1, err)
		}
	}
}

func TestConvertSynthetic(t *testing.T) {
	testutil.NoRace(t) // the converter runs on one goroutine
	tr := load(t)
	dir := t.TempDir()
	for _, f := range request.Formats {
		s := checkedSession(t, tr, "synthetic", f, 5)
		// The second request answers the failing test run: its needs are
		// the run's critical signals.
		for _, want := range []string{"FAILED tests/test_duration.py::test_seconds - AssertionError: assert 0 == 90", "tests/test_duration.py:7"} {
			if !slices.Contains(s.Turns[1].Needs, want) {
				t.Errorf("%s: turn 2 needs %q, not in %q", f, want, s.Turns[1].Needs)
			}
		}
		b, err := json.MarshalIndent(s, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, string(f)+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f == request.FormatChat {
			testutil.Golden(t, filepath.Join("testdata", "synthetic.openai-chat.golden"), b, *update)
		}
	}
	// The replay reads what the converter writes.
	c, err := replay.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(t.Context(), c, replay.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestConvertFunctionCalling reads the function-calling shape: tool
// calls with ids, tool messages naming them.
func TestConvertFunctionCalling(t *testing.T) {
	traj := `{"history":[
	 {"role":"system","content":"sys"},
	 {"role":"user","content":[{"type":"text","text":"fix it"}]},
	 {"role":"assistant","content":"look","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},
	 {"role":"tool","content":"a.py\nb.py\n","tool_call_ids":["c1"]},
	 {"role":"assistant","content":"done","tool_calls":[{"id":"c2","type":"function","function":{"name":"submit","arguments":"{}"}}]}
	]}`
	tr, err := Parse(strings.NewReader(traj))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range request.Formats {
		s, err := tr.Session("fc", f, "gpt-4o", 32000)
		if err != nil {
			t.Fatal(err)
		}
		reqs := s.Requests()
		last, err := request.Parse(reqs[len(reqs)-1], f)
		if err != nil {
			t.Fatal(err)
		}
		if err := last.Check(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if !bytes.Contains(reqs[len(reqs)-1], []byte(`c1`)) {
			t.Errorf("%s: the call id is lost", f)
		}
	}
}

// TestConvertMiniSWEAgent reads mini-SWE-agent's shape
// (testdata/synthetic-mini.traj.json, written for ctxd): "messages" in
// Chat shape, tool messages naming their call by tool_call_id, a final
// "exit" record that is never sent; and its text mode, where a ```bash
// block is the call and the next user message its result.
func TestConvertMiniSWEAgent(t *testing.T) {
	tr := loadFile(t, "synthetic-mini.traj.json")
	for _, format := range request.Formats {
		s := checkedSession(t, tr, "mini", format, 4)
		reqs := s.Requests()
		last := reqs[len(reqs)-1]
		if bytes.Contains(last, []byte("diff --git")) {
			t.Errorf("%s: the exit record was sent to the model", format)
		}
		for _, want := range []string{"call_2", "AssertionError: assert 10 == 10240"} {
			if !bytes.Contains(last, []byte(want)) {
				t.Errorf("%s: last request lacks %q", format, want)
			}
		}
		for _, want := range []string{"FAILED sizes/test_parse.py::test_kilobytes - AssertionError: assert 10 == 10240", "sizes/test_parse.py:4"} {
			if !slices.Contains(s.Turns[2].Needs, want) {
				t.Errorf("%s: turn 3 needs %q, not in %q", format, want, s.Turns[2].Needs)
			}
		}
	}

	text := `{"messages":[
	 {"role":"system","content":"sys"},
	 {"role":"user","content":"fix it"},
	 {"role":"assistant","content":"THOUGHT: look around\n\n` + "```bash\\nls -la\\n```" + `"},
	 {"role":"user","content":"<returncode>0</returncode>\n<output>\na.py\n</output>"},
	 {"role":"assistant","content":"no command here"},
	 {"role":"user","content":"Please always provide EXACTLY ONE action"}
	]}`
	tr, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Msgs) != 6 {
		t.Fatalf("%d messages, want 6", len(tr.Msgs))
	}
	a, res := tr.Msgs[2], tr.Msgs[3]
	if len(a.Calls) != 1 || a.Calls[0].Name != "ls" || a.Calls[0].Args != `{"command":"ls -la"}` || a.Text != "THOUGHT: look around" {
		t.Errorf("bash block call = %+v, text %q", a.Calls, a.Text)
	}
	if res.Result == nil || res.Result.CallID != a.Calls[0].ID {
		t.Errorf("the next user message is not the block's result: %+v", res)
	}
	if tr.Msgs[5].Result != nil || len(tr.Msgs[4].Calls) != 0 {
		t.Errorf("a reply without a block became a call: %+v / %+v", tr.Msgs[4], tr.Msgs[5])
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `{}`, `{"history":[]}`, `{"history":[{"role":"user","content":"x"}]}`, `{"history":[{"role":"assistant","content":"x"},{"role":"tool","content":"y"}]}`, `{"history":[{"role":"user","content":5}]}`, `{"messages":[]}`, `{"messages":[{"role":"tool","content":"y"}]}`} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%q) did not fail", in)
		}
	}
}

// FuzzParse: any input parses or fails cleanly, and every session of a
// parsed trajectory renders requests that parse and pair.
func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "synthetic.traj"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"history":[{"role":"assistant","content":"x","action":"ls"},{"role":"user","content":"a"}]}`))
	mini, err := os.ReadFile(filepath.Join("testdata", "synthetic-mini.traj.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(mini)
	f.Add([]byte("{\"messages\":[{\"role\":\"assistant\",\"content\":\"```bash\\nls\\n```\"},{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"exit\",\"content\":\"d\"}]}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := Parse(bytes.NewReader(in))
		if err != nil {
			return
		}
		for _, format := range request.Formats {
			s, err := tr.Session("fuzz", format, "gpt-4o", 16000)
			if err != nil {
				return
			}
			for _, body := range s.Requests() {
				if !json.Valid(body) {
					t.Fatalf("invalid JSON request from %q", in)
				}
			}
		}
	})
}

// Chained trajectories are one conversation: one system prompt, every
// turn of each, call ids unique, every request's tool pairs intact.
func TestChain(t *testing.T) {
	a, b := load(t), loadFile(t, "synthetic-mini.traj.json")
	c := Chain(a, b, a)
	if c.Turns() != 2*a.Turns()+b.Turns() || len(c.Msgs) != 2*len(a.Msgs)+len(b.Msgs)-2 {
		t.Fatalf("%d turns, %d messages", c.Turns(), len(c.Msgs))
	}
	systems := 0
	for _, m := range c.Msgs {
		if m.Role == "system" {
			systems++
		}
	}
	if systems != 1 {
		t.Errorf("%d system messages, want 1", systems)
	}
	for _, fm := range request.Formats {
		s, err := c.Session("chain", fm, "gpt-4o", 0)
		if err != nil {
			t.Fatal(err)
		}
		checkRequests(t, s, fm)
	}
}
