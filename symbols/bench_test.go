package symbols

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/treesitter"
)

// BenchmarkBuildTree indexes every source file of the tree named by
// CTXD_BENCH_TREE (for example /work/data/ctxd-scale/stdlib-10k) into an
// empty record file (cold), then again from another handle on that file
// (a restarted process: no parse).
//
//	CTXD_BENCH_TREE=/work/data/ctxd-scale/stdlib-10k go test -run '^$' -bench BuildTree -benchtime 1x ./symbols
func BenchmarkBuildTree(b *testing.B) {
	root := testutil.Env(b, "CTXD_BENCH_TREE", "")
	var paths []string
	var bytes int64
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || treesitter.Detect(p, nil) == "" {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Size() <= 1<<20 {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, rel)
			bytes += info.Size()
		}
		return nil
	})
	read := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, rel)) }
	base, n := b.TempDir(), 0 // the outer benchmark's: it outlives "cold"
	var dir string
	b.Logf("%d source files, %d MB", len(paths), bytes>>20)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			n++
			dir = filepath.Join(base, fmt.Sprint(n)) // a new empty record file each time
			if err := os.Mkdir(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			x, err := openRecords(dir)
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if _, err := x.Update(b.Context(), paths, read); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(x.Parses()), "parses")
			b.Logf("cold build %v", time.Since(t0))
			if err := x.persist(dir); err != nil {
				b.Fatal(err)
			}
			x.close()
		}
	})
	if dir == "" {
		return
	}
	var size int64
	ms, _ := filepath.Glob(filepath.Join(dir, "symbols"+".*"))
	for _, m := range ms {
		if st, err := os.Stat(m); err == nil {
			size += st.Size()
		}
	}
	b.Logf("index on disk: %d MB", size>>20)
	b.Run("reopen+warm", func(b *testing.B) {
		for b.Loop() {
			x, err := openRecords(dir)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := x.Update(b.Context(), paths, read); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(x.Parses()), "parses")
			x.close()
		}
	})
}

// BenchmarkFile is a lookup of a file already indexed (the warm path:
// hashing the content, no parse) and the match of a request's names.
func BenchmarkFile(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "src", "sessions.py"))
	if err != nil {
		b.Fatal(err)
	}
	x := New()
	if _, err := x.File(b.Context(), "sessions.py", src); err != nil {
		b.Fatal(err)
	}
	ids := []string{"Session.merge_environment_settings", "mergeEnvironmentSettings", "get_environ_proxies"}
	b.ReportAllocs()
	for b.Loop() {
		e, err := x.File(b.Context(), "sessions.py", src)
		if err != nil || len(Matches(e, ids)) == 0 {
			b.Fatal(err)
		}
	}
	if x.Parses() != 1 {
		b.Fatalf("%d parses", x.Parses())
	}
}
