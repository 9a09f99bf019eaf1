package sessions

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
)

// base is the clock of generated checkpoints.
var base = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// history returns an OpenAI Chat history of n messages: a system prompt,
// then user, assistant-with-tool-call and tool-result turns whose text
// depends on tag, so checkpoints of different saves differ.
func history(n int, tag string) json.RawMessage {
	msgs := make([]map[string]any, 0, n)
	msgs = append(msgs, map[string]any{"role": "system", "content": "You are a coding assistant. <rules> & \"quotes\" stay as given."})
	for i := 1; len(msgs) < n; i++ {
		switch i % 3 {
		case 1:
			msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("step %d of %s: fix the failing test in cart/cart.go", i, tag)})
		case 2:
			msgs = append(msgs, map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": "read_file", "arguments": fmt.Sprintf(`{"path":"cart/cart_%d.go"}`, i)},
			}}})
		default:
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": fmt.Sprintf("call_%d", i-1), "content": strings.Repeat(fmt.Sprintf("func F%d() int { return %d }\n", i, i), 8)})
		}
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		panic(err)
	}
	return b
}

// chunkRefs returns n recorded chunks.
func chunkRefs(n int) []ChunkRef {
	out := make([]ChunkRef, n)
	for i := range out {
		out[i] = ChunkRef{
			Source: fmt.Sprintf("pkg/file%02d.go", i), ChunkType: ctxd.ChunkFile,
			Hash:  fmt.Sprintf("%064x", i+1),
			Lines: 120 + i, Tokens: 300 + 7*i, Priority: ctxd.PriorityHigh, Score: 812.5 - float64(i),
		}
		if i%4 == 1 {
			out[i].Truncated, out[i].Truncation = true, ctxd.ViewBodies
			out[i].Elided = []ctxd.LineRange{{Start: 10, End: 40}, {Start: 60, End: 90}}
			out[i].OriginalTokens = 1200
		}
		if i == 0 {
			out[i].Open, out[i].Cursor = true, 12
		}
	}
	return out
}

// sample returns a checkpoint of session id with a history of msgs
// messages and chunks chunks; seq and tag make its content unique.
func sample(id string, seq, msgs, chunks int, tag string) *Checkpoint {
	return &Checkpoint{
		SessionID:           id,
		Seq:                 seq,
		Timestamp:           base.Add(time.Duration(seq) * time.Second),
		Root:                "/work/shop",
		TaskType:            ctxd.TaskDebug,
		UserRequest:         fmt.Sprintf("fix the failing login test (%s #%d)", tag, seq),
		State:               StateRunning,
		ContextSummary:      Summary{ChunksIncluded: chunks, TokensUsed: 3500, Utilization: 0.875},
		Model:               "gpt-4o",
		TokenBudget:         &ctxd.Budget{Total: 8000, System: 800, Context: 4000, UserRequest: 800, Response: 2400},
		Artifacts:           []ctxd.Artifact{{Type: "file", Path: "src/auth.py"}},
		ConversationHistory: history(msgs, fmt.Sprintf("%s-%d", tag, seq)),
		HistoryFormat:       "openai-chat",
		Chunks:              chunkRefs(chunks),
		BuildRequest:        json.RawMessage(`{"user_request":"fix the failing login test","patterns":["src/**"]}`),
	}
}

// openStore opens a store in a fresh directory.
func openStore(t testing.TB, opts Options) *Store {
	t.Helper()
	return openStoreIn(t, filepath.Join(t.TempDir(), "sessions"), opts)
}

// openStoreIn opens a store in dir, failing the test on an error.
func openStoreIn(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// files lists the names in a session directory.
func files(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// mustEncode encodes cp or fails the test.
func mustEncode(t testing.TB, cp *Checkpoint) []byte {
	t.Helper()
	b, err := encodeFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
