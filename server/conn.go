package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// conn is one connection's JSON-RPC 2.0 side: it reads messages from the
// stream, runs each through the client, and writes the replies.
//
// Requests start in wire order: the read loop waits until the request's
// handler returns, or releases it (an async method, once registered for
// cancellation), before it reads the next message. $/cancelRequest is
// answered ahead of that, on the read loop. A batch's members start in
// order the same way and its replies go out together, one array, when the
// last call of it is answered.
type conn struct {
	st  *stream
	cl  *client
	ctx context.Context // the connection's: handlers derive from it

	running running       // handlers that have not returned
	failed  atomic.Bool   // a write failed: the peer is gone
	done    chan struct{} // closed when the read loop ends
	err     error         // why it ended; read after done
}

// rpcRequest is one call or notification, its bytes its own (the stream
// reuses the frame buffer once the read loop goes on).
type rpcRequest struct {
	id     jsonrpc.Raw // nil for a notification
	method string
	params jsonrpc.Raw // nil when absent or null
}

func (r *rpcRequest) isCall() bool { return r.id != nil }

// newRequest copies a message's method, id and params.
func newRequest(m *jsonrpc.Message, name string) *rpcRequest {
	r := &rpcRequest{method: name}
	if !m.ID.IsNull() {
		r.id = bytes.Clone(m.ID)
	}
	if !m.Params.IsNull() {
		r.params = bytes.Clone(m.Params)
	}
	return r
}

func newConn(ctx context.Context, st *stream, cl *client) *conn {
	return &conn{st: st, cl: cl, ctx: ctx, done: make(chan struct{})}
}

// serve runs the read loop until the stream ends or ctx does. At the end
// of input it waits (at most drainTimeout) for the calls still running,
// so a request in flight when stdin closes is still answered.
func (c *conn) serve() {
	defer close(c.done)
	for {
		body, _, err := c.st.ReadFrame(c.ctx)
		if err != nil {
			if isClosed(err) && !c.failed.Load() {
				c.drain()
			}
			c.err = err
			return
		}
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
			c.batch(t)
			continue
		}
		m := &c.st.msg
		name, isRequest := m.MethodName()
		if !isRequest {
			continue // a response: the daemon sends no requests, so it answers none
		}
		c.dispatch(newRequest(m, name), nil)
	}
}

// drainTimeout bounds how long end of input waits for replies in flight.
const drainTimeout = 5 * time.Minute

func (c *conn) drain() {
	select {
	case <-c.running.idle():
	case <-time.After(drainTimeout):
	case <-c.ctx.Done():
	}
}

// running counts the handlers that have not returned. Unlike a
// sync.WaitGroup it may be waited on while the read loop still adds.
type running struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n drops to 0
}

func (r *running) add() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		r.zero = make(chan struct{})
	}
	r.n++
}

func (r *running) done() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n--; r.n == 0 {
		close(r.zero)
	}
}

// idle is closed once no handler runs (at once when none does now).
func (r *running) idle() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		z := make(chan struct{})
		close(z)
		return z
	}
	return r.zero
}

// dispatch starts one request and returns when its handler returned or
// released the read loop. A call's reply is written, or given to collect
// (a batch member), before the release of a handler that did not go async.
func (c *conn) dispatch(req *rpcRequest, collect func([]byte)) {
	if req.method == "$/cancelRequest" {
		c.cl.cancel(req.params)
		if req.isCall() {
			c.answer(req.id, struct{}{}, nil, collect)
		}
		return
	}
	released := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(released) }) }
	c.running.add()
	go func() {
		defer c.running.done()
		defer release()
		answered := false
		defer func() {
			// handle recovers its own panics; this catches one in encoding
			// a result (a MarshalJSON that panics).
			if r := recover(); r != nil {
				c.cl.log.Error("reply panicked", "method", req.method, "panic", fmt.Sprint(r))
				if req.isCall() && !answered {
					c.answer(req.id, nil, jsonrpc.Errorf(jsonrpc.InternalError, "internal error in %s: %v (the daemon is still running; please report this with the log)", req.method, r), collect)
				}
			}
		}()
		res, err := c.cl.handle(c.ctx, req, release)
		if req.isCall() {
			data := encodeResponse(req.id, res, err)
			answered = true
			c.send(data, collect)
		}
	}()
	<-released
}

// answer writes (or collects) the reply to the call id.
func (c *conn) answer(id jsonrpc.Raw, result any, err error, collect func([]byte)) {
	c.send(encodeResponse(id, result, err), collect)
}

func (c *conn) send(data []byte, collect func([]byte)) {
	if collect != nil {
		collect(data)
		return
	}
	c.write(data)
}

