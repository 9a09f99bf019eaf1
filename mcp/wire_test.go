package mcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// chunkReader returns at most n bytes a Read, so lines split across reads.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// wantLines is what lineReader must return for data under the limit max:
// each newline-terminated line (and a last one without a newline) without
// its line ending, or, for a line over the limit, its size and prefix.
type wantLine struct {
	line   []byte
	long   bool
	n      int64
	prefix []byte
}

func wantLines(data []byte, max int) []wantLine {
	var out []wantLine
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		seg := data
		if i >= 0 {
			seg = data[:i+1]
		}
		data = data[len(seg):]
		if len(seg) > max+2 {
			out = append(out, wantLine{long: true, n: int64(len(seg)), prefix: seg[:min(len(seg), prefixBytes)]})
			continue
		}
		out = append(out, wantLine{line: trimEOL(seg)})
	}
	return out
}

// readAll reads every line of lr until EOF.
func readAll(t *testing.T, lr *lineReader) []wantLine {
	t.Helper()
	var got []wantLine
	for {
		line, err := lr.next()
		var long *errLineTooLong
		switch {
		case errors.As(err, &long):
			got = append(got, wantLine{long: true, n: long.n, prefix: long.prefix})
		case errors.Is(err, io.EOF):
			return got
		case err != nil:
			t.Fatal(err)
		default:
			if len(line) > lr.max+2 {
				t.Fatalf("line of %d bytes over the limit %d", len(line), lr.max)
			}
			got = append(got, wantLine{line: line})
		}
	}
}

func sameLines(t *testing.T, got, want []wantLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.long != w.long || g.n != w.n || !bytes.Equal(g.line, w.line) || !bytes.Equal(g.prefix, w.prefix) {
			t.Fatalf("line %d: got long=%v n=%d %.80q prefix %.40q, want long=%v n=%d %.80q prefix %.40q", i, g.long, g.n, g.line, g.prefix, w.long, w.n, w.line, w.prefix)
		}
	}
}

// TestLineReaderLong: lines longer than the reader's buffer are gathered
// whole under the limit, and skipped through their end over it, the next
// line read intact.
func TestLineReaderLong(t *testing.T) {
	big := strings.Repeat("a", 200<<10)
	over := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"text":"` + strings.Repeat("b", 3<<20) + `"}}`
	data := []byte("one\r\n" + big + "\n" + over + "\n" + "{\"id\":8}\n" + big)
	lr := newLineReader(&chunkReader{bytes.NewReader(data), 100_000}, 1<<20)
	got := readAll(t, lr)
	sameLines(t, got, wantLines(data, 1<<20))
	if id := idFromPrefix(got[2].prefix); string(id) != "7" {
		t.Errorf("id of the over-long line = %s, want 7", id)
	}
}

// FuzzLineReader: the line reader never panics and returns exactly the
// input's lines, each over the limit reported with its size and prefix
// instead, whatever the limit and however the input is split into reads;
// every line decodes to a message or an error without panicking, and an
// over-long line's id, if found, is a valid id.
//
//	go test -run '^$' -fuzz '^FuzzLineReader$' -fuzztime 30s ./mcp
func FuzzLineReader(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
		`{"jsonrpc":"2.0","id":"three","method":"tools/call"}` + "\n" + `{"id":"three","method":"x"}`,
		`{"id":null,"method":"x"}` + "\n" + `{"id":{"a":1},"method":"x"}` + "\n" + `{"id":[1,2],"method":"x"}` + "\n",
		`{"id":1,"id":2,"method":"x"}` + "\n" + `garbage without a newline`,
		"\n\n\r\n  {\"id\":1 , \"method\":\"m\"}  \r\n",
		`[{"jsonrpc":"2.0","id":70,"method":"ping"}]` + "\n42\n\"s\"\n{\"jsonrpc\":\"1.0\",\"id\":true}\n",
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"xxxxxxxxxxxxxxxxxxxxxxxx"}}}` + "\n",
	} {
		f.Add([]byte(seed), uint16(40), uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, split uint8) {
		max := int(limit)%4096 + 1
		lr := newLineReader(&chunkReader{bytes.NewReader(data), int(split) + 1}, max)
		got := readAll(t, lr)
		sameLines(t, got, wantLines(data, max))
		for _, l := range got {
			if l.long {
				if id := idFromPrefix(l.prefix); id != nil && !validID(id) {
					t.Fatalf("id %q from an over-long line is not an id", id)
				}
				continue
			}
			m, e := decodeMessage(l.line)
			if e == nil && (m == nil || m.Method == nil && m.Result == nil && m.Error == nil) {
				t.Fatalf("%q decoded without error to a message with no method, result or error", l.line)
			}
			if e != nil && m != nil && m.ID != nil && !validID(m.ID) {
				t.Fatalf("%q: an error answer would carry the invalid id %q", l.line, m.ID)
			}
		}
	})
}
