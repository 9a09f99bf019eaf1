package ctxd

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// EscapeName returns a file name as it may be shown in a prompt, a pack
// or on a terminal: names are data, and a name is free to hold a newline
// and a code fence (forging a section of the prompt outside any fence),
// terminal escapes or bidirectional overrides. Control characters (C0,
// DEL, C1), line and paragraph separators and bidirectional controls are
// written as Go escapes (\n, \x1b, \u202e); a name without them is
// returned as is. The chunk's Source keeps the real name.
func EscapeName(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError:
			b.WriteRune(r)
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			// Non-ASCII: look closer (most are letters).
			for _, r := range s {
				if unsafeRune(r) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// unsafeRune reports a rune EscapeName escapes.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c: // bidi controls
		return true
	}
	return false
}

// OneName settles a field that the vocabulary accepts under two names
// (request/user_request, task/task_type, session_id/session,
// context_window/window): val is the value given under name, dst the one
// under alias, and the zero value means not given. One given: dst holds
// it. Both given: an ErrInvalidParams error naming both, whatever the
// values (docs/vocabulary.md), the same rule at every door.
func OneName[T comparable](name, alias string, val T, dst *T) error {
	var zero T
	switch {
	case val == zero:
	case *dst == zero || *dst == val:
		*dst = val
	default:
		return fmt.Errorf("%s and %s name the same field: give one: %w", name, alias, ErrInvalidParams)
	}
	return nil
}

// Plural is a count with its noun, as ctxd's text shows one: "1 line",
// "0 lines", "3 changes to secret files" (one and many are the noun's two
// forms).
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidSessionID reports whether id can name a session, the rule session
// ids follow everywhere in ctxd (a checkpoint's session, an artifact
// scope, the proxy's X-Ctxd-Session): 1 to 128 letters, digits, '.', '_'
// or '-', starting with a letter or digit (it is a directory name, so
// nothing that could leave a store). An error wraps [ErrInvalidParams].
func ValidSessionID(id string) error {
	if !sessionIDPattern.MatchString(id) {
		return fmt.Errorf("session id %q: want 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit: %w", id, ErrInvalidParams)
	}
	return nil
}
