package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/mcp"
	"github.com/ctxd/ctxd/server"
)

// vocabularyParams are the param structs of the JSON-RPC methods and MCP
// tools docs/vocabulary.md maps flags to.
var vocabularyParams = map[string]any{
	"ctx/buildPrompt":      server.PromptParams{},
	"ctx/outline":          engine.OutlineRequest{},
	"ctx/findSymbol":       engine.SymbolRequest{},
	"find_symbol":          mcp.FindSymbolIn{},
	"ctx/pack":             server.PackParams{},
	"ctx/compressMessages": engine.CompressRequest{},
	"ctx/optimizeRequest":  engine.OptimizeRequest{},
	"ctx/rehydrate":        engine.RehydrateRequest{},
	"build_context":        mcp.BuildContextIn{},
	"outline":              mcp.OutlineIn{},
	"compact_history":      mcp.CompactHistoryIn{},
	"rehydrate":            mcp.RehydrateIn{},
}

// TestVocabularyTable checks docs/vocabulary.md against the code: each
// table lists exactly the flags of its command's real flag set, and every
// JSON-RPC and MCP field it names is one the method or tool accepts.
func TestVocabularyTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/vocabulary.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile("^### `ctxd ([a-z]+)`: (`[^`]+`|—), (`[^`]+`|—)$")
	code := regexp.MustCompile("`([^`]+)`")
	sections := strings.Split(string(doc), "\n### ")
	seen := 0
	for _, sec := range sections[1:] {
		lines := strings.Split("### "+sec, "\n")
		m := heading.FindStringSubmatch(lines[0])
		if m == nil {
			t.Errorf("heading %q: want ### `ctxd CMD`: `METHOD`, `TOOL` (— for none)", lines[0])
			continue
		}
		seen++
		cmd, method, tool := m[1], strings.Trim(m[2], "`"), strings.Trim(m[3], "`")
		t.Run(cmd, func(t *testing.T) {
			var listed []string
			for _, l := range lines[1:] {
				if !strings.HasPrefix(l, "| `") {
					continue
				}
				cells := strings.Split(strings.Trim(l, "|"), "|")
				if len(cells) != 4 {
					t.Errorf("row %q: want 4 cells", l)
					continue
				}
				cli := code.FindStringSubmatch(cells[0])[1]
				if f, ok := strings.CutPrefix(cli, "--"); ok {
					f, _, _ = strings.Cut(f, " ")
					listed = append(listed, f)
				}
				for i, door := range []string{method, tool} {
					for _, c := range code.FindAllStringSubmatch(cells[1+i], -1) {
						field := strings.FieldsFunc(c[1], func(r rune) bool { return r == '.' || r == '[' })[0]
						params, ok := vocabularyParams[door]
						if !ok {
							t.Errorf("%s: %q named for %q, which has no param struct in vocabularyParams", cli, field, door)
							continue
						}
						if !slices.Contains(server.FieldNames(params), field) {
							t.Errorf("%s: %s takes no field %q (it takes %v)", cli, door, field, server.FieldNames(params))
						}
					}
				}
			}
			real := commandFlags(t, cmd)
			slices.Sort(listed)
			if !slices.Equal(listed, real) {
				t.Errorf("flags in docs/vocabulary.md %v, ctxd %s has %v", listed, cmd, real)
			}
		})
	}
	if seen < 8 {
		t.Errorf("%d command tables, want 8 or more", seen)
	}
}

// commandFlags lists a command's flags, sorted, as `ctxd help CMD` prints
// them.
func commandFlags(t *testing.T, cmd string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run(t.Context(), []string{"help", cmd}, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("ctxd help %s: exit %d: %s", cmd, code, errOut.String())
	}
	var flags []string
	for _, l := range strings.Split(out.String(), "\n") {
		if f, ok := strings.CutPrefix(l, "  --"); ok {
			f, _, _ = strings.Cut(f, " ")
			flags = append(flags, f)
		}
	}
	slices.Sort(flags)
	return flags
}
