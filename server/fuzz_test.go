package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"

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

// paramDecoders are the params decoders of every method of the table (and
// $/cancelRequest), each as the handler runs it, up to where it would call
// the engine. TestParamDecodersCoverMethods keeps the list complete.
var paramDecoders = map[string]func(data []byte) error{
	"ctx/gather":             decodeInto[engine.PromptRequest],
	"ctx/buildPrompt":        decodeInto[engine.PromptRequest],
	"ctx/countTokens":        decodeInto[engine.CountRequest],
	"ctx/outline":            decodeInto[engine.OutlineRequest],
	"ctx/findSymbol":         decodeInto[engine.SymbolRequest],
	"ctx/pack":               decodeInto[PackParams],
	"ctx/compressMessages":   decodeInto[engine.CompressRequest],
	"ctx/pruneForRetry":      decodeInto[engine.CompressRequest],
	"ctx/optimizeRequest":    decodeInto[engine.OptimizeRequest],
	"ctx/rehydrate":          decodeInto[engine.RehydrateRequest],
	"ctx/status":             decodeInto[struct{}],
	"ctx/checkpoint/save":    decodeInto[engine.SaveRequest],
	"ctx/checkpoint/restore": decodeInto[engine.RestoreRequest],
	"ctx/sessions/list":      decodeInto[engine.ListRequest],
	"ctx/sessions/resume":    decodeInto[engine.ResumeRequest],
	"ctx/sessions/timeline":  decodeInto[engine.TimelineRequest],
	"ctx/sessions/fork":      decodeInto[engine.ForkRequest],
	"ctx/sessions/delete":    decodeInto[engine.DeleteRequest],
	"initialize": func(data []byte) error {
		_, own, err := decodeInitialize(data)
		if err == nil {
			_, err = json.Marshal(own)
		}
		return err
	},
	"textDocument/didOpen":  decodeLSP,
	"textDocument/didClose": decodeLSP,
	"textDocument/didChange": func(data []byte) error {
		var p lspChangeParams
		if err := decodeDocumentParams(data, &p, &p.TextDocument); err != nil {
			return err
		}
		// The edits apply to a buffer as the handler applies them: a
		// range out of the text is an error, never a panic.
		text := "package a\n\nfunc A() {}\n// ünïcode 😀\n"
		for _, c := range p.ContentChanges {
			if c.Range != nil {
				if out, err := applyEdit(text, *c.Range, c.Text); err == nil {
					text = out
				}
			}
		}
		return nil
	},
	"$/cancelRequest": func(data []byte) error {
		cancelID(data)
		return nil
	},
}

// paramlessMethods take no params (what they get is ignored); test/panic
// is registered by server_test.go, test/echo and test/wait by conn_test.go.
var paramlessMethods = map[string]bool{"initialized": true, "shutdown": true, "exit": true, "test/panic": true, "test/echo": true, "test/wait": true}

// decodeInto decodes data into a new T as the handlers do; what it
// decodes must marshal again.
func decodeInto[T any](data []byte) error {
	v := new(T)
	if err := decode(json.RawMessage(data), v); err != nil {
		return err
	}
	if _, err := json.Marshal(v); err != nil {
		return fmt.Errorf("decoded %T does not marshal: %v", v, err)
	}
	return nil
}

// decodeLSP decodes didOpen's or didClose's params as their handlers do.
func decodeLSP(data []byte) error {
	var p lspDocumentParams
	return decodeDocumentParams(data, &p, &p.TextDocument)
}

// TestParamDecodersCoverMethods: every method of the table has its
// decoder in paramDecoders (so FuzzDecodeParams fuzzes it), or takes no
// params.
func TestParamDecodersCoverMethods(t *testing.T) {
	for _, name := range MethodNames() {
		if paramDecoders[name] == nil && !paramlessMethods[name] {
			t.Errorf("method %s has no params decoder in paramDecoders: add it, so FuzzDecodeParams covers it", name)
		}
	}
	for name := range paramDecoders {
		if !slices.Contains(MethodNames(), name) {
			t.Errorf("paramDecoders lists %s, which is not a method", name)
		}
	}
}

// FuzzDecodeParams: every params decoder of the method table takes any
// bytes without panicking; what it refuses is an invalid-params error, and
// what it accepts marshals again.
func FuzzDecodeParams(f *testing.F) {
	for _, seed := range []string{
		`{"user_request":"x","open_files":[{"path":"a.go","line":3}],"token_budget":{"total":100}}`,
		`{"messages":[1,"x",null]}`, `{"text":"x","model":5}`, `{"request":{"messages":[]},"model":5,"error":"e"}`,
		`{"session_id":"s","seq":-1}`, `{"path":"` + string(bytes.Repeat([]byte("a"), 300)) + `"}`,
		`{"rootUri":"file:///tmp","initializationOptions":{"model":"gpt-4o","token_budget":{"total":5}},"token":"t"}`,
		`{"textDocument":{"uri":"file:///a.go","version":2},"contentChanges":[{"range":{"start":{"line":9,"character":0},"end":{"line":0,"character":99}},"text":"x"},{"text":"whole"}]}`,
		`{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":"package a"}}`,
		`{"id":1}`, `{"id":"x"}`, `{"id":true}`, `{"include":["**/*.go"],"format":"xml","output":"/tmp/x"}`,
		`{"request":{"messages":[]},"redact_secrets":true}`,
		`[]`, `null`, `"x"`, `{"a":`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for name, dec := range paramDecoders {
			if err := dec(data); err != nil && !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Fatalf("%s: %v is not an invalid-params error", name, err)
			}
		}
	})
}
