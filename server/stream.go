package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxd/ctxd/internal/jsonpos"
	"github.com/ctxd/ctxd/internal/jsonrpc"
)

// MaxFrameBytes bounds one message body. Conversation histories sent for
// compaction can be large; 256 MiB is far above any model's window.
const MaxFrameBytes = 256 << 20

// stream is ctxd's LSP framing: "Content-Length: N\r\n\r\n" and N bytes
// of JSON. It answers a bad body with -32700 (parse error) or -32600
// (invalid request) and a bad header with -32700 itself, resynchronizes on
// the next "Content-Length:" header and keeps serving; the connection
// (conn.go) sees only well-formed messages and batches.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger

	// trace, when set, receives a copy of every frame (the -rpc.trace flag).
	trace io.Writer

	writeMu sync.Mutex // serializes writes: one frame per Write call
	wbuf    []byte     // guarded by writeMu

	rbuf []byte // body buffer; only the reading goroutine touches it
	// maxBody bounds one body (0: MaxFrameBytes).
	maxBody int
	// msg is the envelope of the message ReadFrame returned last, its
	// members views of the body (zero for a batch).
	msg jsonrpc.Message
	// resumed is set by resync when it consumed a "Content-Length:" that
	// starts the next header; readRaw prepends it to the first line.
	resumed string
}

func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, c: rwc, log: log}
}

// errBadHeader marks a header block that cannot be framed. msg may quote
// the offending line for the peer; kind is what the log gets, since a
// misframed line can be a piece of a message body (source text).
type errBadHeader struct{ kind, msg string }

func (e *errBadHeader) Error() string { return e.msg }

// ReadFrame returns the next well-formed JSON-RPC frame body: a message
// (its envelope in s.msg) or a batch array. Malformed frames are answered
// here and skipped; only transport errors (EOF, a closed pipe) are
// returned. The body is valid until the next call.
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readRaw()
		var bad *errBadHeader
		if errors.As(err, &bad) {
			s.log.Warn("bad frame header", "problem", bad.kind)
			s.reject(nil, jsonrpc.ParseError, "parse error: "+bad.msg+"; expected \"Content-Length: N\\r\\n\\r\\n\" followed by N bytes of JSON")
			if strings.HasSuffix(s.resumed, "\n") {
				continue // the next header is already in hand
			}
			if err := s.resync(); err != nil {
				return nil, n, err
			}
			continue
		}
		if err != nil {
			return nil, n, err
		}
		if s.trace != nil {
			fmt.Fprintf(s.trace, "<-- %s\n", body)
		}
		if n := nonObjectBatch(body); n > 0 {
			s.log.Warn("rejected batch of non-objects", "items", n)
			s.rejectBatch(n)
			continue
		}
		s.msg = jsonrpc.Message{}
		if code, msg, id := classify(body, &s.msg); code != 0 {
			s.log.Warn("rejected frame", "code", int(code), "bytes", len(body))
			s.reject(id, code, msg)
			continue
		}
		return body, n, nil
	}
}

// maxHeaderLine bounds one header line; a longer one is a bad header,
// skipped without being held in memory.
const maxHeaderLine = 4 << 10

// keepBuf is the largest body buffer kept between frames; a larger one is
// dropped after use so an idle connection does not pin it.
const keepBuf = 1 << 20

// readRaw reads one header block and body. A malformed header returns
// *errBadHeader after skipping to where the next header may start. It
// resynchronizes without eating the next frame: a "Content-Length:"
// glued to the end of garbage (a too-short body's rest, a header-less
// body) starts a header, and a body that holds a complete JSON value
// followed by "Content-Length:" (a too-long length) ends there.
func (s *stream) readRaw() ([]byte, int64, error) {
	if cap(s.rbuf) > keepBuf {
		s.rbuf = nil
	}
	length := -1
	var read int64
	sawAny := false
	for {
		line, n, err := s.readLine()
		read += int64(n)
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, read, &errBadHeader{"line too long", fmt.Sprintf("a header line is longer than %d bytes", maxHeaderLine)}
		}
		if err != nil {
			if err == io.EOF && !sawAny && line == "" {
				return nil, read, io.EOF
			}
			if err == io.EOF {
				return nil, read, io.ErrUnexpectedEOF
			}
			return nil, read, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawAny {
				continue // tolerate blank lines between frames
			}
			break
		}
		if i := indexFold(line, "content-length:"); i > 0 {
			// Garbage, then a header: answer the garbage, keep the header.
			s.resumed = line[i:] + "\r\n"
			return nil, read, &errBadHeader{"garbage before header", fmt.Sprintf("%d bytes that are not a header before \"Content-Length:\"", i)}
		}
		sawAny = true
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, read, &errBadHeader{"no colon", fmt.Sprintf("header line %q has no colon", clip(line))}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 {
				return nil, read, &errBadHeader{"bad content length", fmt.Sprintf("Content-Length %q is not a positive number", clip(strings.TrimSpace(value)))}
			}
			if n > s.limit() {
				return nil, read, &errBadHeader{"too large", fmt.Sprintf("Content-Length %d exceeds the limit of %d bytes", n, s.limit())}
			}
			length = n
		}
	}
	if length < 0 {
		return nil, read, &errBadHeader{"no content length", "header has no Content-Length"}
	}
	body, err := s.readBody(length)
	read += int64(len(body))
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, read, err
	}
	return body, read, nil
}

