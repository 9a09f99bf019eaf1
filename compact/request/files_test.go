package request

import (
	"encoding/json"
	"testing"
)

func shell(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return string(b)
}

func TestReadOf(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             FileRead
		ok               bool
	}{
		{"cat", "bash", shell("cat src/app.py"), FileRead{Path: "src/app.py"}, true},
		{"cat by its path", "bash", shell("/bin/cat src/app.py"), FileRead{Path: "src/app.py"}, true},
		{"bat", "bash", shell("bat -n src/app.py"), FileRead{Path: "src/app.py"}, true},
		{"tail names no lines", "bash", shell("tail -n 20 src/app.py"), FileRead{}, false},
		{"nl piped into sed", "bash", shell("nl -ba astropy/time/core.py | sed -n '2760,2840p'"), FileRead{Path: "astropy/time/core.py", Range: "2760,2840"}, true},
		{"sed -n", "bash", shell(`sed -n "10,20p" a.go`), FileRead{Path: "a.go", Range: "10,20"}, true},
		{"head -n", "bash", shell("head -n 40 setup.cfg"), FileRead{Path: "setup.cfg", Range: "1,40"}, true},
		{"editor view", "str_replace_editor", `{"command":"view","path":"/repo/x.py","view_range":[5,30]}`, FileRead{Path: "/repo/x.py", Range: "5,30"}, true},
		{"read tool", "read_file", `{"file_path":"docs/a.md"}`, FileRead{Path: "docs/a.md"}, true},
		{"grep is not a read", "bash", shell("grep -n foo a.py"), FileRead{}, false},
		{"two files", "bash", shell("cat a.py b.py"), FileRead{}, false},
		{"redirect", "bash", shell("cat a.py > b.py"), FileRead{}, false},
		{"chain", "bash", shell("cd x && cat a.py"), FileRead{}, false},
		{"heredoc", "bash", shell("cat <<'EOF' > a.py\nx\nEOF"), FileRead{}, false},
		{"editor create", "str_replace_editor", `{"command":"create","path":"a.py","file_text":"x"}`, FileRead{}, false},
		{"not json", "bash", "cat a.py", FileRead{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadOf(tt.tool, tt.args)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ReadOf = %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		r, o string
		want bool
	}{
		{"", "", true}, {"", "1,40", true}, {"1,40", "1,40", true}, {"1,80", "20,40", true},
		{"20,40", "1,80", false}, {"1,40", "", false}, {"10,-1", "300,400", true}, {"10,-1", "1,20", false},
		{"1,40", "x", false},
	}
	for _, tt := range tests {
		if got := (FileRead{Path: "a.py", Range: tt.r}).Covers(FileRead{Path: "a.py", Range: tt.o}); got != tt.want {
			t.Errorf("%q covers %q = %v, want %v", tt.r, tt.o, got, tt.want)
		}
	}
	if (FileRead{Path: "a.py"}).Covers(FileRead{Path: "b.py"}) {
		t.Error("a read of a.py covers one of b.py")
	}
}

// editsText is edits of a call given as its argument text.
func editsText(name, argText, path string) bool {
	m := args(argText)
	return edits(name, m, shellCommand(m), path)
}

func TestEdits(t *testing.T) {
	tests := []struct {
		name, tool, args, path string
		want                   bool
	}{
		{"sed -i", "bash", shell("sed -i 's/a/b/' src/app.py"), "src/app.py", true},
		{"python write_text", "bash", shell("python - <<'PY'\nfrom pathlib import Path\np=Path('src/app.py')\np.write_text(p.read_text().replace('a','b'))\nPY"), "src/app.py", true},
		{"redirect", "bash", shell("printf 'x' > src/app.py"), "src/app.py", true},
		{"editor", "str_replace_editor", `{"command":"str_replace","path":"src/app.py","old_str":"a","new_str":"b"}`, "src/app.py", true},
		{"edit tool", "edit_file", `{"path":"src/app.py","content":"x"}`, "src/app.py", true},
		{"other file", "bash", shell("sed -i 's/a/b/' src/other.py"), "src/app.py", false},
		{"a read", "bash", shell("cat src/app.py"), "src/app.py", false},
		{"a test run", "bash", shell("pytest src/app.py"), "src/app.py", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := editsText(tt.tool, tt.args, tt.path); got != tt.want {
				t.Errorf("Edits = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSuperseded(t *testing.T) {
	calls := []Call{
		{"r1", "bash", shell("nl -ba a.py | sed -n '1,80p'")},
		{"r2", "bash", shell("cat b.py")},
		{"r3", "bash", shell("nl -ba a.py | sed -n '100,140p'")}, // other lines: r1 stays
		{"e1", "bash", shell("sed -i 's/x/y/' b.py")},            // r2 is stale
		{"r4", "bash", shell("cat a.py")},                        // all of a.py: r1 and r3
		{"r5", "bash", shell("cat a.py")},                        // the last read stays
		{"r6", "bash", shell("nl -ba c.py | sed -n '1,9p'")},
		{"w1", "bash", shell("cat <<'PY' > /tmp/fix.py\nfrom pathlib import Path\np = Path('c.py')\np.write_text('x')\nPY")},
		{"x1", "bash", shell("python /tmp/fix.py && echo ok")}, // runs the script: r6 is stale
		{"r7", "bash", shell("nl -ba d.py | sed -n '1,9p'")},
		{"e2", "bash", shell("sed -i 's/x/y/' d.py")},          // r7 superseded, not yet stale
		{"r8", "bash", shell("nl -ba d.py | sed -n '50,60p'")}, // d.py seen again after the edit: r7 stale
		{"r9", "bash", shell("sed -n '10,20p' e.py")},
		{"ra", "bash", shell("nl -ba e.py | sed -n '1,40p'")}, // holds r9's lines
	}
	got := superseded(calls, parseAll(calls, parseCall))
	want := map[string]Supersession{
		"r1": {By: "r4", Path: "a.py", Reread: "r4"},
		"r2": {By: "e1", Path: "b.py", Edit: true},
		"r3": {By: "r4", Path: "a.py", Reread: "r4"},
		"r4": {By: "r5", Path: "a.py", Reread: "r5"},
		"r6": {By: "x1", Path: "c.py", Edit: true},
		"r7": {By: "e2", Path: "d.py", Edit: true, Reread: "r8"},
		"r9": {By: "ra", Path: "e.py", Reread: "ra"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %+v, want %+v", id, got[id], w)
		}
	}
}

func FuzzReadOf(f *testing.F) {
	f.Add("bash", shell("nl -ba a.py | sed -n '1,2p'"), "a.py")
	f.Add("str_replace_editor", `{"command":"view","path":"x","view_range":[1,-1]}`, "x")
	f.Add("read_file", `{"path":1}`, "")
	f.Fuzz(func(t *testing.T, name, args, path string) {
		if r, ok := ReadOf(name, args); ok && r.Path == "" {
			t.Fatalf("read without a path: %+v", r)
		}
		editsText(name, args, path)
		calls := []Call{{"a", name, args}, {"b", name, args}}
		superseded(calls, parseAll(calls, parseCall))
	})
}
