package mcp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/mcp"
)

// schemaFor is the JSON schema jsonschema-go derives for T, as the Go
// SDK's AddTool derived the tools' schemas (of a pointer's element type).
func schemaFor[T any](t *testing.T) any {
	t.Helper()
	s, err := jsonschema.For[T](&jsonschema.ForOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestToolSchemas: the input and output schemas tools.json publishes are
// the ones derived from the tools' argument and result types, so a field
// added to a type is published (or this fails). -update rewrites them in
// tools.json, leaving the rest (names, titles, descriptions, annotations)
// as written.
func TestToolSchemas(t *testing.T) {
	want := map[string][2]any{
		"build_context":   {schemaFor[mcp.BuildContextIn](t), schemaFor[mcp.BuildContextOut](t)},
		"find_symbol":     {schemaFor[mcp.FindSymbolIn](t), schemaFor[engine.SymbolResult](t)},
		"outline":         {schemaFor[mcp.OutlineIn](t), schemaFor[mcp.OutlineOut](t)},
		"count_tokens":    {schemaFor[mcp.CountTokensIn](t), schemaFor[mcp.CountTokensOut](t)},
		"compact_history": {schemaFor[mcp.CompactHistoryIn](t), schemaFor[mcp.CompactHistoryOut](t)},
		"rehydrate":       {schemaFor[mcp.RehydrateIn](t), schemaFor[mcp.RehydrateOut](t)},
	}
	data, err := os.ReadFile("tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools []map[string]any
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(want) {
		t.Errorf("tools.json has %d tools, want %d", len(tools), len(want))
	}
	for _, tl := range tools {
		name, _ := tl["name"].(string)
		w, ok := want[name]
		if !ok {
			t.Errorf("tools.json lists %q, which has no argument type here", name)
			continue
		}
		if *update {
			tl["inputSchema"], tl["outputSchema"] = w[0], w[1]
			continue
		}
		if d := cmp.Diff(w[0], tl["inputSchema"]); d != "" {
			t.Errorf("%s input schema (-derived +tools.json):\n%s", name, d)
		}
		if d := cmp.Diff(w[1], tl["outputSchema"]); d != "" {
			t.Errorf("%s output schema (-derived +tools.json):\n%s", name, d)
		}
	}
	if *update {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(tools); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("tools.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
