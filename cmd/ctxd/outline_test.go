package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutlineAndTruncateCLI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "svc.py")
	src := "import os\n\n\nclass Svc:\n    \"\"\"Svc serves. More.\"\"\"\n\n    def run(self):\n        a = 1\n        b = 2\n        c = 3\n        return a + b + c\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []cliCase{
		{"outline", []string{"outline", file}, 0, "4: class Svc\n  7: def run(self)\nimports: os\n", "", ""},
		{"bodies", []string{"truncate", "--level", "bodies", file}, 0, "    def run(self):\n        ...  # 4 lines\n", "elided lines: 8-11", "a = 1"},
		{"signatures", []string{"truncate", "--level=signatures", file}, 0, "\"\"\"Svc serves.\"\"\"", "", "More."},
		{"keep the cursor's function", []string{"truncate", "--level", "signatures", "--keep-line", "9", file}, 0, "b = 2", "", ""},
		{"keep by name", []string{"truncate", "--keep-func", "Svc.run", "--level", "bodies", file}, 0, "b = 2", "", ""},
		{"missing level", []string{"truncate", file}, 2, "", "--level", ""},
		// A focus level without a function to keep said "render python at
		// focus: no function at the kept lines ...: unsupported for
		// structural truncation", exit 1.
		{"focus without keep", []string{"truncate", "--level", "focus", file}, 2, "", "--level focus needs the functions to keep: --keep-line N or --keep-func NAME", ""},
		{"focus", []string{"truncate", "--level", "focus", "--keep-line", "9", file}, 0, "b = 2", "", ""},
		{"bad keep-line", []string{"truncate", "--level", "bodies", "--keep-line", "x", file}, 2, "", "keep-line", ""},
		{"no file", []string{"outline"}, 2, "", "want one FILE", ""},
		{"missing file", []string{"outline", filepath.Join(dir, "nope.py")}, 1, "", "not found", ""},
		{"unknown language", []string{"outline", filepath.Join(dir, "svc.cob")}, 1, "", "unknown language", ""},
		{"markdown", []string{"outline", filepath.Join(dir, "README.md")}, 1, "", "README.md: Markdown is prose, and outlines are of source code", ""},
	}
	for _, name := range []string{"svc.cob", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runCases(t, tests)
	code, out, _ := runInProcess("truncate", "--json", "--level", "outline", file)
	var res struct {
		Language string `json:"language"`
		View     struct {
			Level string `json:"level"`
			Text  string `json:"text"`
		} `json:"view"`
		Truncation string `json:"truncation"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Language != "python" || res.View.Level != "outline" || res.Truncation != "outline" {
		t.Errorf("truncate --json: %d %s", code, out)
	}
}

// TestOutlineListsHooksCLI: `ctxd outline` lists a plugin factory's hooks
// (a method, an arrow-valued property, a hook object's handler) indented
// under the factory, and `ctxd truncate --level outline` too; main printed
// the factory's line alone.
func TestOutlineListsHooksCLI(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plugin.js")
	var b strings.Builder
	b.WriteString("export function stylePlugin(config) {\n  return {\n    name: 'vite:style',\n    configureServer(server) {\n")
	for i := range 12 {
		fmt.Fprintf(&b, "      server.watch(%d);\n", i)
	}
	b.WriteString("    },\n    load: async (id) => {\n")
	for i := range 12 {
		fmt.Fprintf(&b, "      await read(id, %d);\n", i)
	}
	b.WriteString("    },\n    transform: {\n      handler(code, id) {\n")
	for i := range 12 {
		fmt.Fprintf(&b, "        code = step(code, %d);\n", i)
	}
	b.WriteString("        return code;\n      },\n    },\n  };\n}\n")
	for i := range 20 {
		fmt.Fprintf(&b, "register('builtin-%d', { order: %d });\n", i, i)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "1: function stylePlugin(config)\n  4: configureServer(server)\n  18: load: async (id) =>\n  32: transform: {\n    33: handler(code, id)\n"
	runCases(t, []cliCase{
		{"outline", []string{"outline", file}, 0, want, "", ""},
		{"outline view", []string{"truncate", "--level", "outline", file}, 0, want, "", ""},
	})
}
