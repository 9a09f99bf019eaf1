// Package byteview converts between strings and byte slices without
// copying, for the large texts of a request (a decoded message can be
// most of a 100 MB body, and each copy adds to what the request holds at
// its peak). Both conversions share memory, so each states who may
// write it.
package byteview

import (
	"bytes"
	"strings"
	"unsafe"
)

// ReadOnly returns s's bytes without copying them. The caller must never
// write to the slice (a hash, a file write, a search read it).
func ReadOnly(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// Owned returns b as a string without copying it. b must be a buffer the
// caller made and never writes again (as strings.Builder does).
func Owned(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Borrowed returns b as a string without copying it, for a view of a
// buffer someone else owns (a request body's texts, issue 28). b must not
// be written while the string, or any substring of it, is in use, and
// the string keeps all of b's array alive: a string kept beyond the
// buffer's use (in a cache, a map, a session's state) must be cloned
// first (strings.Clone). An empty b gives "", which holds nothing.
func Borrowed(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return Owned(b)
}

// Detached returns s, or a copy of it when it points into src's bytes: a
// result derived from src (a view of a text, a substring of it) that is
// kept beyond src's buffer, without copying one that has its own memory
// already (a rendered view).
func Detached(s, src string) string {
	if s == "" || src == "" {
		return s
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.StringData(src)))
	if p >= lo && p < lo+uintptr(len(src)) {
		return strings.Clone(s)
	}
	return s
}

// CountLines counts the lines of a text as the artifact store, the
// request model and the file index all do: the newlines, plus one for a
// last line without one; an empty text has none.
func CountLines[T string | []byte](text T) int {
	var n int
	switch t := any(text).(type) {
	case string:
		n = strings.Count(t, "\n")
	case []byte:
		n = bytes.Count(t, []byte{'\n'})
	}
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++
	}
	return n
}
