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
// as a file's presence costs. The hooks (the functions object literals
// hold, analysis.hooks) are listed in place, at their depth: a plugin
// factory's line is followed by its hooks'.
func outlineText(syms, hooks []Symbol) string {
	var hook []bool
	if len(hooks) > 0 {
		syms, hook = withHooks(syms, hooks)
	}
	shown := func(i int) bool {
		s := &syms[i]
		if i > 0 && s.Start == syms[i-1].Start && s.Signature == syms[i-1].Signature {
			return false // "var a, b = 1, 2" defines two symbols on one line
		}
		if hook != nil && hook[i] {
			return true
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

// withHooks returns syms and hooks (each in line order) merged in line
// order, a symbol before a hook on the same line, and which of them are
// hooks.
func withHooks(syms, hooks []Symbol) ([]Symbol, []bool) {
	out := make([]Symbol, 0, len(syms)+len(hooks))
	hook := make([]bool, 0, len(syms)+len(hooks))
	i, j := 0, 0
	for i < len(syms) || j < len(hooks) {
		if j == len(hooks) || i < len(syms) && syms[i].Start <= hooks[j].Start {
			out, hook = append(out, syms[i]), append(hook, false)
			i++
			continue
		}
		out, hook = append(out, hooks[j]), append(hook, true)
		j++
	}
	return out, hook
}
