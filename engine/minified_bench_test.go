package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/internal/testutil"
)

// minifiedWorkspace is a small workspace with one minified file of size
// bytes (none when size is 0), and its engine (max_file_bytes 8 MiB, so
// a 5 MB file is read).
func minifiedWorkspace(tb testing.TB, size int) *Engine {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string]string{"main.py": strings.Repeat("def handler(x):\n    return x+1\n\n", 20)}
	if size > 0 {
		files["app.min.js"] = testutil.OneLineJS(size, "quux")
	}
	testutil.WriteFiles(tb, dir, files)
	cfg := config.Default()
	cfg.Gather.MaxFileBytes = 8 << 20
	return openEngine(tb, dir, Options{Config: cfg, StateDir: tb.TempDir()})
}

// BenchmarkMinifiedFile is a warm engine's request cost with a minified
// file in the workspace: one request that does not concern it, and one
// whose words match it (so it is gathered). Issue 11 measured 0.42 s and
// ~126 MB per request for 900 KB before minified files became stubs.
//
//	go test -run '^$' -bench BenchmarkMinifiedFile -benchtime 5x ./engine
func BenchmarkMinifiedFile(b *testing.B) {
	for _, size := range []int{0, 900 << 10, 5 << 20} {
		e := minifiedWorkspace(b, size)
		for _, q := range []string{"fix the handler in main.py", "function f100 returns a+b"} {
			b.Run(fmt.Sprintf("size=%dKiB/%s", size>>10, strings.Fields(q)[1]), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.BuildPrompt(b.Context(), PromptRequest{UserRequest: q}, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
