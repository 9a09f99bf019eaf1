package treesitter

import (
	"strconv"
	"strings"
)

// outlineText renders one line per symbol, members indented under their type:
// "12: func (s *Server) Serve(ctx context.Context) error". A test file's
// top-level suites and tests are listed, not what they nest (the bodies
// and signatures views name every test), and neither are definitions
// inside function bodies (the focus views list those around a focused
// one): the outline stays the cheap view that says what the file covers,
// as a file's presence costs.
func outlineText(syms []Symbol) string {
	shown := func(i int) bool {
		s := &syms[i]
		if i > 0 && s.Start == syms[i-1].Start && s.Signature == syms[i-1].Signature {
			return false // "var a, b = 1, 2" defines two symbols on one line
		}
		return !((s.Kind == "test" || s.Kind == "suite") && s.Depth > 0 || s.Inner)
	}
	// Grown once to the text's length (line numbers of up to 6 digits),
	// not doubled from empty: the outline of every candidate file.
	n := 0
	for i, s := range syms {
		if shown(i) {
			n += 2*s.Depth + 6 + len(": ") + len(s.Signature) + 1
		}
	}
	var b strings.Builder
	b.Grow(n)
	var num []byte // scratch for a line number
	for i, s := range syms {
		if !shown(i) {
			continue
		}
		for range s.Depth {
			b.WriteString("  ")
		}
		num = strconv.AppendInt(num[:0], int64(s.Start), 10) // no fmt: a line per symbol of every candidate file
		b.Write(num)
		b.WriteString(": ")
		b.WriteString(s.Signature)
		b.WriteByte('\n')
	}
	return b.String()
}
