package request

import (
	"bytes"
	"encoding/json"
	"testing"
)

// lenCounter counts bytes/4: the parser fuzz only needs some counter; the
// real tokenizer is exercised by package prune.
type lenCounter struct{}

func (lenCounter) Count(s string) int { return (len(s) + 3) / 4 }

// go test -fuzz=FuzzParse ./compact/request
func FuzzParse(f *testing.F) {
	for _, s := range []string{chatBody, anthropicBody, responsesBody, `{"input":"x"}`, `{"messages":[1,"a",null,{}]}`,
		`{"messages":[{"role":"tool","content":[{"type":"text","text":"x"}]}]}`,
		`{"system":[],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}]}`,
		`{"input":[{"type":"reasoning"},{"type":"function_call_output","call_id":"q","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AAAA"}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Parse(body, "")
		if err != nil {
			return
		}
		out, err := r.NewPlan().Emit()
		if err != nil || !bytes.Equal(out, body) {
			t.Fatalf("identity emit changed the body (err %v)", err)
		}
		NewEstimator(lenCounter{}, ImageOpenAI).Request(r)
		p := r.Pair()
		plan := r.NewPlan()
		for _, o := range p.Orphans {
			if p.OrphanOnly[o.Item] || !plan.DropSegment(o) {
				plan.DropItem(o.Item)
			}
		}
		for i := range r.Items {
			if i%2 == 1 {
				plan.DropItem(i)
			}
			for j := range r.Items[i].Segments {
				if r.Items[i].Segments[j].Kind == SegToolResult {
					plan.SetText(SegRef{i, j}, "short \xff")
				}
			}
		}
		plan.Insert(len(r.Items)/2, []byte(`{"role":"user","content":"s"}`))
		out, err = plan.Emit()
		if err != nil {
			t.Fatalf("emit: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("emit wrote invalid JSON:\n%s", out)
		}
		if _, err := Parse(out, r.Format); err != nil {
			t.Fatalf("re-parse of emitted %s request: %v\n%s", r.Format, err, out)
		}
	})
}

// FuzzValidate: the fast validator agrees with encoding/json, and string
// decoding agrees with encoding/json's.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{chatBody, `"a\u00e9\ud83d\ude00\ud800x"`, `[1,-0.5e+3,true,null,{"a":"\n"}]`, `{"a":01}`, `"\x01"`, `[1,]`, "\"\xff\"", `"\/\b\f"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validate(b), json.Valid(b); got != want {
			t.Fatalf("validate(%q) = %v, json.Valid = %v", b, got, want)
		}
		if b := bytes.TrimSpace(b); len(b) >= 2 && b[0] == '"' && json.Valid(b) {
			var want string
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			got, err := decodeString(b)
			if err != nil || got != want {
				t.Fatalf("decodeString(%q) = %q, %v; want %q", b, got, err, want)
			}
		}
	})
}
