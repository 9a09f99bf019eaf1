package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// chunkReader returns at most n bytes a Read, so lines split across reads.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// FuzzDrain: drain reads any input (split into reads of any size) without
// panicking, counts the calls it read, and answering each counted id
// once, as the SDK would, leaves nothing pending.
//
//	go test -run '^$' -fuzz '^FuzzDrain$' -fuzztime 30s ./mcp
func FuzzDrain(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
		`{"jsonrpc":"2.0","id":"three","method":"tools/call"}` + "\n" + `{"id":"three","method":"x"}`,
		`{"id":null,"method":"x"}` + "\n" + `{"id":{"a":1},"method":"x"}` + "\n" + `{"id":[1,2],"method":"x"}` + "\n",
		`{"id":1,"id":2,"method":"x"}` + "\n" + `garbage without a newline`,
		"\n\n\r\n  {\"id\":1 , \"method\":\"m\"}  \r\n",
	} {
		f.Add([]byte(seed), uint8(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // end of input must not wait for answers here
		var out bytes.Buffer
		d := newDrain(ctx, io.NopCloser(&chunkReader{bytes.NewReader(data), int(split) + 1}), nopWriteCloser{&out})
		buf := make([]byte, 64)
		for {
			_, err := d.Read(buf)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		d.mu.Lock()
		pending := map[string]int{}
		for id, n := range d.pending {
			if n <= 0 {
				t.Errorf("id %s pending %d times", id, n)
			}
			pending[id] = n
		}
		d.mu.Unlock()
		for id, n := range pending {
			for range n {
				if _, err := d.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n")); err != nil {
					t.Fatal(err)
				}
			}
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if len(d.pending) != 0 {
			t.Errorf("answered every call read, still pending: %v", d.pending)
		}
	})
}
