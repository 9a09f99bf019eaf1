package treesitter

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusImportRun: the focus views show the run of import lines a used
// import is in whole (the consecutive import lines, a group's members and
// closing line), when short: a change to a focused function adds its
// import beside those it has, and the line the new one follows was hidden.
// A run over importRunBytes keeps the used lines alone.
func TestFocusImportRun(t *testing.T) {
	long := strings.Repeat("from .pkg_abcdefghijklmnopqrstuvwxyz import name_abcdefghijklmnopq\n", 20)
	tests := []struct {
		name, lang, src string
		keep            string
		shown, hidden   []string // markers of lines that must show, and must not
	}{
		{
			name: "python group and neighbours", lang: "python", keep: "helper",
			src:   "\"\"\"Doc.\"\"\"\n\nimport os  # zqa\nimport json\nfrom ._utils import (\n    obfuscate,\n    to_str,\n)\nfrom ._urls import URL  # zqb\n\nimport yaml  # zqc\n\nLIMIT = 3\n\n\ndef helper(x):\n    return to_str(x)\n\n\ndef other(y):\n    return yaml.dump(y)\n",
			shown: []string{"zqa", "import json", "obfuscate,", "to_str,", ")", "zqb"}, hidden: []string{"zqc", "LIMIT"},
		},
		{
			name: "go import block", lang: "go", keep: "Helper",
			src:   "package p\n\nimport (\n\t\"fmt\" // zqa\n\t\"os\"\n\t\"strings\"\n) // zqb\n\nconst Limit = 3\n\nfunc Helper(s string) string {\n\treturn strings.ToUpper(s)\n}\n\nfunc Other() {\n\tfmt.Println(os.Args)\n}\n",
			shown: []string{"zqa", "\"os\"", "zqb"}, hidden: []string{"Limit = 3"},
		},
		{
			name: "typescript", lang: "typescript", keep: "helper",
			src:   "import fs from 'node:fs' // zqa\nimport {\n  readFile,\n  statSync,\n} from './fsutils' // zqb\n\nexport function helper(p: string): string {\n  return readFile(p)\n}\n\nexport function other(p: string): boolean {\n  return fs.existsSync(p)\n}\n",
			shown: []string{"zqa", "statSync,", "zqb"}, hidden: []string{"existsSync"},
		},
		{
			name: "a long run keeps the used line alone", lang: "python", keep: "helper",
			src:   "import os  # zqa\n" + long + "from ._utils import to_str  # zqb\n\n\ndef helper(x):\n    return to_str(x)\n\n\ndef other(y):\n    return os.path.join(y)\n",
			shown: []string{"zqb"}, hidden: []string{"zqa", "name_abcdefghijklmnopq"},
		},
	}
	for _, tt := range tests {
		for _, level := range []Level{Focus, FocusOnly} {
			t.Run(tt.name+"/"+string(level), func(t *testing.T) {
				v, err := Render(context.Background(), tt.lang, []byte(tt.src), level, Options{KeepFuncs: []string{tt.keep}, ImportRuns: true})
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(tt.src, "\n")
				visible := func(marker string) bool {
					for i, l := range lines {
						if strings.Contains(l, marker) && !ctxd.InRanges(v.Elided, i+1) && strings.Contains(v.Text, l) {
							return true
						}
					}
					return false
				}
				for _, m := range tt.shown {
					if !visible(m) {
						t.Errorf("line %q hidden (elided %v):\n%s", m, v.Elided, v.Text)
					}
				}
				for _, m := range tt.hidden {
					if visible(m) {
						t.Errorf("line %q shown (elided %v):\n%s", m, v.Elided, v.Text)
					}
				}
			})
		}
	}
}
