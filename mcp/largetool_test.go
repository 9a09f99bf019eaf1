package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLargeToolMatchesTypedTool: a tool registered with addLargeTool
// publishes the schemas the SDK's typed AddTool derives and answers every
// call as the typed tool does: the same result for valid arguments, a
// "validating arguments" tool error for a wrong type, a member the type
// does not have, a missing required member or a value that is no object.
func TestLargeToolMatchesTypedTool(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	h := func(_ context.Context, _ *sdk.CallToolRequest, in CountTokensIn) (*sdk.CallToolResult, CountTokensOut, error) {
		out := CountTokensOut{Tokens: len(in.Text), Model: in.Model, Exact: true}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text + "|" + in.Model}}}, out, nil
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "typed"}, h)
	addLargeTool(srv, &sdk.Tool{Name: "large"}, h)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string][2]string{}
	for _, tl := range tools.Tools {
		in, _ := json.Marshal(tl.InputSchema)
		out, _ := json.Marshal(tl.OutputSchema)
		schemas[tl.Name] = [2]string{string(in), string(out)}
	}
	if schemas["typed"] != schemas["large"] {
		t.Errorf("schemas differ:\ntyped %v\nlarge %v", schemas["typed"], schemas["large"])
	}

	tests := []struct {
		name    string
		args    any
		isError bool
	}{
		{"text and model", map[string]any{"text": "hello", "model": "gpt-4o"}, false},
		{"text only", map[string]any{"text": "hello"}, false},
		{"empty text", map[string]any{"text": ""}, false},
		{"escapes", map[string]any{"text": "a\nb\t\"c\" \u00e9 \u2028"}, false},
		{"text a number", map[string]any{"text": 42}, true},
		{"model an object", map[string]any{"text": "x", "model": map[string]any{}}, true},
		{"unknown member", map[string]any{"text": "x", "extra": 1}, true},
		{"text missing", map[string]any{"model": "gpt-4o"}, true},
		{"no arguments", nil, true},
		{"arguments an array", []any{1, 2}, true},
		{"arguments a string", "text", true},
		{"member in other case", map[string]any{"TEXT": "x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]*sdk.CallToolResult
			for i, name := range []string{"typed", "large"} {
				res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: tt.args})
				if err != nil {
					t.Fatalf("%s: protocol error: %v", name, err)
				}
				got[i] = res
			}
			for i, res := range got {
				if res.IsError != tt.isError {
					t.Errorf("%s: isError %v, want %v: %v", []string{"typed", "large"}[i], res.IsError, tt.isError, content(res))
				}
			}
			if tt.isError {
				if msg := content(got[1]); !strings.Contains(msg, "validating") && !strings.Contains(msg, "arguments") {
					t.Errorf("large: error %q does not say the arguments are invalid", msg)
				}
				return
			}
			if content(got[0]) != content(got[1]) || !reflect.DeepEqual(got[0].StructuredContent, got[1].StructuredContent) {
				t.Errorf("typed %q %v, large %q %v", content(got[0]), got[0].StructuredContent, content(got[1]), got[1].StructuredContent)
			}
		})
	}
}

func content(res *sdk.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// FuzzDecodeArgs: count_tokens's argument decoder never panics, and what
// it accepts encoding/json reads as an object holding "text", a string,
// and no member but "text" and "model".
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{"text":"hello"}`, `{"text":"a\nb","model":"gpt-4o"}`, `{"text":42}`, `{}`, `null`, `[1,2]`, `{"text":"x","extra":1}`,
		`{"text":"x"} {"text":"y"}`, `{"text":"\ud800"}`, `{"TEXT":"x"}`, `{"text":"x","text":"y"}`, `{"model":null,"text":""}`} {
		f.Add([]byte(s))
	}
	present := presenceType(reflect.TypeFor[CountTokensIn]())
	f.Fuzz(func(t *testing.T, args []byte) {
		var in CountTokensIn
		if decodeArgs(args, &in, present, []string{"text"}) != nil {
			return
		}
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", args, err)
		}
		if _, ok := m["text"].(string); !ok {
			t.Fatalf("accepted %q without a string text", args)
		}
		for k := range m {
			if k != "text" && k != "model" {
				t.Fatalf("accepted %q with member %q", args, k)
			}
		}
	})
}
