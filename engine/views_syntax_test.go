package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestOpenLineInFileWithSyntaxErrors: a file the grammar cannot parse
// cleanly (TypeScript 4.7's variance annotations, `interface Box<out O>`,
// which zod's schemas.ts uses) has no structural views, but its focus
// views copy whole lines and need no clean parse. With them, --open on a
// line keeps the function around it whole; without them the file was cut
// to its head and tail, "Cursor: line 390" above a view that hid line
// 390, and the same for a function the request names.
func TestOpenLineInFileWithSyntaxErrors(t *testing.T) {
	var ts strings.Builder
	ts.WriteString("export interface Box<out O> {\n  value: O;\n}\n\n")
	for i := range 120 {
		if i == 60 {
			ts.WriteString("export function trimBeforeChecks(input: string): string {\n  const out = input.trim(); // trimMarker\n  return out;\n}\n\n")
		}
		fmt.Fprintf(&ts, "export function check%d(value: unknown): boolean {\n  if (typeof value !== \"string\") {\n    return false;\n  }\n  return value.length > %d && value.startsWith(\"%d\");\n}\n\n", i, i, i)
	}
	src := ts.String()
	dir := testutil.GitRepo(t, map[string]string{"src/schemas.ts": src, "src/index.ts": "export * from \"./schemas\";\n"})
	e := newEngine(t, dir)
	line := markerLine(src, "trimMarker")
	tests := []struct {
		name string
		req  PromptRequest
	}{
		{"cursor", PromptRequest{UserRequest: "add an option to skip whitespace", OpenFiles: []ctxd.OpenFile{{Path: "src/schemas.ts", Line: line}}}},
		{"named", PromptRequest{UserRequest: "fix trimBeforeChecks so it also trims tabs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.TokenBudget = &BudgetRequest{Context: 1500}
			env, err := e.BuildPrompt(t.Context(), tt.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range env.Context.Chunks {
				if c.Source != "src/schemas.ts" {
					continue
				}
				if !strings.Contains(c.Content, "const out = input.trim(); // trimMarker") {
					t.Errorf("the function is not visible in the %s view:\n%s", c.Truncation, c.Content)
				}
				if env.Context.TokensUsed > env.Context.Budget {
					t.Errorf("context %d over its budget %d", env.Context.TokensUsed, env.Context.Budget)
				}
				return
			}
			t.Fatalf("src/schemas.ts not in the context: %+v", env.Context.Skipped)
		})
	}
}
