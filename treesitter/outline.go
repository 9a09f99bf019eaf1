package treesitter

import (
	"fmt"
	"strings"
)

// outlineText renders one line per symbol, members indented under their type:
// "12: func (s *Server) Serve(ctx context.Context) error". A test file's
// top-level suites and tests are listed, not what they nest (the bodies
// and signatures views name every test): the outline stays the cheap view
// that says what the file covers, as a file's presence costs.
func outlineText(syms []Symbol) string {
	var b strings.Builder
	for i, s := range syms {
		if i > 0 && s.Start == syms[i-1].Start && s.Signature == syms[i-1].Signature {
			continue // "var a, b = 1, 2" defines two symbols on one line
		}
		if (s.Kind == "test" || s.Kind == "suite") && s.Depth > 0 {
			continue
		}
		for range s.Depth {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%d: %s\n", s.Start, s.Signature)
	}
	return b.String()
}