// write writes one frame. When a write fails the peer is gone: the calls
// still running are cancelled and the transport closed, which ends the
// read loop.
func (c *conn) write(data []byte) {
	if _, err := c.st.writeFrame(data); err != nil && !c.failed.Swap(true) {
		if !isClosed(err) {
			c.cl.log.Warn("write failed; closing the connection", "error", err)
		}
		c.cl.inflight.CancelAll()
		c.st.Close()
	}
}

// batch serves a batch array: each member in order as dispatch does, the
// replies of its calls (and the errors of its malformed members) in one
// array, in member order, written when the last call is answered. A batch
// of notifications has no reply; an empty array is answered with one
// error, not an array (JSON-RPC 2.0, section 6).
func (c *conn) batch(body []byte) {
	var items []jsonrpc.Raw
	if json.Unmarshal(body, &items) != nil {
		return // classify let only valid JSON through
	}
	if len(items) == 0 {
		c.write(errorResponse(nil, jsonrpc.InvalidRequest, "invalid request: an empty batch"))
		return
	}
	replies := make([][]byte, len(items))
	// pending counts unanswered calls, plus one for this loop until it has
	// started every member: whoever takes it to zero writes the array.
	var pending atomic.Int64
	pending.Store(1)
	var mu sync.Mutex
	finish := func() {
		if pending.Add(-1) != 0 {
			return
		}
		mu.Lock()
		var out [][]byte
		for _, r := range replies {
			if r != nil {
				out = append(out, r)
			}
		}
		mu.Unlock()
		if len(out) > 0 {
			c.write(joinBatch(out))
		}
	}
	for i, item := range items {
		req, code, msg := batchMember(item)
		if code != 0 {
			replies[i] = errorResponse(nil, code, msg)
			continue
		}
		if !req.isCall() {
			c.dispatch(req, nil)
			continue
		}
		pending.Add(1)
		c.dispatch(req, func(data []byte) {
			mu.Lock()
			replies[i] = data
			mu.Unlock()
			finish()
		})
	}
	finish()
}

// batchMember reads one member of a batch: a request object with
// "jsonrpc": "2.0", a method string and an id that is a string, an integer
// or absent (or null: a notification).
func batchMember(item jsonrpc.Raw) (*rpcRequest, jsonrpc.Code, string) {
	var m jsonrpc.Message
	if len(item) == 0 || item[0] != '{' || json.Unmarshal(item, &m) != nil {
		return nil, jsonrpc.InvalidRequest, "invalid request: a batch item must be a JSON-RPC request object"
	}
	if !m.VersionOK() {
		return nil, jsonrpc.InvalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	}
	name, ok := m.MethodName()
	if !ok {
		return nil, jsonrpc.InvalidRequest, `invalid request: a batch item needs a "method" string`
	}
	if !m.ID.IsNull() && validID(m.ID) == nil {
		return nil, jsonrpc.InvalidRequest, "invalid request: \"id\" must be a string or an integer, not " + idKind(m.ID)
	}
	return newRequest(&m, name), 0, ""
}

// encodeResponse is the reply to the call id: result, or err as an error
// object (an *jsonrpc.Error as it is, anything else -32603). Results are
// encoded by encoding/json without HTML escaping; one that cannot be
// encoded is answered with -32603.
func encodeResponse(id jsonrpc.Raw, result any, err error) []byte {
	if err != nil {
		var e *jsonrpc.Error
		if !errors.As(err, &e) {
			e = &jsonrpc.Error{Code: jsonrpc.InternalError, Message: err.Error()}
		}
		return envelope(id, "error", e)
	}
	return envelope(id, "result", result)
}

// envelope is {"jsonrpc":"2.0","id":ID,"KEY":VALUE}.
func envelope(id jsonrpc.Raw, key string, value any) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		b.WriteString("null")
	} else {
		b.Write(id)
	}
	b.WriteString(`,"` + key + `":`)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		if key == "error" {
			// An error object whose data cannot be encoded: without it.
			e := value.(*jsonrpc.Error)
			return envelope(id, key, &jsonrpc.Error{Code: e.Code, Message: e.Message})
		}
		return envelope(id, "error", jsonrpc.Errorf(jsonrpc.InternalError, "internal error: the result cannot be encoded as JSON: %v", err))
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	b.WriteByte('}')
	return b.Bytes()
}

// errorResponse is an error reply to id (null when nil).
func errorResponse(id []byte, code jsonrpc.Code, msg string) []byte {
	return envelope(id, "error", &jsonrpc.Error{Code: code, Message: msg})
}

// joinBatch is the array of replies.
func joinBatch(replies [][]byte) []byte {
	out := []byte{'['}
	for i, r := range replies {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	return append(out, ']')
}
