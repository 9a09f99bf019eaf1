// Package jsonpos says where a body stops being JSON, for a person: the
// line, the column and the byte offset of the first byte the JSON
// grammar refuses, with encoding/json's reason. The request parser's
// errors (compact/request) and the daemon's parse errors (server) say it
// the same way.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Problem is where and why a body is not JSON.
type Problem struct {
	// Line and Column are 1-based; Column counts characters (UTF-8
	// sequences, a byte each where the text is not UTF-8).
	Line, Column int
	// Offset is the 0-based byte offset of the refused byte, or the
	// body's length when the body ended too early.
	Offset int
	// Reason is encoding/json's ("invalid character '}' looking for
	// beginning of object key string", "unexpected end of JSON input").
	Reason string
}

// String is "line L, column C, byte O: REASON".
func (p Problem) String() string {
	return fmt.Sprintf("line %d, column %d, byte %d: %s", p.Line, p.Column, p.Offset, p.Reason)
}

// Find returns why body is not valid JSON, and false when it is. Only
// the grammar is checked (nothing is decoded), so it costs a pass over
// the body.
func Find(body []byte) (Problem, bool) {
	var raw json.RawMessage
	err := json.Unmarshal(body, &raw)
	if err == nil {
		return Problem{}, false
	}
	off := len(body)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the bytes read, the refused one included, except
		// at the end of the input.
		off = int(syn.Offset)
		if off > 0 && off <= len(body) && syn.Error() != "unexpected end of JSON input" {
			off--
		}
		off = min(off, len(body))
	}
	return At(body, off, err.Error()), true
}

// At is the Problem at byte offset off of body (clamped to the body).
func At(body []byte, off int, reason string) Problem {
	off = max(0, min(off, len(body)))
	before := body[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return Problem{Line: line, Column: utf8.RuneCount(before[start:]) + 1, Offset: off, Reason: reason}
}
