package prune

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
)

func bash(id, cmd string) call {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return call{id: id, name: "bash", args: string(b)}
}

// TestSupersededReadsBelowBudget: far below the budget, a file read that
// a later call edits or reads again becomes a reference whose text the
// store gives back byte for byte; the last read of each file, reads of
// other lines, error output and the latest turn stay as they were; the
// source of a module that raises errors is a read like any other.
func TestSupersededReadsBelowBudget(t *testing.T) {
	src := func(v string) string {
		var sb strings.Builder
		for i := range 60 {
			fmt.Fprintf(&sb, "%4d\tdef handler_%d(request):  # %s\n", i+1, i, v)
		}
		return sb.String()
	}
	var rb strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rb, "%4d\tdef lookup_%d(table, key):\n%4d\t    try:\n%4d\t        return table[key]\n%4d\t    except KeyError:\n%4d\t        raise ValueError(\"no key %%r\" %% key)\n", 5*i+1, i, 5*i+2, 5*i+3, 5*i+4, 5*i+5)
	}
	raising := rb.String()
	c := conv{
		sys("You are a coding agent."), user("Fix the crash in app.py."),
		asst("", bash("c1", "nl -ba app.py | sed -n '1,60p'")), tool("c1", "bash", src("v1")),
		asst("", bash("c2", "cat util.py")), tool("c2", "bash", src("util")),
		asst("", bash("c3", "sed -i 's/request/req/' app.py")), tool("c3", "bash", ""),
		asst("", bash("c4", "nl -ba app.py | sed -n '1,60p'")), tool("c4", "bash", src("v2")),
		asst("", bash("c5", "cat util.py")), tool("c5", "bash", "Traceback (most recent call last):\n  File \"util.py\", line 3\nTypeError: bad operand\n"+src("err")),
		asst("", bash("c6", "cat util.py")), tool("c6", "bash", src("util")+"tail\n"),
		// The source of a module that raises and catches errors is not
		// error output: a later edit supersedes its read.
		asst("", bash("c7", "nl -ba errors.py | sed -n '1,60p'")), tool("c7", "bash", raising),
		asst("", bash("c8", "sed -i 's/KeyError/LookupError/' errors.py")), tool("c8", "bash", ""),
		user("Now run the tests."),
	}
	for _, f := range request.Formats {
		t.Run(string(f), func(t *testing.T) {
			store := openStore(t, t.TempDir(), artifacts.Options{Sync: true})
			body := render(f, "gpt-4o", c)
			out, rep, err := Compress(t.Context(), body, Options{Store: store, Session: "s", Budget: 100000, Retrieval: request.Retrieval{Command: true}})
			if err != nil {
				t.Fatal(err)
			}
			in, _ := request.Parse(body, f)
			got, err := request.Parse(out, f)
			if err != nil {
				t.Fatal(err)
			}
			results := func(r *request.Request) map[string]string {
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
			before, after := results(in), results(got)
			for _, id := range []string{"c1", "c2", "c7"} {
				ms := request.ParseMarkers(after[id])
				if len(ms) != 1 || !strings.Contains(after[id], "or run: ctxd rehydrate --session s ") {
					t.Fatalf("%s: superseded read not a reference with a hint: %q", id, after[id])
				}
				full, err := store.Resolve(t.Context(), "s", ms[0].Hash)
				if err != nil {
					t.Fatal(err)
				}
				text, _, err := store.Get(t.Context(), "s", full)
				if err != nil || string(text) != before[id] {
					t.Errorf("%s: the reference does not give the read back: %v", id, err)
				}
			}
			for _, id := range []string{"c4", "c5", "c6"} {
				if after[id] != before[id] {
					t.Errorf("%s changed: %q", id, after[id])
				}
			}
			if rep.TokensAfter >= rep.TokensBefore {
				t.Errorf("tokens %d -> %d", rep.TokensBefore, rep.TokensAfter)
			}
		})
	}
}
