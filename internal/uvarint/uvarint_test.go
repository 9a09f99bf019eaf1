package uvarint

import (
	"encoding/binary"
	"testing"
)

// TestReader: each read on well-formed bytes, and the first error of a
// malformed one sticks with zero values after it.
func TestReader(t *testing.T) {
	b := binary.AppendUvarint(nil, 300)
	b = append(b, 3, 'a', 'b', 'c') // Str
	b = append(b, 1, 0)             // Bool true, Bool false
	b = append(b, 0xfe)             // Byte
	b = append(b, 2, 1, 'x', 0)     // Strs: "x", ""
	b = append(b, 2, 9, 9)          // Count(1) of 2, then 2 bytes
	r := NewReader(b)
	if v := r.Uvarint(); v != 300 {
		t.Errorf("Uvarint = %d", v)
	}
	if s := r.Str(); s != "abc" {
		t.Errorf("Str = %q", s)
	}
	if !r.Bool() || r.Bool() {
		t.Error("Bool: want true, false")
	}
	if c := r.Byte(); c != 0xfe {
		t.Errorf("Byte = %x", c)
	}
	if ss := r.Strs(); len(ss) != 2 || ss[0] != "x" || ss[1] != "" {
		t.Errorf("Strs = %q", ss)
	}
	if n := r.Count(1); n != 2 || string(r.Bytes(n)) != "\x09\x09" {
		t.Errorf("Count = %d", n)
	}
	if r.Err() != nil || r.Len() != 0 {
		t.Errorf("err %v, %d bytes left", r.Err(), r.Len())
	}

	tests := []struct {
		name string
		in   []byte
		read func(r *Reader)
		want string
	}{
		{"bad varint", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, func(r *Reader) { r.Uvarint() }, "bad varint"},
		{"not minimal", []byte{0x81, 0x00}, func(r *Reader) { *r = *NewMinimalReader(r.b); r.Uvarint() }, "varint not minimal"},
		{"minimal count", []byte{0x80, 0x00}, func(r *Reader) { *r = *NewMinimalReader(r.b); r.Count(1) }, "varint not minimal"},
		{"empty", nil, func(r *Reader) { r.Uvarint() }, "bad varint"},
		{"count over the bytes", []byte{5, 0, 0}, func(r *Reader) { r.Count(1) }, "count over the bytes left"},
		{"count of wide items", []byte{2, 0, 0, 0}, func(r *Reader) { r.Count(2) }, "count over the bytes left"},
		{"short bytes", []byte{1, 2}, func(r *Reader) { r.Bytes(3) }, "short"},
		{"negative length", []byte{1}, func(r *Reader) { r.Bytes(-1) }, "short"},
		{"short string", []byte{4, 'a'}, func(r *Reader) { r.Str() }, "short"},
		{"bad bool", []byte{2}, func(r *Reader) { r.Bool() }, "bad bool"},
		{"offset", binary.AppendUvarint(nil, 1<<41), func(r *Reader) { r.Offset() }, "offset out of range"},
		{"first error sticks", []byte{2}, func(r *Reader) { r.Bool(); r.Bytes(5); r.Fail("later") }, "bad bool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(tt.in)
			tt.read(r)
			if r.Err() == nil || r.Err().Error() != tt.want {
				t.Fatalf("err %v, want %q", r.Err(), tt.want)
			}
			if r.Len() != 0 || r.Uvarint() != 0 || r.Str() != "" || r.Strs() != nil || r.Count(1) != 0 || r.Bool() || r.Byte() != 0 {
				t.Errorf("reads after the error are not zero")
			}
			if z := r.Bytes(1 << 30); len(z) != 64 {
				t.Errorf("Bytes after an error: %d bytes, want 64 zeros", len(z))
			}
		})
	}
}

// FuzzReader: any input read by any sequence of reads never panics,
// never returns more bytes than the input held, and an error sticks.
func FuzzReader(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 1, 0xff}, []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, []byte{5, 5, 6})
	f.Fuzz(func(t *testing.T, in, ops []byte) {
		r := NewReader(in)
		if len(ops) > 0 && ops[0]&8 != 0 {
			r = NewMinimalReader(in)
		}
		var failed bool
		for _, op := range ops {
			switch op % 8 {
			case 0:
				left := r.Len()
				if v := r.Uvarint(); r.minimal && r.Err() == nil && len(binary.AppendUvarint(nil, v)) != left-r.Len() {
					t.Fatalf("a minimal reader read %d bytes for %d", left-r.Len(), v)
				}
			case 1:
				if n := r.Count(int(op / 8)); n > len(in) {
					t.Fatalf("Count %d over %d input bytes", n, len(in))
				}
			case 2:
				if v := r.Offset(); v < 0 {
					t.Fatalf("Offset %d", v)
				}
			case 3:
				if b := r.Bytes(int(op / 8)); len(b) > max(len(in), 64) {
					t.Fatalf("Bytes: %d", len(b))
				}
			case 4:
				r.Byte()
			case 5:
				r.Bool()
			case 6:
				if s := r.Str(); len(s) > len(in) {
					t.Fatalf("Str of %d bytes from %d", len(s), len(in))
				}
			case 7:
				if ss := r.Strs(); len(ss) > len(in) {
					t.Fatalf("Strs: %d from %d bytes", len(ss), len(in))
				}
			}
			if failed && r.Err() == nil {
				t.Fatal("an error did not stick")
			}
			failed = r.Err() != nil
			if r.Len() > len(in) {
				t.Fatalf("%d bytes left of %d", r.Len(), len(in))
			}
		}
	})
}
