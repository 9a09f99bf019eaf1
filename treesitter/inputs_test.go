package treesitter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenPaths returns the paths of the inputs under testdata/golden (not
// the goldens).
func goldenPaths(t testing.TB) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		if !strings.HasSuffix(m, ".golden") {
			out = append(out, m)
		}
	}
	return out
}

// goldenInput is one input under testdata/golden, read, with its
// detected language.
type goldenInput struct {
	path, lang string
	src        []byte
}

// goldenInputs reads the inputs under testdata/golden.
func goldenInputs(t testing.TB) []goldenInput {
	t.Helper()
	var out []goldenInput
	for _, p := range goldenPaths(t) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, goldenInput{p, Detect(p, src), src})
	}
	return out
}
