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
	var b strings.Builder
	var num []byte // scratch for a line number
	for i, s := range syms {
		if i > 0 && s.Start == syms[i-1].Start && s.Signature == syms[i-1].Signature {
			continue // "var a, b = 1, 2" defines two symbols on one line
		}
		if (s.Kind == "test" || s.Kind == "suite") && s.Depth > 0 || s.Inner {
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
