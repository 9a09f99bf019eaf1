package testutil

import "testing"

// RPCError returns the code and message of a JSON-RPC reply decoded into
// a map, and fails the test when the reply is not an error.
func RPCError(t testing.TB, reply map[string]any) (code int, message string) {
	t.Helper()
	e, ok := reply["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error, got %v", reply)
	}
	return int(e["code"].(float64)), e["message"].(string)
}
