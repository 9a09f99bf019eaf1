package signal

import "testing"

// TestCommandKinds covers the one table: reads, searches and other views
// of shell commands and tools, and what ViewOutput and SearchCall make
// of them.
func TestCommandKinds(t *testing.T) {
	for _, tc := range []struct {
		name, args   string
		view, search bool
	}{
		{"bash", `{"command":"cat a.py"}`, true, false},
		{"bash", `{"command":"/bin/cat a.py"}`, true, false},
		{"bash", `{"command":"bat a.py"}`, true, false},
		{"bash", `{"command":"nl -ba a.py | sed -n '1,40p'"}`, true, false},
		{"bash", `{"command":"tail -n 20 log.txt"}`, true, false},
		{"bash", `{"command":"cd /testbed && grep -rn foo src"}`, true, true},
		{"bash", `{"command":"find . -name '*.py' | xargs grep -l Error"}`, true, true},
		{"bash", `{"command":"git grep -n foo"}`, true, true},
		{"bash", `{"command":"cat grep_utils.py"}`, true, false},
		{"bash", `{"command":"python t.py | grep FAIL"}`, false, false},
		{"bash", `{"raw":"rg -n foo"}`, true, true},
		{"search_dir", `{"search_term":"foo"}`, true, true},
		{"searchCode", `{"q":"foo"}`, false, true},
		{"Grep", `{"pattern":"foo"}`, true, true},
		{"open", `{"path":"a.py"}`, true, false},
		{"Read", `{"file_path":"a.py"}`, true, false},
		{"str_replace_editor", `{"command":"view","path":"a.py"}`, true, false},
		{"str_replace_editor", `{"command":"str_replace","path":"a.py"}`, false, false},
	} {
		if got := ViewOutput(tc.name, tc.args); got != tc.view {
			t.Errorf("ViewOutput(%s, %s) = %v, want %v", tc.name, tc.args, got, tc.view)
		}
		if got := SearchCall(tc.name, tc.args); got != tc.search {
			t.Errorf("SearchCall(%s, %s) = %v, want %v", tc.name, tc.args, got, tc.search)
		}
	}
	for cmd, want := range map[string]Kind{"cat": KindRead, "/usr/bin/sed": KindRead, "rg": KindSearch, "tail": KindView, "python": KindRun} {
		if got := Command(cmd); got != want {
			t.Errorf("Command(%s) = %d, want %d", cmd, got, want)
		}
	}
}
