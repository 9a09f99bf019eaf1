package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
)

// FuzzStreamHostile seeds the framing reader with the frames of issue 11
// (too-short and too-long lengths, header-less bodies, garbage without a
// newline, bad ids, batches of non-objects) and checks, beyond FuzzStream,
// that no returned body exceeds the limit.
func FuzzStreamHostile(f *testing.F) {
	good := `{"jsonrpc":"2.0","id":1,"method":"x"}`
	for _, seed := range []string{
		"Content-Length: 20\r\n\r\n" + good + frame(good),
		"Content-Length: 80\r\n\r\n" + good + frame(good),
		good + frame(good),
		"garbage garbage" + frame(good),
		frame(`{"jsonrpc":"2.0","id":null,"method":"x"}`),
		frame(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`),
		frame(`[1,2,3]`),
		"Content-Length: 268435462\r\n\r\n{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s := newStream(rwc{bytes.NewReader(data), &out}, slog.New(slog.DiscardHandler))
		s.maxBody = 1 << 10
		for i := 0; i <= len(data); i++ {
			body, _, err := s.ReadFrame(context.Background())
			if err != nil {
				break
			}
			if len(body) > s.maxBody {
				t.Fatalf("body of %d bytes over the limit of %d", len(body), s.maxBody)
			}
		}
		readFrames(t, &out)
	})
}

// FuzzDecodeParams: every params decoder of the method table takes any
// bytes without panicking; what it refuses is an invalid-params error.
func FuzzDecodeParams(f *testing.F) {
	for _, seed := range []string{
		`{"user_request":"x","open_files":[{"path":"a.go","line":3}],"token_budget":{"total":100}}`,
		`{"messages":[1,"x",null]}`, `{"text":"x","model":5}`, `{"request":{"messages":[]},"model":5,"error":"e"}`,
		`{"session_id":"s","seq":-1}`, `{"path":"` + string(bytes.Repeat([]byte("a"), 300)) + `"}`,
		`[]`, `null`, `"x"`, `{"a":`,
	} {
		f.Add([]byte(seed))
	}
	targets := []func() any{
		func() any { return new(engine.PromptRequest) }, func() any { return new(engine.CountRequest) },
		func() any { return new(engine.OutlineRequest) }, func() any { return new(engine.CompressRequest) },
		func() any { return new(engine.OptimizeRequest) },
		func() any { return new(engine.RehydrateRequest) }, func() any { return new(engine.SaveRequest) },
		func() any { return new(engine.RestoreRequest) }, func() any { return new(engine.ListRequest) },
		func() any { return new(engine.ResumeRequest) }, func() any { return new(engine.TimelineRequest) },
		func() any { return new(engine.ForkRequest) }, func() any { return new(engine.DeleteRequest) },
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range targets {
			v := mk()
			if err := decode(json.RawMessage(data), v); err != nil {
				if !errors.Is(err, ctxd.ErrInvalidParams) {
					t.Fatalf("decode %T: %v is not an invalid-params error", v, err)
				}
				continue
			}
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("decoded %T does not marshal: %v", v, err)
			}
		}
		var lsp protocol.InitializeParams
		_ = protocol.Unmarshal(data, &lsp)
	})
}
