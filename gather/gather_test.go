package gather

import (
	"testing"

	"github.com/ctxd/ctxd"
)

// go test -fuzz=FuzzSelectedText ./gather
func FuzzSelectedText(f *testing.F) {
	f.Add("a\nb\nc\n", 2, 3)
	f.Fuzz(func(t *testing.T, src string, start, end int) {
		got := selectedText(src, &ctxd.LineRange{Start: start, End: end})
		if len(got) > len(src) {
			t.Fatalf("selected %d bytes of %d", len(got), len(src))
		}
	})
}
