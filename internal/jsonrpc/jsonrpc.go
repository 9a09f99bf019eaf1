// Package jsonrpc is what ctxd's two JSON-RPC 2.0 servers share: the
// daemon's (server/, LSP framing) and the MCP server's (mcp/, one message a
// line). It holds the error codes, the error object, the message envelope
// as read (raw views of its members) and the id rules; the framing, the
// dispatch and the method tables stay with each server, because their
// transports and their specifications differ (LSP ids are strings or
// integers; MCP's follow JSON-RPC and allow any number).
//
// It is ctxd's own and small on purpose: it replaced go.lsp.dev/jsonrpc2,
// which pulled github.com/go-json-experiment/json into the release binary
// for a few hundred lines of use (issue 27).
package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
)

// Code is a JSON-RPC error code.
type Code int

// JSON-RPC 2.0's codes and the LSP ones ctxd answers with.
const (
	ParseError     Code = -32700
	InvalidRequest Code = -32600
	MethodNotFound Code = -32601
	InvalidParams  Code = -32602
	InternalError  Code = -32603
	// ServerNotInitialized: a request before initialize (LSP).
	ServerNotInitialized Code = -32002
	// RequestCancelled: the call was cancelled by $/cancelRequest (LSP).
	RequestCancelled Code = -32800
	// RequestFailed: a well-formed call that failed, here its deadline
	// (LSP).
	RequestFailed Code = -32803
)

// Error is a JSON-RPC error object; it is also the error a method returns
// to answer with a given code.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf is an *Error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Raw is a JSON value kept as a view of the bytes it was decoded from, not
// a copy: encoding/json hands UnmarshalJSON a slice of its input, so a
// message's params are not copied to be looked at. A member that was
// absent is nil. The bytes live as long as the buffer they were read into.
type Raw []byte

// UnmarshalJSON keeps b itself (see Raw).
func (r *Raw) UnmarshalJSON(b []byte) error { *r = b; return nil }

// MarshalJSON writes r as it is (null when absent).
func (r Raw) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r, nil
}

// IsNull reports an absent member or a JSON null.
func (r Raw) IsNull() bool { return r == nil || string(r) == "null" }

// Message is one JSON-RPC 2.0 message as read: a request (method and id),
// a notification (method, no id) or a response (id, result or error).
// Every member is a view of the input (see Raw).
type Message struct {
	JSONRPC Raw `json:"jsonrpc"`
	ID      Raw `json:"id"`
	Method  Raw `json:"method"`
	Params  Raw `json:"params"`
	Result  Raw `json:"result"`
	Error   Raw `json:"error"`
}

// VersionOK reports "jsonrpc": "2.0" (the string, exactly).
func (m *Message) VersionOK() bool { return string(m.JSONRPC) == `"2.0"` }

// MethodName decodes the method member; ok is false when it is absent or
// not a string.
func (m *Message) MethodName() (string, bool) {
	var s string
	if m.Method == nil || json.Unmarshal(m.Method, &s) != nil {
		return "", false
	}
	return s, true
}

// IDKey is id in one spelling per value, to match a cancellation's id
// with the id of the call it names: a string's text quoted, an integer in
// decimal (exactly, at any size int64 holds), another number as the
// shortest float that reads back (1.0 and 1e0 are 1), anything else as it
// came.
func IDKey(id Raw) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return strconv.Quote(s)
		}
		return string(id)
	}
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
		return strconv.FormatInt(n, 10)
	}
	if f, err := strconv.ParseFloat(string(id), 64); err == nil {
		if f == float64(int64(f)) && f >= -1<<63 && f < 1<<63 {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return string(id)
}

// Calls are a connection's calls in flight by id, for cancellation. The
// zero value is empty and ready.
type Calls struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc // IDKey -> the call's cancel
}

// Start registers the call id with its cancel and returns its key for
// End; ok is false when a call with that id is still running (nothing is
// registered then).
func (c *Calls) Start(id Raw, cancel context.CancelFunc) (key string, ok bool) {
	key = IDKey(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[key] != nil {
		return key, false
	}
	if c.m == nil {
		c.m = map[string]context.CancelFunc{}
	}
	c.m[key] = cancel
	return key, true
}

// End removes the call Start registered under key.
func (c *Calls) End(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, key)
}

// Cancel cancels the running call id; an unknown or finished id is
// ignored.
func (c *Calls) Cancel(id Raw) {
	c.mu.Lock()
	cancel := c.m[IDKey(id)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// CancelAll cancels every running call (the peer is gone).
func (c *Calls) CancelAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.m {
		cancel()
	}
}

// Busy reports a call running.
func (c *Calls) Busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m) > 0
}
