package prune

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
)

// sourceFile is a Python source file of about n tokens (a line is about
// 16), whose first line names it.
func sourceFile(name string, n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s: the %s module\n", name, strings.TrimSuffix(name, ".py"))
	for i := 0; sb.Len() < n*4; i++ {
		fmt.Fprintf(&sb, "def %s_step_%d(state, value):\n    return state.apply(%d, value)\n\n", strings.TrimSuffix(name, ".py"), i, i)
	}
	return sb.String()
}

// readsOver is the shape a new user met: a gpt-4 request of about 31k
// tokens (eight file reads, the last two 15k and 12k tokens) under gpt-4's
// 8,192-token window.
func readsOver() conv {
	c := conv{sys("You are a coding agent."), user("Find why the parser drops trailing commas and fix it.")}
	sizes := []int{550, 500, 450, 650, 600, 500, 15000, 12000}
	for i, n := range sizes {
		id := fmt.Sprintf("call_%d", i)
		path := fmt.Sprintf("pkg/mod%d.py", i)
		c = append(c, asst("", rd(id, path)), tool(id, "read_file", sourceFile(fmt.Sprintf("mod%d.py", i), n)))
	}
	return c
}

// TestRefillUsesTheBudget: when the degrade ladder had to condense every
// output (the open pair's too) and that left most of the budget unused,
// the newest condensed outputs are condensed again, larger, until the
// budget is used: the newest read's head is in view, not 500 characters
// of it.
func TestRefillUsesTheBudget(t *testing.T) {
	c := readsOver()
	newest := c[len(c)-1].text
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			body := render(f, "gpt-4", c)
			opts := Options{Model: "gpt-4", Store: openStore(t, t.TempDir(), artifacts.Options{}), Session: "s"}
			got, rep, err := Compress(t.Context(), body, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, body, got, rep, opts)
			t.Logf("before %d after %d budget %d", rep.TokensBefore, rep.TokensAfter, rep.Budget)
			if !rep.Fits || rep.TokensAfter > rep.Budget {
				t.Fatalf("fits=%v: %d tokens for a budget of %d", rep.Fits, rep.TokensAfter, rep.Budget)
			}
			if rep.TokensAfter < rep.Budget*3/4 {
				t.Errorf("%d tokens for a budget of %d: the ladder's room was not refilled", rep.TokensAfter, rep.Budget)
			}
			head := newest[:strings.Index(newest, "mod7_step_40(")]
			if !strings.Contains(string(got), jsonStr(head)[1:len(jsonStr(head))-1]) {
				t.Errorf("the newest read's first 40 functions are not in view")
			}
		})
	}
}
