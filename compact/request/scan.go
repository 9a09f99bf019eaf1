package request

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctxd/ctxd/internal/byteview"
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
// starting at b[i] == '"'. It jumps from quote to quote and counts the
// backslashes before each, which is much faster than a byte loop on long
// texts.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, fmt.Errorf("unterminated string at %d: %w", i, errSyntax)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
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

// known holds the member names and the role and type values of the three
// formats, which decodeString returns without allocating.
var known = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		// members
		"role", "content", "type", "text", "name", "id", "tool_calls", "tool_call_id",
		"function", "arguments", "function_call", "refusal", "reasoning", "reasoning_content",
		"tool_use_id", "input", "is_error", "source", "cache_control", "thinking", "signature",
		"data", "call_id", "output", "status", "summary", "encrypted_content", "image_url",
		"url", "detail", "custom", "media_type",
		// roles and types
		"system", "developer", "user", "assistant", "tool", "message", "tool_use", "tool_result",
		"redacted_thinking", "function_call_output", "input_text", "output_text", "image",
		"input_image", "ephemeral", "completed", "base64", "auto", "low", "high",
	} {
		m[s] = s
	}
	return m
}()

// maxKnownLen is the length of the longest string of known.
const maxKnownLen = len("function_call_output")

// objectMembers lists the members of the object whose span is v, in order.
func objectMembers(b []byte, v Span) ([]member, error) {
	return appendMembers(nil, b, v)
}

// appendMembers appends the members of the object whose span is v to ms
// (objectMembers into a buffer the caller reuses).
func appendMembers(ms []member, b []byte, v Span) ([]member, error) {
	if v.Len() < 2 || b[v.Start] != '{' {
		return nil, fmt.Errorf("want an object at %d: %w", v.Start, errSyntax)
	}
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
	var es []Span
	err := eachElem(b, v, func(e Span) error {
		es = append(es, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return es, nil
}

// eachElem calls fn with the span of each element of the array at v, in
// order, and stops at fn's first error.
func eachElem(b []byte, v Span, fn func(Span) error) error {
	if v.Len() < 2 || b[v.Start] != '[' {
		return fmt.Errorf("want an array at %d: %w", v.Start, errSyntax)
	}
	i := skipSpace(b, v.Start+1)
	if i < v.End && b[i] == ']' {
		return nil
	}
	for i < v.End {
		s, e, err := skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(Span{s, e}); err != nil {
			return err
		}
		i = skipSpace(b, e)
		if i >= v.End {
			break
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return fmt.Errorf("want ',' at %d: %w", i, errSyntax)
		}
		i++
	}
	return fmt.Errorf("unterminated array at %d: %w", v.Start, errSyntax)
}

// decodeString decodes a JSON string literal. A literal without escapes
// in valid UTF-8 is returned as a view of raw, not a copy (a request of
// many messages held each text twice: issue 28), so what outlives the
// request must clone it (see [Request]); otherwise escapes are decoded
// into a new string, and invalid UTF-8 becomes U+FFFD, as with
// encoding/json.
func decodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", fmt.Errorf("want a string: %w", errSyntax)
	}
	inner := raw[1 : len(raw)-1]
	k := bytes.IndexByte(inner, '\\')
	if k < 0 {
		if len(inner) <= maxKnownLen {
			// The keys, roles and types every item repeats: one string
			// each, not an allocation per item.
			if s, ok := known[string(inner)]; ok {
				return s, nil
			}
		}
		if utf8.Valid(inner) {
			return byteview.Borrowed(inner), nil
		}
		return fixUTF8(inner), nil
	}
	out := make([]byte, 0, len(inner))
	for {
		out = append(out, inner[:k]...)
		inner = inner[k:]
		if len(inner) < 2 {
			return "", fmt.Errorf("bad escape: %w", errSyntax)
		}
		switch c := inner[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
			inner = inner[2:]
		case 'b':
			out, inner = append(out, '\b'), inner[2:]
		case 'f':
			out, inner = append(out, '\f'), inner[2:]
		case 'n':
			out, inner = append(out, '\n'), inner[2:]
		case 'r':
			out, inner = append(out, '\r'), inner[2:]
		case 't':
			out, inner = append(out, '\t'), inner[2:]
		case 'u':
			r, ok := hex4(inner[2:])
			if !ok {
				return "", fmt.Errorf("bad \\u escape: %w", errSyntax)
			}
			inner = inner[6:]
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if len(inner) >= 6 && inner[0] == '\\' && inner[1] == 'u' {
					r2, ok = hex4(inner[2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					inner = inner[6:]
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", fmt.Errorf("bad escape %q: %w", c, errSyntax)
		}
		k = bytes.IndexByte(inner, '\\')
		if k < 0 {
			out = append(out, inner...)
			break
		}
	}
	if !utf8.Valid(out) {
		return fixUTF8(out), nil
	}
	return byteview.Owned(out), nil
}

// fixUTF8 replaces each invalid byte with U+FFFD, as encoding/json does.
func fixUTF8(b []byte) string {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\ufffd"...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return byteview.Owned(out)
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
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

// parseObjInto is parseObj with the members appended to buf (a scratch
// buffer the caller reuses: the object is valid until buf is reused).
func parseObjInto(buf []member, b []byte, v Span) (obj, error) {
	ms, err := appendMembers(buf, b, v)
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

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// validate reports whether b is one JSON value (RFC 8259) with only
// whitespace around it. It replaces json.Valid on the hot path: it scans
// strings with IndexByte-style jumps instead of a state machine per byte.
func validate(b []byte) bool { return validateStop(b, nil) }

// validateStop is validate stopping (false) when c says so: the caller
// tells a cancellation from bad JSON by c.err.
func validateStop(b []byte, c *canceller) bool {
	i, ok := validValue(b, skipSpace(b, 0), 0, c)
	return ok && skipSpace(b, i) == len(b)
}

func validValue(b []byte, i, depth int, cn *canceller) (int, bool) {
	if i >= len(b) || depth > maxDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return validString(b, i)
	case c == '{':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' || cn.stop() {
				return 0, false
			}
			var ok bool
			if i, ok = validString(b, i); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			if i, ok = validValue(b, skipSpace(b, i+1), depth+1, cn); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
	case c == '[':
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			if cn.stop() {
				return 0, false
			}
			var ok bool
			if i, ok = validValue(b, i, depth+1, cn); !ok {
				return 0, false
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
		}
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		return validNumber(b, i)
	}
	return 0, false
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

func validNumber(b []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// strStop marks the bytes a string scan must stop at: the quote, the
// backslash and control characters.
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func validString(b []byte, i int) (int, bool) {
	j := i + 1
	for j < len(b) {
		// Eight bytes at a time while none needs a look.
		for j+8 <= len(b) && !strStop[b[j]] && !strStop[b[j+1]] && !strStop[b[j+2]] && !strStop[b[j+3]] &&
			!strStop[b[j+4]] && !strStop[b[j+5]] && !strStop[b[j+6]] && !strStop[b[j+7]] {
			j += 8
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\':
			if j+1 >= len(b) {
				return 0, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if _, ok := hex4(b[min(j+2, len(b)):]); !ok {
					return 0, false
				}
				j += 6
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		default:
			j++
		}
	}
	return 0, false
}
