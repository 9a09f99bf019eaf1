package smart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestHardBudget: a request several times its window fits after
// optimize, in every format: tool pairs intact, the system prompt and
// the latest user message byte-identical, and every reference in the
// output rehydrates byte for byte to the text it replaced.
func TestHardBudget(t *testing.T) {
	testutil.NoRace(t) // one goroutine: TestConcurrentOptimize is the race test
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			store := newStore(t)
			o := New(Options{Store: store})
			msgs := history(24)
			// Long assistant prose, which only the hard budget reduces.
			for i := range msgs {
				if msgs[i].Role == "assistant" {
					msgs[i].Text += " " + strings.Repeat("I considered the parser's error path and the lexer's state machine. ", 12)
				}
			}
			in := body(f, msgs)
			res := optimize(t, o, in, Call{Session: "s", ContextWindow: 8000})
			rep := res.Report
			if !rep.Fits || rep.EstimatedTokensAfter > *rep.EffectiveUsableTokens {
				t.Fatalf("does not fit: %d tokens, usable %d", rep.EstimatedTokensAfter, *rep.EffectiveUsableTokens)
			}
			a, _ := request.Parse(in, f)
			b := paired(t, res.Body, f)
			if len(a.Items) != len(b.Items) {
				t.Fatalf("%d items, want %d", len(b.Items), len(a.Items))
			}
			last := -1
			for i, it := range a.Items {
				if it.Role() == "user" {
					last = i
				}
				if it.Role() == "system" || it.Role() == "developer" {
					if !bytes.Equal(it.Raw(), b.Items[i].Raw()) {
						t.Errorf("system message %d changed", i)
					}
				}
			}
			if !bytes.Equal(a.Items[last].Raw(), b.Items[last].Raw()) {
				t.Error("the latest user message changed")
			}
			for k := range a.Fixed {
				if a.Fixed[k].Text != b.Fixed[k].Text {
					t.Errorf("fixed part %d changed", k)
				}
			}
			refs := 0
			for i, it := range b.Items {
				for j, s := range it.Segments {
					for _, m := range request.ParseMarkers(s.Text) {
						refs++
						got, _, err := store.Get(t.Context(), "s", m.Hash)
						if err != nil {
							t.Fatalf("item %d: reference %s: %v", i, m.Hash, err)
						}
						if string(got) != a.Items[i].Segments[j].Text {
							t.Fatalf("item %d segment %d: reference %s does not rehydrate to the replaced text", i, j, m.Hash)
						}
					}
				}
			}
			if refs == 0 {
				t.Error("no references")
			}
		})
	}
}

// TestOverBudgetAtMinimum: a latest user message larger than the window
// cannot fit however the rest is reduced: a clear error in a live call;
// shadow mode still returns the original.
func TestOverBudgetAtMinimum(t *testing.T) {
	msgs := history(4)
	msgs[len(msgs)-1] = convo.User("Please review this: " + strings.Repeat("the quick brown fox jumps over the lazy dog ", 1500))
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			in := body(f, msgs)
			o := New(Options{Store: newStore(t)})
			_, err := o.Optimize(t.Context(), in, Call{Session: "s", ContextWindow: 8000})
			if !errors.Is(err, ctxd.ErrOverBudget) || !strings.Contains(err.Error(), "protocol-exact minimum") {
				t.Fatalf("got %v, want an over-budget error naming the minimum", err)
			}
			checkUsableArithmetic(t, err.Error())
			res := optimize(t, o, in, Call{Session: "s", ContextWindow: 8000, Mode: ModeShadow})
			if !bytes.Equal(res.Body, in) || res.Report.Fits {
				t.Errorf("shadow: changed %v, fits %v", !bytes.Equal(res.Body, in), res.Report.Fits)
			}
		})
	}
}

// TestTextReferencesFailClosed: a reference in a message text (a
// pruner's summary, a message the hard budget reduced) that the session
// cannot resolve fails a live call closed, like one in a tool output.
func TestTextReferencesFailClosed(t *testing.T) {
	msgs := history(2)
	msgs = append(msgs[:len(msgs)-1], convo.Assistant("Earlier: "+request.NewMarker(request.MarkerRef, strings.Repeat("ab", 32), 10, 1, "evicted messages")), msgs[len(msgs)-1])
	for _, f := range request.Formats {
		_, err := New(Options{Store: newStore(t)}).Optimize(t.Context(), body(f, msgs), Call{Session: "s"})
		if !errors.Is(err, request.ErrUnresolvedReference) {
			t.Errorf("%s: %v, want a fail-closed error", f, err)
		}
	}
}

