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

	"go.lsp.dev/jsonrpc2"
)

// MaxFrameBytes bounds one message body. Conversation histories sent for
// compaction can be large; 256 MiB is far above any model's window.
const MaxFrameBytes = 256 << 20

// stream is ctxd's LSP-framed jsonrpc2.Stream. It exists because
// jsonrpc2 v1.0.1 ends the connection on a malformed frame without
// replying; ctxd answers a bad body with -32700 (parse error) or -32600
// (invalid request), answers a bad header with -32700, resynchronizes on
// the next "Content-Length:" header and keeps serving.
//
// It implements jsonrpc2's raw-frame methods (ReadFrame, WriteFrame), so
// batches keep working.
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
	// resumed is set by resync when it consumed a "Content-Length:" that
	// starts the next header; readRaw prepends it to the first line.
	resumed string
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(rwc io.ReadWriteCloser, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(rwc, 64<<10), out: rwc, c: rwc, log: log}
}

// errBadHeader marks a header block that cannot be framed. msg may quote
// the offending line for the peer; kind is what the log gets, since a
// misframed line can be a piece of a message body (source text).
type errBadHeader struct{ kind, msg string }

func (e *errBadHeader) Error() string { return e.msg }

// Read implements jsonrpc2.Stream.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, n, err
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

// ReadFrame returns the next well-formed JSON-RPC frame body. Malformed
// frames are answered here and skipped; only transport errors (EOF, a
// closed pipe) are returned. The body is valid until the next call.
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readRaw()
		var bad *errBadHeader
		if errors.As(err, &bad) {
			s.log.Warn("bad frame header", "problem", bad.kind)
			s.reject(ctx, nil, jsonrpc2.ParseError, "parse error: "+bad.msg+"; expected \"Content-Length: N\\r\\n\\r\\n\" followed by N bytes of JSON")
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
		if code, msg, id := classify(body); code != 0 {
			s.log.Warn("rejected frame", "code", int(code), "bytes", len(body))
			s.reject(ctx, id, code, msg)
			continue
		}
		return body, n, nil
	}
}

// readRaw reads one header block and body. A malformed header returns
// *errBadHeader after skipping to where the next header may start.
func (s *stream) readRaw() ([]byte, int64, error) {
	length := -1
	var read int64
	sawAny := false
	for {
		line, err := s.in.ReadString('\n')
		read += int64(len(line))
		if s.resumed != "" {
			line, s.resumed = s.resumed+line, ""
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
			if n > MaxFrameBytes {
				return nil, read, &errBadHeader{"too large", fmt.Sprintf("Content-Length %d exceeds the limit of %d bytes", n, MaxFrameBytes)}
			}
			length = n
		}
	}
	if length < 0 {
		return nil, read, &errBadHeader{"no content length", "header has no Content-Length"}
	}
	if cap(s.rbuf) < length {
		s.rbuf = make([]byte, length)
	}
	body := s.rbuf[:length]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, read, err
	}
	return body, read + int64(length), nil
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

// classify checks a frame body. It returns code 0 for a frame jsonrpc2 can
// take (a well-formed message or a batch array, whose members jsonrpc2
// checks itself), else the error to answer with and the request id when one
// could be read.
func classify(body []byte) (jsonrpc2.Code, string, json.RawMessage) {
	if !json.Valid(body) {
		return jsonrpc2.ParseError, "parse error: the message body is not valid JSON", nil
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return 0, "", nil
	}
	var env struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
	}
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &env) != nil {
		return jsonrpc2.InvalidRequest, "invalid request: a JSON-RPC message must be a JSON object", nil
	}
	id := validID(env.ID)
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		return jsonrpc2.InvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, id
	}
	if _, err := jsonrpc2.DecodeMessage(body); err != nil {
		msg := "invalid request: " + strings.TrimPrefix(err.Error(), "jsonrpc2: ")
		if env.Method == nil && env.ID != nil {
			msg = `invalid request: a request needs a "method" string`
		}
		return jsonrpc2.InvalidRequest, msg, id
	}
	return 0, "", nil
}

// validID returns raw when it is a JSON-RPC id (a string or a number).
func validID(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
		return t
	}
	return nil
}

// reject writes an error response for a frame jsonrpc2 never sees.
func (s *stream) reject(ctx context.Context, id json.RawMessage, code jsonrpc2.Code, msg string) {
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, &jsonrpc2.Error{Code: code, Message: msg}}
	if resp.ID == nil {
		resp.ID = json.RawMessage("null")
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return
	}
	if _, err := s.WriteFrame(ctx, data); err != nil {
		s.log.Debug("write rejection", "error", err)
	}
}

// Write implements jsonrpc2.Stream.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return 0, fmt.Errorf("encode message: %w", err)
	}
	return s.WriteFrame(ctx, data)
}

// WriteFrame frames an encoded body and writes header and body in one Write.
// It ignores ctx on purpose: a reply to a cancelled request (-32800) must
// still be written.
func (s *stream) WriteFrame(_ context.Context, data []byte) (int64, error) {
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
