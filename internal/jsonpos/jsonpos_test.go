package jsonpos

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       string // Problem.String(); "" for valid JSON
	}{
		{"valid", `{"a": [1, 2]}`, ""},
		{"cut short", `{"model":"gpt-4o","messages":[`, "line 1, column 31, byte 30: unexpected end of JSON input"},
		{"empty", ``, "line 1, column 1, byte 0: unexpected end of JSON input"},
		{"missing comma, second line", "{\"model\": \"x\",\n \"messages\": [{\"role\":\"user\" \"content\":\"x\"}]}", `line 2, column 30, byte 44: invalid character '"' after object key:value pair`},
		{"trailing comma", "{\n  \"a\": 1,\n}", "line 3, column 1, byte 12: invalid character '}' looking for beginning of object key string"},
		{"characters before, not bytes", "{\"é\": 1 2}", "line 1, column 9, byte 9: invalid character '2' after object key:value pair"},
		{"after the value", `{} x`, "line 1, column 4, byte 3: invalid character 'x' after top-level value"},
	} {
		p, bad := Find([]byte(tc.body))
		got := ""
		if bad {
			got = p.String()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if bad == json.Valid([]byte(tc.body)) {
			t.Errorf("%s: Find says bad=%v, json.Valid disagrees", tc.name, bad)
		}
		if bad && strings.HasPrefix(tc.body[p.Offset:], " ") {
			t.Errorf("%s: the offset %d points at a space", tc.name, p.Offset)
		}
	}
}

func FuzzFind(f *testing.F) {
	f.Add([]byte(`{"a":`))
	f.Add([]byte("{\n\"a\" 1}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, bad := Find(body)
		if bad == json.Valid(body) {
			t.Fatalf("Find bad=%v, json.Valid=%v", bad, json.Valid(body))
		}
		if bad && (p.Offset < 0 || p.Offset > len(body) || p.Line < 1 || p.Column < 1) {
			t.Fatalf("%+v out of the body of %d bytes", p, len(body))
		}
	})
}
