package request

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestSyntaxError: a body that is not JSON is refused with where it stops
// being JSON and what was expected; the error is an ErrNotRequest (so
// invalid params: -32602 on the daemon, as before) and ctxd.Message
// prints it without the operations it passed through.
func TestSyntaxError(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"cut short", `{"messages":[`, "the request body is not valid JSON at line 1, column 14, byte 13: unexpected end of JSON input; want a JSON object: a Chat Completions, Anthropic Messages or Responses request"},
		{"trailing comma", "{\"messages\": [\n  {\"role\": \"user\", \"content\": \"x\"},\n]}", "the request body is not valid JSON at line 3, column 1, byte 51: invalid character ']' looking for beginning of value; want a JSON object: a Chat Completions, Anthropic Messages or Responses request"},
	} {
		for _, f := range []Format{"", FormatChat} {
			_, err := Parse([]byte(tc.body), f)
			var syn *SyntaxError
			if !errors.As(err, &syn) || !errors.Is(err, ErrNotRequest) || !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Fatalf("%s (%q): %v, want a SyntaxError that is ErrNotRequest and ErrInvalidParams", tc.name, f, err)
			}
			wrapped := fmt.Errorf("compress messages: %w", err)
			if got := ctxd.Message(wrapped); got != tc.want {
				t.Errorf("%s (%q): Message %q, want %q", tc.name, f, got, tc.want)
			}
		}
		if err := CheckJSON([]byte(tc.body)); ctxd.Message(err) != tc.want {
			t.Errorf("%s: CheckJSON %v", tc.name, err)
		}
		if _, err := Detect([]byte(tc.body)); ctxd.Message(err) != tc.want {
			t.Errorf("%s: Detect %v", tc.name, err)
		}
	}
	if err := CheckJSON([]byte(`{"messages":[]}`)); err != nil {
		t.Errorf("CheckJSON of JSON: %v", err)
	}
	if _, err := ParseItem(FormatChat, []byte(`{"role":`)); ctxd.Message(err) != "the item body is not valid JSON at line 1, column 9, byte 8: unexpected end of JSON input; want a JSON object: a Chat Completions, Anthropic Messages or Responses request" {
		t.Errorf("ParseItem: %v", err)
	}
}
