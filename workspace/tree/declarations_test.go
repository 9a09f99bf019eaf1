package tree

import (
	"testing"

	"github.com/ctxd/ctxd/query"
)

// TestRankDeclarationCopies: a TypeScript declaration file ranks below
// the JavaScript it declares (commander.js's typings/index.d.ts beside
// lib/*.js, a type test index.test-d.ts being no TypeScript source), as
// does one beside an implementation of its name in a TypeScript
// repository; a TypeScript repository's declaration file alone is code
// (vite's types/customEvent.d.ts).
func TestRankDeclarationCopies(t *testing.T) {
	decl := []byte("export class Command {\n  /** Define a required option, which must have a value after parsing. */\n  requiredOption(flags: string, description?: string): this;\n  /** Display an error message for a missing mandatory option. */\n  missingMandatoryOptionValue(option: Option): never;\n}\n")
	impl := []byte("class Command {\n  requiredOption(flags, description) {\n    return this._optionEx({ mandatory: true }, flags, description);\n  }\n  missingMandatoryOptionValue(option) {\n    this.error(`error: required option '${option.flags}' not specified`);\n  }\n}\n")
	tests := []struct {
		name  string
		files map[string][]byte
		want  map[string]string // path -> role
	}{
		{"javascript repository", map[string][]byte{
			"lib/command.js":          impl,
			"typings/index.d.ts":      decl,
			"typings/index.test-d.ts": []byte("import { Command } from '..';\nnew Command().requiredOption('-r, --required');\n"),
			"tests/fixtures/pm.ts":    []byte("console.log('required option');\n"),
		}, map[string]string{"lib/command.js": "code", "typings/index.d.ts": "declaration"}},
		{"typescript repository", map[string][]byte{
			"src/command.ts":         impl,
			"types/command.d.ts":     decl,
			"misc/required.js":       impl,
			"misc/required.d.ts":     decl,
			"src/types/shims.d.mts":  decl,
			"src/types/option.d.cts": decl,
		}, map[string]string{"src/command.ts": "code", "types/command.d.ts": "code", "misc/required.d.ts": "declaration", "src/types/shims.d.mts": "code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := newTextIndex(tt.files)
			hits := ix.Rank(query.Parse("make an option required and show an error when the option is missing"), 0)
			got := map[string]string{}
			for _, h := range hits {
				got[h.Path] = h.Match.Role
			}
			for p, role := range tt.want {
				if got[p] != role {
					t.Errorf("%s ranked as %q, want %q (hits %v)", p, got[p], role, got)
				}
			}
			if tt.want["typings/index.d.ts"] == "declaration" && (len(hits) == 0 || hits[0].Path != "lib/command.js") {
				t.Errorf("first hit %v, want lib/command.js", hits)
			}
		})
	}
}