// limit is the body size limit.
func (s *stream) limit() int {
	if s.maxBody > 0 {
		return s.maxBody
	}
	return MaxFrameBytes
}

// readLine reads one header line of at most maxHeaderLine bytes; a line
// left by resync or a glued header comes first.
func (s *stream) readLine() (string, int, error) {
	if s.resumed != "" && strings.HasSuffix(s.resumed, "\n") {
		line := s.resumed
		s.resumed = ""
		return line, 0, nil
	}
	var b []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		b = append(b, chunk...)
		if err == bufio.ErrBufferFull && len(b) <= maxHeaderLine {
			continue
		}
		if len(b) > maxHeaderLine && err == bufio.ErrBufferFull {
			return "", len(b), bufio.ErrBufferFull
		}
		if err != nil {
			return string(b), len(b), err
		}
		if len(b) > maxHeaderLine {
			return "", len(b), bufio.ErrBufferFull
		}
		line := string(b)
		if s.resumed != "" {
			line, s.resumed = s.resumed+line, ""
		}
		return line, len(b), nil
	}
}

// readBody reads a body of length bytes as they arrive, growing its buffer
// with what actually came (a header announcing 256 MiB reserves nothing).
// When what came holds a complete JSON value followed by the start of a
// new frame, the length was too long: the body ends at the value and the
// rest is read again as the next frame.
func (s *stream) readBody(length int) ([]byte, error) {
	body := s.rbuf[:0]
	scanned := 0
	for len(body) < length {
		want := min(length-len(body), max(s.in.Buffered(), 1), 1<<20)
		if cap(body)-len(body) < want {
			nb := make([]byte, len(body), min(length, max(2*cap(body), len(body)+want, 4<<10)))
			copy(nb, body)
			body = nb
		}
		n, err := io.ReadFull(s.in, body[len(body):len(body)+want])
		body = body[:len(body)+n]
		if err != nil {
			s.rbuf = body[:0]
			return nil, err
		}
		from := max(0, scanned-len("content-length:"))
		if i := indexFold(string(body[from:]), "content-length:"); i >= 0 {
			at := from + i
			if prefix := bytes.TrimSpace(body[:at]); len(prefix) > 0 && json.Valid(prefix) {
				rest := append([]byte(nil), body[at:]...)
				s.in = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), s.in), 64<<10)
				s.rbuf = body[:0]
				return body[:at], nil
			}
		}
		scanned = len(body)
	}
	s.rbuf = body[:0]
	return body, nil
}

// indexFold is strings.Index ignoring ASCII case of s (sub is lower case).
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := 0; j < len(sub); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