// TestHardBudgetEvicts: when even references leave the request over (here
// the tool calls themselves, long heredoc commands, outweigh the window),
// optimize evicts older rounds behind a summary, as compress does: the
// result fits, pairs, keeps the system prompt, the latest user message and
// the fixed parts byte for byte, and what left is recoverable: every
// reference resolves, and each evicted command is in a resolved artifact.
func TestHardBudgetEvicts(t *testing.T) {
	testutil.NoRace(t) // one goroutine: TestConcurrentOptimize is the race test
	msgs := history(24)
	var cmds []string
	for i := range msgs {
		for k := range msgs[i].Calls {
			cmd := fmt.Sprintf("cat > pkg/gen%d.go <<'EOF'\n%sEOF", i, strings.Repeat(fmt.Sprintf("// generated line for step %d of the fixture\n", i), 40))
			b, _ := json.Marshal(map[string]string{"command": cmd})
			msgs[i].Calls[k].Args = string(b)
			cmds = append(cmds, fmt.Sprintf("generated line for step %d of", i))
		}
	}
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			store := newStore(t)
			o := New(Options{Store: store})
			in := body(f, msgs)
			res := optimize(t, o, in, Call{Session: "s", ContextWindow: 8000})
			rep := res.Report
			if !rep.Fits || rep.EstimatedTokensAfter > *rep.EffectiveUsableTokens {
				t.Fatalf("does not fit: %d tokens, usable %d", rep.EstimatedTokensAfter, *rep.EffectiveUsableTokens)
			}
			if !slices.ContainsFunc(rep.PolicyReasons, func(s string) bool { return strings.HasPrefix(s, "hard_budget_evicted_") }) {
				t.Errorf("policy reasons %q name no eviction", rep.PolicyReasons)
			}
			a, _ := request.Parse(in, f)
			b := paired(t, res.Body, f)
			has := func(raw []byte) bool {
				return slices.ContainsFunc(b.Items, func(it *request.Item) bool { return bytes.Equal(it.Raw(), raw) })
			}
			last := -1
			for i, it := range a.Items {
				if it.Role() == "user" {
					last = i
				}
				if (it.Role() == "system" || it.Role() == "developer") && !has(it.Raw()) {
					t.Errorf("system message %d changed", i)
				}
			}
			if !has(a.Items[last].Raw()) {
				t.Error("the latest user message changed")
			}
			for k := range a.Fixed {
				if a.Fixed[k].Text != b.Fixed[k].Text {
					t.Errorf("fixed part %d changed", k)
				}
			}
			var all strings.Builder
			all.Write(res.Body)
			for _, it := range b.Items {
				for _, s := range it.Segments {
					for _, m := range request.ParseMarkers(s.Text) {
						got, _, err := store.Get(t.Context(), "s", m.Hash)
						if err != nil {
							t.Fatalf("reference %s: %v", m.Hash, err)
						}
						all.Write(got)
					}
				}
			}
			for _, c := range cmds {
				if !strings.Contains(all.String(), c) {
					t.Errorf("evicted command %q is neither in the output nor behind a reference", c)
				}
			}
		})
	}
}

