//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkViews renders every level of one file, uncached (a fresh
// comment line changes the content hash each iteration): parse, analysis
// and the two validity parses.
//
//	go test -run XXX -bench Views -count 5 ./treesitter
func BenchmarkViews(b *testing.B) {
	files := map[string]string{
		"go/net-http-server": filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"),
		"go/golden":          filepath.Join("testdata", "golden", "server.go"),
		"python/golden":      filepath.Join("testdata", "golden", "service.py"),
		"typescript/golden":  filepath.Join("testdata", "golden", "store.ts"),
		"rust/golden":        filepath.Join("testdata", "golden", "lib.rs"),
	}
	for _, name := range []string{"go/net-http-server", "go/golden", "python/golden", "typescript/golden", "rust/golden"} {
		src, err := os.ReadFile(files[name])
		if err != nil {
			b.Fatal(err)
		}
		lang := Detect(files[name], src)
		comment := map[string]string{"python": "#", "ruby": "#"}[lang]
		if comment == "" {
			comment = "//"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				in := append(src[:len(src):len(src)], fmt.Sprintf("\n%s %d\n", comment, i)...)
				if _, err := Views(context.Background(), lang, in, slowOpts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkViewsCached is the same call answered from the cache.
func BenchmarkViewsCached(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Views(context.Background(), "go", src, slowOpts); err != nil {
			b.Fatal(err)
		}
	}
}
