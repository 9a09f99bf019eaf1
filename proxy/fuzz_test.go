package proxy

import (
	"testing"
)

// FuzzObserver feeds arbitrary upstream answers, split at an arbitrary
// point, to the response observer as a stream, as JSON and as an error:
// it never panics, never reports negative usage, and keeps within its
// bounds.
//
//	go test -fuzz=FuzzObserver ./proxy
func FuzzObserver(f *testing.F) {
	f.Add([]byte("data: {\"usage\":{\"prompt_tokens\":12}}\n\ndata: [DONE]\n\n"), 7)
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":3}}}\n\n"), 30)
	f.Add([]byte(`{"model":"gpt-4o","usage":{"input_tokens":9}}`), 3)
	f.Add([]byte(`{"error":{"code":"previous_response_not_found"}}`), 0)
	f.Fuzz(func(t *testing.T, body []byte, cut int) {
		if cut < 0 || cut > len(body) {
			cut = len(body) / 2
		}
		for _, o := range []*observer{{status: 200, stream: true}, {status: 200}, {status: 400}, {status: 200, gzip: true}} {
			o.see(body[:cut])
			o.see(body[cut:])
			o.close()
			if o.input < 0 || len(o.buf) > maxJSONKeep || len(o.line) > maxLineKeep {
				t.Fatalf("observer state: input %d, buf %d, line %d", o.input, len(o.buf), len(o.line))
			}
		}
		_ = errorKind(body)
	})
}

func TestErrorKind(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"error":{"message":"Previous response with id 'resp_1' not found.","code":"previous_response_not_found"}}`, errPrevNotFound},
		{`{"error":{"message":"This model's maximum context length is 128000 tokens","code":"context_length_exceeded"}}`, errContext},
		{`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, errContext},
		{`{"type":"error","error":{"type":"invalid_request_error","message":"messages.3: tool_use ids were found without tool_result blocks immediately after"}}`, errInvalidContinues},
		{`{"error":{"message":"No tool output found for function call call_1."}}`, errInvalidContinues},
		{`{"error":{"message":"Rate limit reached"}}`, errOther},
	}
	for _, tt := range tests {
		if got := errorKind([]byte(tt.body)); got != tt.want {
			t.Errorf("errorKind(%s) = %s, want %s", tt.body, got, tt.want)
		}
	}
}
