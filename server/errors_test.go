package server

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// TestRPCErrorMessage: a message names the method once (an engine error
// that starts with the operation, "pack: …", said "ctx/pack: pack: …"),
// without Go's sentinel suffixes, with the table's code.
func TestRPCErrorMessage(t *testing.T) {
	tests := []struct {
		method string
		err    error
		code   jsonrpc.Code
		want   string
	}{
		{"ctx/pack", fmt.Errorf("pack: --include nosuch/* matched no file: %w", ctxd.ErrInvalidParams), jsonrpc.InvalidParams, "ctx/pack: --include nosuch/* matched no file"},
		{"ctx/pack", fmt.Errorf("pack nope: %w", ctxd.ErrNotFound), CodeNotFound, "ctx/pack: pack nope: not found"},
		{"ctx/outline", fmt.Errorf("a.go: %w (check the path)", ctxd.ErrNotFound), CodeNotFound, "ctx/outline: a.go: not found (check the path)"},
		{"ctx/buildPrompt", errors.New("pack: unrelated"), jsonrpc.InternalError, "ctx/buildPrompt: pack: unrelated"},
	}
	for _, tt := range tests {
		var e *jsonrpc.Error
		if !errors.As(rpcError(tt.method, tt.err), &e) || e.Code != tt.code || e.Message != tt.want {
			t.Errorf("%s %v: %+v, want %d %q", tt.method, tt.err, e, tt.code, tt.want)
		}
	}
}
