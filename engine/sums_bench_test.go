package engine

import "testing"

// BenchmarkSymbolsOf: one request's symbol-index lookups of a dozen large
// standard library files, their entries in memory (a warm daemon's
// request: the contents' sums carried from their chunks' hashes, each
// content asked once).
func BenchmarkSymbolsOf(b *testing.B) {
	files := stdlibChunks(b)
	e := newEngine(b, b.TempDir())
	run := func() {
		sums := sumsOf(files)
		for i := range files {
			if ent, err := e.symbolsOf(b.Context(), &files[i], sums); err != nil || ent == nil {
				b.Fatal(files[i].Source, err)
			}
		}
	}
	run()
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}
