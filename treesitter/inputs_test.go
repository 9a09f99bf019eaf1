package treesitter

import (
	"path/filepath"
	"strings"
	"testing"
)

// goldenInputs returns the inputs under testdata/golden (not the goldens).
func goldenInputs(t testing.TB) []string {
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
