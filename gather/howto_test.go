package gather

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/query"
)

// TestHowToGathersDocs: a question about how to use the project gathers
// the best-matching docs page even when the code and its tests say the
// request's words more often and take every lexical place, and the
// readme in the spelling the project uses (Readme.md); a request for a
// change gathers neither by these rules.
func TestHowToGathersDocs(t *testing.T) {
	files := map[string]string{
		"Readme.md":            "# webkit\n\nA small web toolkit.\n",
		"docs/testclient.md":   "# Test client\n\n## Testing WebSocket sessions\n\nOpen a websocket session with the test client: `client.websocket_connect(url)`.\n",
		"webkit/testclient.py": "class TestClient:\n    def websocket_connect(self, url):\n        \"\"\"Connect a websocket session in a test.\"\"\"\n        return WebSocketTestSession(url)\n",
	}
	for i := range 14 {
		files[fmt.Sprintf("tests/test_websocket_%d.py", i)] = fmt.Sprintf("def test_websocket_session_%d(test_client):\n    # a websocket session through the test client\n    with test_client.websocket_connect('/ws') as websocket:\n        websocket.send_text('session %d')\n", i, i)
	}
	w := workspaceOf(t, files)
	tests := []struct {
		request string
		want    bool
	}{
		{"how do I test a websocket session with the test client?", true},
		{"fix the websocket session of the test client: it never closes", false},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			q := query.Parse(tt.request)
			task, _ := q.ResolveTask("")
			res := gather(t, w, Request{Task: task, Query: q})
			got := sources(res)
			for _, want := range []string{"docs/testclient.md", "Readme.md"} {
				if slices.Contains(got, want) != tt.want {
					t.Errorf("%s gathered: %v, want %v; gathered %v", want, slices.Contains(got, want), tt.want, got)
				}
			}
		})
	}
}
