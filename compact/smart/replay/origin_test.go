package replay

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
)

// TestDistinctSignalOrigin is the classifier of the distinct measure
// (origin.go): error lines and failing tests count from outputs of
// commands that ran something, not from file views and searches; paths
// and locations count from every output; each distinct signal once.
func TestDistinctSignalOrigin(t *testing.T) {
	traceback := "Traceback (most recent call last):\n  File \"/testbed/repro.py\", line 3, in <module>\n    raise ValueError(\"bad unit\")\nValueError: bad unit\n"
	pytest := "============================= test session starts ==============================\ncollected 2 items\n\ntests/test_units.py .F                                                   [100%]\n\n=================================== FAILURES ===================================\n______________________________ test_parse_unit _______________________________\n\n    def test_parse_unit():\n>       assert parse('km') == 1000\nE       AssertionError: assert 1 == 1000\n\ntests/test_units.py:12: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_units.py::test_parse_unit - AssertionError: assert 1 == 1000\n========================= 1 failed, 1 passed in 0.05s ==========================\n"
	gotest := "--- FAIL: TestParse (0.00s)\n    parse_test.go:14: Parse(\"km\") = 1, want 1000\nFAIL\nFAIL\texample.com/units\t0.002s\nFAIL\n"
	source := "class UnitError(ValueError):\n    pass\n\n\ndef parse(s):\n    if not s:\n        raise ValueError(\"empty unit\")\n    return UNITS[s]\n"
	grep := "units/core.py:41:        raise UnitError(\"unknown unit\")\nunits/core.py:88:    except UnitError as error:\nunits/format.py:12:# error handling lives in core\n"
	for _, tc := range []struct {
		name, tool, command, output string
		errors                      bool // error lines or failing tests counted
		locations                   []string
	}{
		{"traceback of a script", "bash", "cd /testbed && python repro.py", traceback, true, nil},
		{"pytest failure", "bash", "python -m pytest tests/test_units.py -q 2>&1 | tail -20", pytest, true, nil},
		{"go test failure", "bash", "go test ./...", gotest, true, nil},
		{"cat of a file that raises", "bash", "cat units/core.py", source, false, nil},
		{"numbered view", "bash", "nl -ba units/core.py | sed -n '30,60p'", source, false, nil},
		{"SWE-agent open", "open", "open units/core.py", source, false, nil},
		{"grep with error hits", "bash", `grep -rn "error\|Error" units/`, grep, false, []string{"units/core.py:41", "units/core.py:88", "units/format.py:12"}},
		{"editor view", "str_replace_editor", "view", source, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"command": tc.command})
			if tc.tool == "str_replace_editor" {
				args, _ = json.Marshal(map[string]string{"command": tc.command, "path": "/testbed/units/core.py"})
			}
			body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{
				map[string]any{"role": "user", "content": "fix the unit parser"},
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": tc.tool, "arguments": string(args)}}}},
				map[string]any{"role": "tool", "tool_call_id": "c1", "content": tc.output},
				// The same output again: counted once in the distinct measure.
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": tc.tool, "arguments": string(args)}}}},
				map[string]any{"role": "tool", "tool_call_id": "c2", "content": tc.output},
			}})
			r, err := request.Parse(body, request.FormatChat)
			if err != nil {
				t.Fatal(err)
			}
			st := CheckSignals(r, r, func(string) ([]byte, error) { return nil, nil }, tc.name)
			errs := st.Distinct.Kinds["error"]
			if got := errs != nil && errs.Total > 0; got != tc.errors {
				t.Errorf("error lines counted: %v, want %v (%+v)", got, tc.errors, errs)
			}
			if old := st.Kinds["error"]; tc.errors && (old == nil || old.Total != 2*errs.Total) {
				t.Errorf("every-occurrence measure: %+v, want twice the distinct %d", old, errs.Total)
			}
			if st.Distinct.Visible != st.Distinct.Total {
				t.Errorf("distinct: %d of %d visible in an unchanged request", st.Distinct.Visible, st.Distinct.Total)
			}
			for _, loc := range tc.locations {
				if !slices.Contains(st.Distinct.Counted, "location: "+loc) {
					t.Errorf("location %s not counted: %q", loc, st.Distinct.Counted)
				}
			}
			if !tc.errors && st.Kinds["error"] == nil {
				t.Errorf("the every-occurrence measure counts no error line either: the case does not exercise the rule")
			}
		})
	}
}

// A location list ("a.py:3,17,40", as masked views write them) makes
// each of its locations visible.
func TestListedLocationsVisible(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{
		map[string]any{"role": "user", "content": "where is parse called?"},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"command":"grep -n parse units/*.py"}`}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "units/core.py:3:def parse(s):\nunits/core.py:17:    parse(x)\nunits/core.py:40:    parse(y)\nunits/io.py:9:    parse(z)\n"},
	}})
	masked := strings.Replace(string(body), `units/core.py:3:def parse(s):\nunits/core.py:17:    parse(x)\nunits/core.py:40:    parse(y)\nunits/io.py:9:    parse(z)\n`, `locations: units/core.py:3,17 units/io.py:9`, 1)
	in, err := request.Parse(body, request.FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	out, err := request.Parse([]byte(masked), request.FormatChat)
	if err != nil {
		t.Fatal(err)
	}
	st := CheckSignals(in, out, func(string) ([]byte, error) { return nil, errors.New("no store") }, "test")
	want := []string{"location: units/core.py:3", "location: units/core.py:17", "location: units/core.py:40", "location: units/io.py:9"}
	if !slices.Equal(st.Distinct.Counted, want) {
		t.Fatalf("counted %q, want %q", st.Distinct.Counted, want)
	}
	if st.Distinct.Visible != 3 || !slices.Equal(st.Distinct.Hidden, nil) || st.Distinct.Recovered != 3 {
		t.Errorf("visible %d, recovered %d of %d (hidden %q); want 3 (units/core.py:40 is not listed)", st.Distinct.Visible, st.Distinct.Recovered, st.Distinct.Total, st.Distinct.Hidden)
	}
}