// TestHardBudgetKeepsTaskMessage: in an agent loop the task is the latest
// user message for the whole run: every later user-role item carries
// only tool results (Anthropic Messages) or there is none (Chat,
// Responses). Under the hard budget the task stays byte for byte in
// every format, as compress keeps it (found on the mini-SWE-agent
// trajectories of the development corpus: optimize reduced the task to
// its reference at 16k and 32k in Anthropic Messages).
func TestHardBudgetKeepsTaskMessage(t *testing.T) {
	msgs := history(24)
	msgs = msgs[:len(msgs)-1] // the run ends on a tool result
	for i := range msgs {
		if msgs[i].Role == "assistant" {
			msgs[i].Text += " " + strings.Repeat("I considered the parser's error path and the lexer's state machine. ", 12)
		}
	}
	msgs[1] = convo.User("<pr_description>\n" + strings.Repeat("The parser drops the last token when the input ends without a newline. ", 30) + "\n</pr_description>")
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			in := body(f, msgs)
			res := optimize(t, New(Options{Store: newStore(t)}), in, Call{Session: "s", ContextWindow: 8000})
			if !res.Report.Fits {
				t.Fatalf("does not fit: %d tokens, usable %d", res.Report.EstimatedTokensAfter, *res.Report.EffectiveUsableTokens)
			}
			a, _ := request.Parse(in, f)
			b := parsed(t, res.Body, f)
			task := -1
			for i, it := range a.Items {
				if it.Role() == "user" && hasUserText(it) {
					task = i
				}
			}
			if task < 0 || !strings.Contains(string(a.Items[task].Raw()), "pr_description") {
				t.Fatalf("the task is not the latest user message (item %d)", task)
			}
			if !slices.ContainsFunc(b.Items, func(it *request.Item) bool { return bytes.Equal(it.Raw(), a.Items[task].Raw()) }) {
				t.Error("the task message changed")
			}
		})
	}
}

// TestSupersededSourceRead: below pressure, the read of a module that
// raises and catches errors, which a later call edits, goes behind its
// reference even among the latest outputs: a file read's output is the
// file's text, error output only when it reports a failure (compress
// judges it the same way). The reference rehydrates byte for byte.
func TestSupersededSourceRead(t *testing.T) {
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "%4d\tdef lookup_%d(table, key):\n%4d\t    try:\n%4d\t        return table[key]\n%4d\t    except KeyError:\n%4d\t        raise ValueError(\"no key %%r\" %% key)\n", 5*i+1, i, 5*i+2, 5*i+3, 5*i+4, 5*i+5)
	}
	src := sb.String()
	call := func(id, cmd string) convo.Call {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return convo.Call{ID: id, Name: "bash", Args: string(b)}
	}
	msgs := []convo.Msg{
		convo.System("You are a coding agent."), convo.User("Use LookupError in errors.py."),
		convo.Assistant("Read it.", call("c1", "nl -ba errors.py | sed -n '1,200p'")), convo.Tool("c1", "bash", src, false),
		convo.Assistant("Edit it.", call("c2", "sed -i 's/KeyError/LookupError/' errors.py")), convo.Tool("c2", "bash", "", false),
	}
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			store := newStore(t)
			res := optimize(t, New(Options{Store: store}), body(f, msgs), Call{Session: "s", ContextWindow: 128000})
			b := parsed(t, res.Body, f)
			found := false
			for _, it := range b.Items {
				for _, s := range it.Segments {
					if s.Kind != request.SegToolResult || s.CallID() != "c1" {
						continue
					}
					ms := request.ParseMarkers(s.Text)
					if len(ms) != 1 {
						t.Fatalf("the superseded read is not behind a reference: %+v", res.Report.Segments)
					}
					got, _, err := store.Get(t.Context(), "s", ms[0].Hash)
					if err != nil || string(got) != src {
						t.Fatalf("the reference does not rehydrate the read: %v", err)
					}
					found = true
				}
			}
			if !found {
				t.Fatal("no output of c1")
			}
		})
	}
}

// checkUsableArithmetic: an over-budget error's usable tokens follow from
// the numbers it names (a user read "5888 usable tokens of the 8192-token
// window (2048 reserved for the reply)", which did not add up).
func checkUsableArithmetic(t *testing.T, msg string) {
	t.Helper()
	m := regexp.MustCompile(`the (\d+) usable tokens \(the (\d+)-token window less (\d+) reserved for the reply and a (\d+)-token safety margin(?:, over 1\+([0-9.]+) for the estimator's calibration error)?\)`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the error does not say how its usable tokens follow from the window: %s", msg)
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	want := float64(n(m[2]) - n(m[3]) - n(m[4]))
	if m[5] != "" {
		e, _ := strconv.ParseFloat(m[5], 64)
		want /= 1 + e
	}
	if got := float64(n(m[1])); math.Abs(got-want) > want*0.01+1 {
		t.Errorf("usable %v, but the named numbers give %.0f: %s", got, want, msg)
	}
}
