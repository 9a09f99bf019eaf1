package main

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestOpenBadLine: --open FILE:X with X not a line number is a usage error
// that says so (it was "skipped FILE:X: no such file" while FILE was
// there); a file that is missing is still skipped with a warning, and
// FILE:LINE still opens the file at the line.
func TestOpenBadLine(t *testing.T) {
	t.Parallel()
	dir := testutil.GitRepo(t, sampleRepo)
	tests := []struct {
		open string
		code int
		want string // in stderr, or in stdout for exit 0
	}{
		{"cart/cart.go:abc", 2, `--open cart/cart.go:abc: "abc" is not a line number`},
		{"cart/cart.go:", 2, `"" is not a line number`},
		{"cart/nosuch.go:abc", 0, "no such file"},
		{"cart/cart.go:10", 0, "Cursor: line 10"},
	}
	for _, tt := range tests {
		out, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--open", tt.open, "sum the cart")
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("--open %s: exit %d, want %d and %q:\n%s\n%s", tt.open, code, tt.code, tt.want, errOut, out)
		}
	}
	// Run from elsewhere with --root, FILE is the root's: the same answers
	// (a missing FILE is then the current directory's, outside the root).
	for _, tt := range tests {
		if strings.Contains(tt.open, "nosuch") {
			continue
		}
		out, errOut, code := runCtxd(t, t.TempDir(), "", nil, "prompt", "--root", dir, "--open", tt.open, "sum the cart")
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("--root %s --open %s: exit %d, want %d and %q:\n%s\n%s", dir, tt.open, code, tt.code, tt.want, errOut, out)
		}
	}
}
