package mcp

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// sdkValidate validates args as the Go SDK's typed tools did: decoded to
// Go values, then checked by jsonschema-go against the tool's schema.
// ok is false when args are not something the SDK could decode.
func sdkValidate(t *testing.T, tool string, args []byte) (err error, ok bool) {
	t.Helper()
	resolvedOnce.Do(func() {
		var tools []struct {
			Name        string             `json:"name"`
			InputSchema *jsonschema.Schema `json:"inputSchema"`
		}
		if resolvedErr = json.Unmarshal(toolsJSON, &tools); resolvedErr != nil {
			return
		}
		resolved = map[string]*jsonschema.Resolved{}
		for _, tl := range tools {
			if resolved[tl.Name], resolvedErr = tl.InputSchema.Resolve(nil); resolvedErr != nil {
				return
			}
		}
	})
	if resolvedErr != nil {
		t.Fatal(resolvedErr)
	}
	rs := resolved[tool]
	if rs == nil {
		t.Fatalf("no tool %s", tool)
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil, false
	}
	return rs.Validate(v), true
}

// The tools' schemas resolved by jsonschema-go, once.
var (
	resolvedOnce sync.Once
	resolved     map[string]*jsonschema.Resolved
	resolvedErr  error
)

var toolNames = []string{"build_context", "find_symbol", "outline", "count_tokens", "compact_history", "rehydrate"}

// FuzzValidate: the server's argument validation (schema.go) accepts what
// jsonschema-go, the SDK's validator, accepts against the same published
// schema, and refuses what it refuses, with the same message where the
// value shown is a string, number or boolean.
//
//	go test -run '^$' -fuzz '^FuzzValidate$' -fuzztime 30s ./mcp
func FuzzValidate(f *testing.F) {
	_, schemas, err := loadTools()
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"text":"hello","model":"gpt-4o"}`, `{"text":42}`, `{"text":null}`, `{}`, `[]`, `"x"`, `{"text":"a","extra":1}`, `{"TEXT":"a"}`,
		`{"request":"x","open_files":[{"path":"a.go","line":3}]}`, `{"request":"x","open_files":[{"path":3}]}`, `{"request":"x","open_files":"a"}`,
		`{"request":"x","budget":1.5}`, `{"request":"x","budget":2.0}`, `{"request":"x","budget":1e3}`, `{"request":"x","patterns":["a",null]}`,
		`{"name":"Put","include_docs":"yes","max_references":-1}`, `{"request":{"messages":[]},"smart":true}`, `{"request":null}`,
		`{"reference":"abc","lines":"1-2","session":"s"}`, `{"path":"a","level":5}`, `{"request":"x","open_files":[{}]}`,
	} {
		for i := range toolNames {
			f.Add(seed, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, args string, which uint8) {
		tool := toolNames[int(which)%len(toolNames)]
		if !json.Valid([]byte(args)) {
			return
		}
		want, ok := sdkValidate(t, tool, []byte(args))
		if !ok {
			return
		}
		got := schemas[tool].validate(raw(args), "")
		if (got == nil) != (want == nil) {
			t.Fatalf("%s %s: got %v, the SDK's validator %v", tool, args, got, want)
		}
		// jsonschema-go shows objects and arrays as Go values and null as
		// "<invalid reflect.Value>"; the server shows JSON (and cuts a
		// value at 100 bytes).
		if got == nil {
			return
		}
		w := want.Error()
		// jsonschema-go lists extra members in map order, the server sorted.
		comparable := !(strings.Contains(w, "unexpected additional properties") && strings.Count(w, `"`) > 2) &&
			!strings.Contains(w, "map[") && !strings.Contains(w, "type: [") && !strings.Contains(w, "<invalid reflect.Value>") && len(args) < 100
		if comparable && got.Error() != w {
			t.Fatalf("%s %s: message\n got %s\nwant %s", tool, args, got, want)
		}
	})
}
