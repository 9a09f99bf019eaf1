package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// MaxMessageBytes bounds one input message (one line): far above any
// tool call's arguments, the same as the JSON-RPC daemon's body limit.
// A client that writes more without a newline ends its session with an
// error instead of growing the server's memory without bound: the SDK's
// transport stops at it (its MaxLineLength), and so does drain's copy.
const MaxMessageBytes = 32 << 20

// drainTimeout bounds how long end of input waits for the answers of the
// requests read before it.
const drainTimeout = 2 * time.Minute

// drain makes end of input wait for the answers of the calls already read.
//
// The SDK's stdio transport ends the session as soon as its reader
// returns EOF, and requests still running then are never answered: a
// client that writes its requests and closes its end of the pipe
// (`printf ... | ctxd mcp`, a scripted smoke test) loses the answers. drain
// watches the newline-delimited JSON-RPC messages in both directions,
// counts the requests read (a method and an id) and the responses written
// (an id and no method), and holds EOF back until every request read has
// its response, the context ends or drainTimeout passes.
type drain struct {
	ctx context.Context
	in  io.ReadCloser
	out io.WriteCloser

	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]int // request id (raw JSON) -> requests not yet answered
	inBuf   []byte         // a partial line read
	outBuf  []byte         // a partial line written
	maxLine int            // MaxMessageBytes, smaller in tests
}

func newDrain(ctx context.Context, in io.ReadCloser, out io.WriteCloser) *drain {
	d := &drain{ctx: ctx, in: in, out: out, pending: map[string]int{}, maxLine: MaxMessageBytes}
	d.cond = sync.NewCond(&d.mu)
	return d
}

// envelope is what drain reads of a message.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// lines splits buf's complete lines off and returns them with the rest.
func lines(buf []byte) ([][]byte, []byte) {
	var out [][]byte
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return out, buf
		}
		out = append(out, buf[:i])
		buf = buf[i+1:]
	}
}

func (d *drain) note(line []byte, read bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return
	}
	var e envelope
	if json.Unmarshal(line, &e) != nil || len(e.ID) == 0 || string(e.ID) == "null" {
		return
	}
	id := string(e.ID)
	switch {
	case read && e.Method != nil:
		d.pending[id]++
	case !read && e.Method == nil:
		if d.pending[id] > 0 {
			d.pending[id]--
			if d.pending[id] == 0 {
				delete(d.pending, id)
			}
			d.cond.Broadcast()
		}
	}
}

// noteLines appends chunk to buf, the partial line before it, notes the
// lines it completes and returns what is left of the last one. Only the
// chunk is searched for a line break (buf holds none), so a 30 MB line
// read in small pieces costs one pass, not one per piece; a buffer over
// 1 MiB is not kept once its line ended.
func (d *drain) noteLines(buf, chunk []byte, read bool) []byte {
	buf = append(buf, chunk...)
	if bytes.IndexByte(chunk, '\n') < 0 {
		return buf
	}
	ls, rest := lines(buf)
	for _, l := range ls {
		d.note(l, read)
	}
	if cap(rest) > 1<<20 {
		rest = append([]byte(nil), rest...)
	}
	return rest
}

func (d *drain) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	d.mu.Lock()
	d.inBuf = d.noteLines(d.inBuf, p[:n], true)
	if len(d.inBuf) > d.maxLine {
		d.inBuf = nil
		d.mu.Unlock()
		return n, fmt.Errorf("mcp: an input message is over %d bytes without a newline: ending the session (messages are one JSON-RPC object per line)", d.maxLine)
	}
	if err == io.EOF {
		if len(d.inBuf) > 0 { // a last message without a newline
			d.note(d.inBuf, true)
			d.inBuf = nil
		}
		d.waitAnswered()
	}
	d.mu.Unlock()
	return n, err
}

// waitAnswered waits, with d.mu held, until nothing is pending, the
// context ends or drainTimeout passes.
func (d *drain) waitAnswered() {
	if len(d.pending) == 0 {
		return
	}
	stop := context.AfterFunc(d.ctx, func() {
		d.mu.Lock()
		d.cond.Broadcast()
		d.mu.Unlock()
	})
	defer stop()
	t := time.AfterFunc(drainTimeout, func() {
		d.mu.Lock()
		d.pending = map[string]int{}
		d.cond.Broadcast()
		d.mu.Unlock()
	})
	defer t.Stop()
	for len(d.pending) > 0 && d.ctx.Err() == nil {
		d.cond.Wait()
	}
}

func (d *drain) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	d.mu.Lock()
	d.outBuf = d.noteLines(d.outBuf, p[:n], false)
	d.mu.Unlock()
	return n, err
}

func (d *drain) Close() error { return d.in.Close() }

// drainWriter is d's output side (the transport closes it separately).
type drainWriter struct{ d *drain }

func (w drainWriter) Write(p []byte) (int, error) { return w.d.Write(p) }
func (w drainWriter) Close() error                { return w.d.out.Close() }
