package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) of a request body.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Len returns the span's length in bytes.
func (s Span) Len() int { return s.End - s.Start }

// member is one "key": value pair of a JSON object: Span runs from the
// key's opening quote to the end of the value.
type member struct {
	Key   string
	Span  Span
	Value Span
}

// errSyntax reports JSON the scanner cannot read. Parse checks the whole
// body with json.Valid first, so it only surfaces on a scanner bug.
var errSyntax = errors.New("malformed JSON")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i] (after
// whitespace).
func skipValue(b []byte, i int) (start, end int, err error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, 0, fmt.Errorf("value at %d: %w", i, errSyntax)
	}
	start = i
	switch c := b[i]; {
	case c == '"':
		end, err = skipString(b, i)
	case c == '{' || c == '[':
		end, err = skipComposite(b, i)
	default:
		end = i
		for end < len(b) && !isSpace(b[end]) && b[end] != ',' && b[end] != '}' && b[end] != ']' && b[end] != ':' {
			end++
		}
		if end == i {
			err = fmt.Errorf("value at %d: %w", i, errSyntax)
		}
	}
	return start, end, err
}

// skipString returns the end (one past the closing quote) of the string
// starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string at %d: %w", i, errSyntax)
}

// skipComposite skips a whole object or array by counting brackets outside
// strings.
func skipComposite(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			e, err := skipString(b, j)
			if err != nil {
				return 0, err
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("unterminated value at %d: %w", i, errSyntax)
}

// objectMembers lists the members of the object whose span is v, in order.
func objectMembers(b []byte, v Span) ([]member, error) {
	if v.Len() < 2 || b[v.Start] != '{' {
		return nil, fmt.Errorf("want an object at %d: %w", v.Start, errSyntax)
	}
	var ms []member
	i := skipSpace(b, v.Start+1)
	if i < v.End && b[i] == '}' {
		return ms, nil
	}
	for i < v.End {
		ks, ke, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		if b[ks] != '"' {
			return nil, fmt.Errorf("want a key at %d: %w", ks, errSyntax)
		}
		key, err := decodeString(b[ks:ke])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, ke)
		if i >= v.End || b[i] != ':' {
			return nil, fmt.Errorf("want ':' at %d: %w", i, errSyntax)
		}
		vs, ve, err := skipValue(b, i+1)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{Key: key, Span: Span{ks, ve}, Value: Span{vs, ve}})
		i = skipSpace(b, ve)
		if i >= v.End {
			break
		}
		if b[i] == '}' {
			return ms, nil
		}
		if b[i] != ',' {
			return nil, fmt.Errorf("want ',' at %d: %w", i, errSyntax)
		}
		i++
	}
	return nil, fmt.Errorf("unterminated object at %d: %w", v.Start, errSyntax)
}

// arrayElems lists the element spans of the array whose span is v.
func arrayElems(b []byte, v Span) ([]Span, error) {
	if v.Len() < 2 || b[v.Start] != '[' {
		return nil, fmt.Errorf("want an array at %d: %w", v.Start, errSyntax)
	}
	var es []Span
	i := skipSpace(b, v.Start+1)
	if i < v.End && b[i] == ']' {
		return es, nil
	}
	for i < v.End {
		s, e, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		es = append(es, Span{s, e})
		i = skipSpace(b, e)
		if i >= v.End {
			break
		}
		if b[i] == ']' {
			return es, nil
		}
		if b[i] != ',' {
			return nil, fmt.Errorf("want ',' at %d: %w", i, errSyntax)
		}
		i++
	}
	return nil, fmt.Errorf("unterminated array at %d: %w", v.Start, errSyntax)
}

// decodeString decodes a JSON string literal. The common case without
// escapes is a plain copy.
func decodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", fmt.Errorf("want a string: %w", errSyntax)
	}
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("decode string: %w", err)
	}
	return s, nil
}

// kind of the JSON value at v: '"', '{', '[', 'n' (null), 't'/'f', or a
// digit/'-' for numbers.
func kindOf(b []byte, v Span) byte {
	if v.Len() == 0 {
		return 0
	}
	return b[v.Start]
}

// obj is a parsed object: its members with lookups by key (the last
// duplicate wins, as with encoding/json).
type obj struct {
	span    Span
	members []member
}

func parseObj(b []byte, v Span) (obj, error) {
	ms, err := objectMembers(b, v)
	return obj{span: v, members: ms}, err
}

func (o obj) get(key string) (Span, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].Key == key {
			return o.members[i].Value, true
		}
	}
	return Span{}, false
}

func (o obj) memberIndex(key string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].Key == key {
			return i
		}
	}
	return -1
}

// str returns the decoded string value of key, "" when absent or not a
// string.
func (o obj) str(b []byte, key string) string {
	v, ok := o.get(key)
	if !ok || kindOf(b, v) != '"' {
		return ""
	}
	s, err := decodeString(b[v.Start:v.End])
	if err != nil {
		return ""
	}
	return s
}

// encodeString returns s as a JSON string literal, without HTML escaping
// and rune-safe for invalid UTF-8 (replaced by U+FFFD).
func encodeString(s string) []byte {
	out := make([]byte, 0, len(s)+2)
	out = append(out, '"')
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				out = append(out, '\\', c)
			case c == '\n':
				out = append(out, '\\', 'n')
			case c == '\r':
				out = append(out, '\\', 'r')
			case c == '\t':
				out = append(out, '\\', 't')
			case c < 0x20:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\ufffd"...)
		} else if r == '\u2028' || r == '\u2029' {
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xf])
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return append(out, '"')
}
