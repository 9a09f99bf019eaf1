package mcp

import (
	"encoding/json"
	"testing"
)

// FuzzCheckItems: compact_history's item check never panics, and what it
// accepts is a JSON object whose messages (or input) are objects.
func FuzzCheckItems(f *testing.F) {
	for _, s := range []string{`{"messages":[1,2]}`, `{"messages":[{"role":"user","content":"hi"}]}`, `{"input":"x"}`, `{"input":[{}]}`, `[]`, `{}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !json.Valid([]byte(body)) || checkItems([]byte(body)) != nil {
			return
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &top); err != nil {
			t.Fatalf("accepted %q, not an object", body)
		}
		raw, ok := top["messages"]
		if !ok {
			raw = top["input"]
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return
		}
		var items []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			t.Fatalf("accepted %q: items are not objects: %v", body, err)
		}
	})
}
