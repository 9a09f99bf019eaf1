package smart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
)

// pySource is a Python source file of about n tokens whose first line
// names it.
func pySource(name string, n int) string {
	var sb strings.Builder
	mod := strings.TrimSuffix(name, ".py")
	fmt.Fprintf(&sb, "# %s: the %s module\n", name, mod)
	for i := 0; sb.Len() < n*4; i++ {
		fmt.Fprintf(&sb, "def %s_step_%d(state, value):\n    return state.apply(%d, value)\n\n", mod, i, i)
	}
	return sb.String()
}

// TestRefillUsesTheWindow is the shape a new user met: a gpt-4 request of
// about 31k tokens (eight file reads, the last two 15k and 12k tokens)
// in gpt-4's 8,192-token window. The hard budget reduces every output to
// its reference (the newest alone is over the window); the room that
// leaves goes back to the newest outputs, as large a view as fits, so
// the file the agent just read shows its head.
func TestRefillUsesTheWindow(t *testing.T) {
	sizes := []int{550, 500, 450, 650, 600, 500, 15000, 12000}
	msgs := []convo.Msg{convo.System("You are a coding agent."), convo.User("Find why the parser drops trailing commas and fix it.")}
	for i, n := range sizes {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, convo.Assistant("", convo.Call{ID: id, Name: "read_file", Args: fmt.Sprintf(`{"path":"pkg/mod%d.py"}`, i)}),
			convo.Tool(id, "read_file", pySource(fmt.Sprintf("mod%d.py", i), n), false))
	}
	newest := msgs[len(msgs)-1].Result.Text
	head := newest[:strings.Index(newest, "mod7_step_30(")]
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			in := convo.Body(f, "gpt-4", msgs, nil)
			res := optimize(t, New(Options{Store: newStore(t)}), in, Call{Session: "s", ContextWindow: 8192, MaskHorizon: 4, MaskStep: 2, MaskBig: 500, MaskBigHorizon: 2, MaskPaced: true, MaskLong: 2000})
			tel := res.Report.Telemetry
			t.Logf("before %d after %d usable %d", tel.EstimatedTokensBefore, tel.EstimatedTokensAfter, *tel.EffectiveUsableTokens)
			if tel.EstimatedTokensAfter > *tel.EffectiveUsableTokens {
				t.Fatalf("%d tokens after, over the %d usable", tel.EstimatedTokensAfter, *tel.EffectiveUsableTokens)
			}
			if tel.EstimatedTokensAfter < *tel.EffectiveUsableTokens*3/4 {
				t.Errorf("%d tokens after of %d usable: the hard budget's room was not refilled", tel.EstimatedTokensAfter, *tel.EffectiveUsableTokens)
			}
			out := paired(t, res.Body, f)
			got := out.Items[len(out.Items)-1].Text()
			if !strings.HasPrefix(got, head) {
				t.Errorf("the newest read's first 30 functions are not in view: %.300q", got)
			}
		})
	}
}
