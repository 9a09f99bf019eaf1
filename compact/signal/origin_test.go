package signal

import (
	"slices"
	"testing"
)

// TestViewCommand covers the shell command lines of the classifier.
func TestViewCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		view bool
	}{
		{"cat a.py", true},
		{"cd /testbed && nl -ba a.py | sed -n '1,40p'", true},
		{`grep -n "a|b;c" a.py`, true},
		{"git diff", true},
		{"git status && git diff HEAD", true},
		{"python repro.py", false},
		{"cd /testbed && python -m pytest -q", false},
		{"python repro.py | head -50", false},
		{"cat <<'EOF' > t.py\nimport x\nEOF\npython t.py", false},
		{"PYTHONPATH=. timeout 60 pytest tests", false},
		{"echo done", false},
		{"make build 2>&1 | tail", false},
		{"find . -name '*.py' | xargs grep -l Error", true},
	} {
		if got := viewCommand(tc.cmd); got != tc.view {
			t.Errorf("viewCommand(%q) = %v, want %v", tc.cmd, got, tc.view)
		}
	}
	if !slices.Equal(splitShell(`a "b|c" | d`), []string{`a "b|c" `, " d"}) {
		t.Errorf("splitShell: %q", splitShell(`a "b|c" | d`))
	}
}
