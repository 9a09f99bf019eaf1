// Package uvarint reads the binary encodings ctxd's stores persist
// (package index's file index and symbol entries, the tree-sitter store,
// the token-count store and block vectors, the secret scanner's clean
// set, sealed files' keys, the link graph, the focus definitions' terms,
// the tree-sitter timeouts):
// uvarints, counts checked against the bytes left, byte strings. A
// [Reader] keeps its first error and reads zero values after it, so a
// decoder reads field after field and checks [Reader.Err] where it must
// stop. The bytes come from files anyone who can write the state
// directory can change: no read panics or allocates more than the input
// can hold.
package uvarint

import (
	"encoding/binary"
	"errors"
	"math"
)

// Reader reads b from the front.
type Reader struct {
	b       []byte
	err     error
	minimal bool // a varint not in its fewest bytes is an error
}

// NewReader returns a Reader of b. The byte strings it returns are views
// of b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// NewMinimalReader returns a Reader of b that also fails on a varint not
// written in its fewest bytes (a zero last byte after the first): for an
// encoding that must read back to the bytes it came from.
func NewMinimalReader(b []byte) *Reader { return &Reader{b: b, minimal: true} }

// Err is the first error, nil when every read so far succeeded.
func (r *Reader) Err() error { return r.err }

// Len is the count of bytes not read yet.
func (r *Reader) Len() int { return len(r.b) }

// Fail records msg as the error, unless one is recorded already, and
// drops what is left.
func (r *Reader) Fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
	r.b = nil
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.Fail("bad varint")
		return 0
	}
	if r.minimal && n > 1 && r.b[n-1] == 0 {
		r.Fail("varint not minimal")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Count reads a count of items of at least minSize bytes each, failing
// when the bytes left could not hold them, so a corrupt count cannot
// allocate without bound.
func (r *Reader) Count(minSize int) int {
	v := r.Uvarint()
	if v > uint64(len(r.b)/max(minSize, 1)) {
		r.Fail("count over the bytes left")
		return 0
	}
	return int(v)
}

// Offset reads a non-negative int that fits any slice index.
func (r *Reader) Offset() int {
	v := r.Uvarint()
	if v > 1<<40 {
		r.Fail("offset out of range")
		return 0
	}
	return int(v)
}

// Bytes reads n bytes, a view of the input with no room to append into
// what follows. After an error it returns zeros (at most 64 of them, so
// a fixed-size read can still be copied and nothing large is allocated
// for a bad length).
func (r *Reader) Bytes(n int) []byte {
	if r.err == nil && (n < 0 || n > len(r.b)) {
		r.Fail("short")
	}
	if r.err != nil {
		return make([]byte, min(max(n, 0), 64))
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// Byte reads one byte.
func (r *Reader) Byte() byte { return r.Bytes(1)[0] }

// Bool reads a 0 or a 1 (one byte, as its uvarint is); any other value
// is an error.
func (r *Reader) Bool() bool {
	switch r.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Fail("bad bool")
	return false
}

// Str reads a length, then that many bytes as a string.
func (r *Reader) Str() string {
	n := r.Uvarint()
	if n > math.MaxInt32 {
		r.Fail("string length out of range")
	}
	if r.err != nil {
		return ""
	}
	b := r.Bytes(int(n))
	if r.err != nil {
		return ""
	}
	return string(b)
}

// Strs reads a count, then that many strings: nil for none.
func (r *Reader) Strs() []string {
	n := r.Count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.Str()
	}
	return out
}
