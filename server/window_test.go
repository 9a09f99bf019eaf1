package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUnknownWindowOverRPC: the daemon's compactors report a model no
// registry knows, with no window given, as MCP and the CLI do: no window
// number (request.NoWindow read 1073741824) and a warning that the window
// is unknown, with how to give it.
func TestUnknownWindowOverRPC(t *testing.T) {
	call := initialized(t, t.TempDir())
	req := history(2)
	req["model"] = "acme-9000"
	for i, method := range []string{"ctx/compressMessages", "ctx/optimizeRequest"} {
		m := call(2+i, method, map[string]any{"request": req})
		res, _ := m["result"].(map[string]any)
		rep, _ := res["report"].(map[string]any)
		b, _ := json.Marshal(rep)
		if rep == nil || strings.Contains(string(b), "1073741824") {
			t.Errorf("%s: report %.600s, want no sentinel window", method, b)
			continue
		}
		_, w1 := rep["context_window"]
		_, w2 := rep["model_context_window_tokens"]
		ws, _ := rep["warnings"].([]any)
		if w1 || w2 || len(ws) != 1 || !strings.Contains(ws[0].(string), "context window unknown") {
			t.Errorf("%s: window %v / %v, warnings %v; want none shown and the window said unknown", method, rep["context_window"], rep["model_context_window_tokens"], rep["warnings"])
		}
	}
}