// resync discards input up to the next "Content-Length:" (matched in any
// case, anywhere: the garbage before it need not end with a newline), so
// one bad frame costs one error, not one per line of its body. It returns
// only transport errors.
func (s *stream) resync() error {
	const want = "content-length:"
	var window [len(want)]byte
	n := 0
	for {
		b, err := s.in.ReadByte()
		if err != nil {
			return err
		}
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		copy(window[:], window[1:])
		window[len(want)-1] = b
		n++
		if n >= len(want) && string(window[:]) == want {
			s.resumed = "Content-Length:"
			return nil
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// parseErrorMessage is a -32700's message: where the body stops being
// JSON (line, column, byte of the body) and why.
func parseErrorMessage(body []byte) string {
	const msg = "parse error: the message body is not valid JSON"
	if p, bad := jsonpos.Find(body); bad {
		return msg + " at " + p.String() + "; want one JSON-RPC 2.0 object"
	}
	return msg
}

// classify checks a frame body. It returns code 0 for a frame the
// connection can take (a well-formed message, decoded into m, or a batch
// array, whose members the connection checks itself), else the error to
// answer with and the request id when one could be read.
func classify(body []byte, m *jsonrpc.Message) (jsonrpc.Code, string, json.RawMessage) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		switch {
		case !json.Valid(body):
			return jsonrpc.ParseError, parseErrorMessage(body), nil
		case trimmed[0] == '[':
			return 0, "", nil
		}
		return jsonrpc.InvalidRequest, "invalid request: a JSON-RPC message must be a JSON object", nil
	}
	if err := json.Unmarshal(trimmed, m); err != nil {
		return jsonrpc.ParseError, parseErrorMessage(body), nil
	}
	id := validID(m.ID)
	if m.ID != nil && id == nil {
		return jsonrpc.InvalidRequest, "invalid request: \"id\" must be a string or an integer, not " + idKind(m.ID) + " (omit \"id\" for a notification)", nil
	}
	if !m.VersionOK() {
		return jsonrpc.InvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, id
	}
	if msg := shapeProblem(m); msg != "" {
		return jsonrpc.InvalidRequest, "invalid request: " + msg, id
	}
	return 0, "", nil
}

// shapeProblem says what makes a message with a valid id and version
// neither a request nor a response, "" when nothing does.
func shapeProblem(m *jsonrpc.Message) string {
	if m.Method != nil {
		var name string
		switch {
		case json.Unmarshal(m.Method, &name) != nil:
			return `"method" must be a string`
		case m.Result != nil || m.Error != nil:
			return `a message has a "method" (a request) or a "result" or "error" (a response), not both`
		}
		return ""
	}
	switch {
	case m.Result == nil && m.Error == nil && m.ID != nil:
		return `a request needs a "method" string`
	case m.Result == nil && m.Error == nil:
		return `a message needs a "method" (a request) or a "result" or "error" (a response)`
	case m.Result != nil && m.Error != nil:
		return `a response has a "result" or an "error", not both`
	case m.Error != nil:
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if m.Error.IsNull() || json.Unmarshal(m.Error, &e) != nil {
			return `a response's "error" must be an object with an integer "code" and a "message" string`
		}
	}
	return ""
}

// validID returns raw when it is a JSON-RPC id ctxd accepts: a string or
// an integer int64 holds (the spec says numbers should not have fractional
// parts; null is for replies to requests whose id cannot be read).
func validID(raw []byte) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '"' {
		return t
	}
	if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
		return t
	}
	return nil
}

// idKind names what an invalid id is, for the error message.
func idKind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0:
		return "empty"
	case string(t) == "null":
		return "null"
	case t[0] == '{':
		return "an object"
	case t[0] == '[':
		return "an array"
	case string(t) == "true" || string(t) == "false":
		return "a boolean"
	case !bytes.ContainsAny(t, ".eE"):
		return "an integer out of range " + clip(string(t))
	default:
		return "a fractional number " + clip(string(t))
	}
}

// nonObjectBatch returns the item count of a batch array none of whose
// items is an object ([1,2,3]), else 0. The spec answers each such item
// with -32600 (invalid request), in one array.
func nonObjectBatch(body []byte) int {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' {
		return 0
	}
	var items []json.RawMessage
	if json.Unmarshal(t, &items) != nil || len(items) == 0 {
		return 0
	}
	for _, it := range items {
		if it := bytes.TrimSpace(it); len(it) > 0 && it[0] == '{' {
			return 0
		}
	}
	return len(items)
}

// rejectBatch answers a batch of n non-object items.
func (s *stream) rejectBatch(n int) {
	out := make([][]byte, n)
	for i := range out {
		out[i] = errorResponse(nil, jsonrpc.InvalidRequest, "invalid request: a batch item must be a JSON-RPC request object")
	}
	if _, err := s.writeFrame(joinBatch(out)); err != nil {
		s.log.Debug("write rejection", "error", err)
	}
}

// reject writes an error response for a frame the connection never sees.
func (s *stream) reject(id json.RawMessage, code jsonrpc.Code, msg string) {
	if _, err := s.writeFrame(errorResponse(id, code, msg)); err != nil {
		s.log.Debug("write rejection", "error", err)
	}
}

// writeFrame writes one frame (header and body in one Write). Frames are
// written whole, one at a time; a reply to a cancelled request (-32800) is
// written like any other.
func (s *stream) writeFrame(data []byte) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.wbuf = append(s.wbuf[:0], "Content-Length: "...)
	s.wbuf = strconv.AppendInt(s.wbuf, int64(len(data)), 10)
	s.wbuf = append(s.wbuf, "\r\n\r\n"...)
	s.wbuf = append(s.wbuf, data...)
	if s.trace != nil {
		fmt.Fprintf(s.trace, "--> %s\n", data)
	}
	n, err := s.out.Write(s.wbuf)
	return int64(n), err
}

// Close closes the transport.
func (s *stream) Close() error { return s.c.Close() }
