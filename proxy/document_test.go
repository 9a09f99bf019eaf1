package proxy_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestLedgerKeepsUserDocument: when the real `ctxd proxy` evicts the
// oldest rounds of an Anthropic conversation, a text document the user
// attached in them is in the ledger, as the user's text messages are
// (it was only behind the span's reference: a design note the agent
// was told to follow vanished from view).
func TestLedgerKeepsUserDocument(t *testing.T) {
	up := newUpstream(t)
	const note = "Design note: Bind must answer 400 on malformed JSON, never 500."
	var v map[string]any
	if err := json.Unmarshal(convo(t, "anthropic", 30, false), &v); err != nil {
		t.Fatal(err)
	}
	msgs := v["messages"].([]any)
	first := msgs[2].(map[string]any) // the user message with the first tool result
	first["content"] = append(first["content"].([]any), map[string]any{"type": "document", "title": "design.txt", "source": map[string]any{"type": "text", "media_type": "text/plain", "data": note}})
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := runProxy(t, up.srv.URL, filepath.Join(t.TempDir(), "state"), "--context-window", "50000")
	if resp, answer := post(t, base, "/v1/messages", body, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, answer)
	}
	got := string(up.last(t).Body)
	if !strings.Contains(got, "ledger of ") {
		t.Fatalf("no eviction: %d bytes forwarded of %d", len(got), len(body))
	}
	if !strings.Contains(got, "(document design.txt) "+note) {
		t.Errorf("the ledger does not carry the user's document:\n%.3000s", got)
	}
	checkPairs(t, up.last(t).Body)
}
