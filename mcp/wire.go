package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ctxd/ctxd/internal/jsonpos"
	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// This file is the wire: newline-delimited JSON-RPC 2.0 over a byte
// stream, one message a line (MCP's stdio transport). The line reader
// holds at most one line of at most the limit; a longer line is skipped
// through its newline and answered with an error, and the stream goes on.

// DefaultMaxMessageBytes bounds one input line (one JSON-RPC message)
// unless [Options.MaxMessageBytes] says otherwise: far above a context
// request, small enough that one message cannot take the machine.
const DefaultMaxMessageBytes = 32 << 20

// errLineTooLong reports a line over the limit; the reader skipped it.
type errLineTooLong struct {
	n      int64  // bytes the line had
	prefix []byte // its first bytes (at most prefixBytes), to find its id
}

func (e *errLineTooLong) Error() string {
	return fmt.Sprintf("message of %d bytes or more", e.n)
}

// prefixBytes is how much of an over-long line is kept to find its id.
const prefixBytes = 4 << 10

// lineReader reads newline-terminated lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending, in a buffer of its
// own that the reader never reuses (a message decoded from it may keep
// views of it). A line over max bytes is read through its end and dropped,
// keeping only its prefix, and reported as an *errLineTooLong; the reader
// can go on. At the end of input, a last line without a newline is
// returned; then io.EOF.
//
// A long line is gathered as a list of the reader's chunks and joined
// once, at its exact size: about twice the line at the peak, where a
// growing buffer costs three times (its old and new arrays and the
// garbage of the earlier ones).
func (lr *lineReader) next() ([]byte, error) {
	var chunks [][]byte
	var size int64
	var long *errLineTooLong
	for {
		chunk, err := lr.r.ReadSlice('\n')
		switch {
		case long != nil:
			// skipping an over-long line
		case size+int64(len(chunk)) > int64(lr.max)+2: // +2: the line ending
			long = &errLineTooLong{prefix: prefixOf(chunks, chunk)}
			chunks = nil
		case chunks == nil && err == nil:
			// the common case: a whole line in the buffer
			return trimEOL(append(make([]byte, 0, len(chunk)), chunk...)), nil
		default:
			chunks = append(chunks, append([]byte(nil), chunk...))
		}
		size += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long != nil {
			long.n = size
			return nil, long
		}
		if err != nil && (!errors.Is(err, io.EOF) || size == 0) {
			return nil, err
		}
		line := make([]byte, 0, size)
		for _, c := range chunks {
			line = append(line, c...)
		}
		return trimEOL(line), nil
	}
}

// prefixOf is the first prefixBytes of chunks followed by last.
func prefixOf(chunks [][]byte, last []byte) []byte {
	var p []byte
	for _, c := range append(chunks, last) {
		if len(p)+len(c) >= prefixBytes {
			return append(p, c[:prefixBytes-len(p)]...)
		}
		p = append(p, c...)
	}
	return p
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// raw is a JSON value kept as a view of the line it was decoded from
// (jsonrpc.Raw): the line buffer is never reused (lineReader.next), so a
// 30 MB argument is not copied to be looked at. A raw that was absent is
// nil.
type raw = jsonrpc.Raw

// message is one JSON-RPC 2.0 message read: a request (method and id), a
// notification (method, no id) or a response (id, result or error; the
// server sends no requests, so it ignores them).
type message struct {
	jsonrpc.Message

	method string // Method decoded
}

// decodeMessage decodes one line. A line that is not JSON is a parse
// error; one that is not a JSON-RPC 2.0 message an invalid request. The
// error comes with the message's id when the message had a usable one.
func decodeMessage(line []byte) (*message, *rpcError) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		if p, bad := jsonpos.Find(line); bad {
			// Where and why, as the daemon says it (server's
			// parseErrorMessage).
			return nil, &rpcError{Code: jsonrpc.ParseError, Message: "parse error: the line is not valid JSON at " + p.String() + "; send one JSON-RPC 2.0 object per line"}
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && t[0] == '[' {
			return nil, &rpcError{Code: jsonrpc.InvalidRequest, Message: "invalid request: JSON-RPC batches are not supported: send one message per line"}
		}
		return nil, &rpcError{Code: jsonrpc.InvalidRequest, Message: "invalid request: a message is a JSON object"}
	}
	if m.ID != nil && !validID(m.ID) {
		return nil, &rpcError{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf("invalid request: id %.40s is not a string or a number", m.ID)}
	}
	if !m.VersionOK() {
		return &m, &rpcError{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf("invalid request: jsonrpc is %.20s, want \"2.0\"", orAbsent(m.JSONRPC))}
	}
	if m.Method != nil {
		var ok bool
		if m.method, ok = m.MethodName(); !ok || m.method == "" {
			return &m, &rpcError{Code: jsonrpc.InvalidRequest, Message: fmt.Sprintf("invalid request: method %.40s is not a method name", m.Method)}
		}
	} else if m.Result == nil && m.Error == nil {
		return &m, &rpcError{Code: jsonrpc.InvalidRequest, Message: "invalid request: no method"}
	}
	return &m, nil
}

func orAbsent(r raw) string {
	if r == nil {
		return "absent"
	}
	return string(r)
}

// validID reports whether id is a JSON string, number or null.
func validID(id raw) bool {
	if id.IsNull() {
		return true
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// idFromPrefix finds a message's id in the first bytes of a line too long
// to read, so its error can name the request (the SDKs write id before
// params); nil when the prefix does not show one.
func idFromPrefix(prefix []byte) raw {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := t.(string)
		if !ok {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			if !validID(raw(v)) {
				return nil
			}
			return raw(v)
		}
	}
}

// rpcError is a JSON-RPC error object.
type rpcError = jsonrpc.Error

// writer writes whole messages, one a line, one at a time.
type writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error // the first write error: the client is gone
}

// response is a JSON-RPC response.
type response struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      raw       `json:"id"`
	Result  any       `json:"result,omitempty"`
	Error   *rpcError `json:"error,omitempty"`
}

// notification is a JSON-RPC notification the server sends.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// send encodes v and writes it as one line.
func (w *writer) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("write message: %w", err)
	}
	return w.err
}

func (w *writer) reply(id raw, result any) error {
	return w.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

func (w *writer) fail(id raw, e *rpcError) error {
	return w.send(response{JSONRPC: "2.0", ID: id, Error: e})
}

// failed reports whether a write failed (the client stopped reading).
func (w *writer) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}
