package replay

import (
	"encoding/json"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
)

// The study aid's places and statuses (where.go).
func TestHiddenWhere(t *testing.T) {
	call := func(id, cmd string) map[string]any {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": string(args)}}}}
	}
	tool := func(id, out string) map[string]any {
		return map[string]any{"role": "tool", "tool_call_id": id, "content": out}
	}
	msgs := []any{
		map[string]any{"role": "user", "content": "fix the parser"},
		call("c1", "grep -rn parse units/"), tool("c1", "units/core.py:3:def parse(s):\nunits/io.py:9:    parse(z)\n"),
		call("c2", "python -m pytest tests"), tool("c2", "FAILED tests/test_units.py::test_km - AssertionError\nValueError: bad unit\n"),
		call("c3", "python repro.py"), tool("c3", "KeyError: 'km'\n"),
		call("c4", "sed -n '1,20p' units/core.py"), tool("c4", "def parse(s):\n"),
		call("c5", "python -m pytest tests"), tool("c5", "ValueError: bad unit\n"),
		call("c6", "grep -rn format units/"), tool("c6", "units/fmt.py:12:def format(x):\n"),
	}
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs})
	in, err := request.Parse(body, request.FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]*request.Segment{}
	for _, it := range in.Items {
		for j := range it.Segments {
			if s := &it.Segments[j]; s.Kind == request.SegToolCall {
				calls[s.CallID()] = s
			}
		}
	}
	latest := latestOccurrences(textSegments(in, calls))
	search := latestSearch(in, calls)
	for _, tc := range []struct{ kind, sig, want string }{
		{"location", "units/core.py:3", "touched"}, // c4 reads it later
		{"location", "units/io.py:9", "stale"},
		{"location", "units/fmt.py:12", "search"}, // the latest search's hit
		{"error", "ValueError: bad unit", "open"}, // the latest pytest still reports it
		{"error", "FAILED tests/test_units.py::test_km - AssertionError", "fixed"},
		{"error", "KeyError: 'km'", "open"}, // no later run of repro.py
	} {
		at, ok := latest[[2]string{tc.kind, tc.sig}]
		if !ok {
			t.Errorf("%s %q not counted", tc.kind, tc.sig)
			continue
		}
		if got := statusOf(tc.kind, tc.sig, at, in, calls, search); got != tc.want {
			t.Errorf("statusOf(%s %q) = %q, want %q", tc.kind, tc.sig, got, tc.want)
		}
	}
	// The pertinent column: with every output in view all pertinent
	// signals are visible; without the latest search's output its hit,
	// a pertinent location, is not (the stale io.py:9 is not counted).
	all := CheckSignals(in, in, func(string) ([]byte, error) { return nil, nil }, "t").Distinct
	if all.Pertinent < 4 || all.PertinentVisible != all.Pertinent || all.Pertinent >= all.Total {
		t.Errorf("all in view: %d of %d pertinent visible, %d signals", all.PertinentVisible, all.Pertinent, all.Total)
	}
	cut, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": append(msgs[:len(msgs)-1:len(msgs)-1], tool("c6", "(gone)"))})
	out, err := request.Parse(cut, request.FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	if got := CheckSignals(in, out, func(string) ([]byte, error) { return nil, nil }, "t").Distinct; got.Pertinent != all.Pertinent || got.PertinentVisible != all.Pertinent-1 {
		t.Errorf("latest search's hit gone: %d of %d pertinent visible, want %d of %d", got.PertinentVisible, got.Pertinent, all.Pertinent-1, all.Pertinent)
	}
	// Places: the first output rewritten as a masked view, the second
	// condensed, the third gone, the fourth as it was.
	outResults := map[string]string{"c1": "[ctxd:ref sha256=0 omitted=1-2 (masked)]", "c2": "FAILED … [ctxd:ref sha256=1]", "c4": "def parse(s):\n"}
	for _, tc := range []struct{ id, want string }{{"c1", "masked"}, {"c2", "condensed"}, {"c3", "evicted"}, {"c4", "whole"}} {
		for _, it := range in.Items {
			for j := range it.Segments {
				if s := &it.Segments[j]; s.Kind == request.SegToolResult && s.CallID() == tc.id {
					if got := placeOf(it, s, outResults, nil); got != tc.want {
						t.Errorf("placeOf(%s) = %q, want %q", tc.id, got, tc.want)
					}
				}
			}
		}
	}
}
