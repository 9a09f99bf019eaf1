package server

import (
	"context"
	"errors"
	"strings"
	"syscall"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/jsonrpc"
	"github.com/ctxd/ctxd/safefs"
	"github.com/ctxd/ctxd/sessions"
)

// ctxd's own error codes, in a block of their own outside the JSON-RPC
// reserved range (-32768..-32000) and LSP's (-32899..-32800).
const (
	// CodeOutsideWorkspace: a path resolves outside the workspace root.
	CodeOutsideWorkspace jsonrpc.Code = -31001
	// CodeNotFound: a named file, session or checkpoint does not exist.
	CodeNotFound jsonrpc.Code = -31002
	// CodeOverBudget: the request cannot fit its token budget even at its
	// floor.
	CodeOverBudget jsonrpc.Code = -31003
	// CodeCorrupt: stored data (a session checkpoint) does not verify: it
	// is truncated, fails its checksum, or was written by a newer ctxd.
	// The message names the file and the reason; the file is left alone.
	CodeCorrupt jsonrpc.Code = -31004
	// CodeUnresolvedReference: a model request carries a ctxd reference
	// its session cannot resolve (the artifact is missing or does not
	// verify); the compactors fail closed.
	CodeUnresolvedReference jsonrpc.Code = -31005
)

// rpcError maps an engine error to a JSON-RPC error: the one table of
// error codes. The message is the error's own, which names what was wrong
// and how to fix it.
func rpcError(method string, err error) error {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return rpc
	}
	msg := method + ": " + ctxd.MessageOf(strings.TrimPrefix(method, "ctx/"), err)
	code := jsonrpc.InternalError
	switch {
	case errors.Is(err, context.Canceled):
		code, msg = jsonrpc.RequestCancelled, method+": request cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		code = jsonrpc.RequestFailed
	case errors.Is(err, request.ErrUnresolvedReference):
		code = CodeUnresolvedReference
	case errors.Is(err, ctxd.ErrOutsideRoot):
		code = CodeOutsideWorkspace
	case errors.Is(err, ctxd.ErrNotFound):
		code = CodeNotFound
	case errors.Is(err, ctxd.ErrOverBudget):
		code = CodeOverBudget
	case errors.Is(err, sessions.ErrCorrupt), errors.Is(err, sessions.ErrNewerSchema), errors.Is(err, artifacts.ErrCorrupt):
		code = CodeCorrupt
	case errors.Is(err, ctxd.ErrInvalidParams):
		code = jsonrpc.InvalidParams
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENAMETOOLONG), errors.Is(err, syscall.ENOTDIR), errors.Is(err, safefs.ErrNotRegular):
		// A path the client named cannot be used: a symlink loop, a
		// name over the system's limit, a FIFO or device.
		code = jsonrpc.InvalidParams
	}
	return &jsonrpc.Error{Code: code, Message: msg}
}
