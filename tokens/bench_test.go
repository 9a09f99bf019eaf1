//go:build unix

package tokens

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// loopCPU runs f in b.Loop and reports CPU ms per op and, when bytes > 0,
// MB per CPU second.
func loopCPU(b *testing.B, bytes int, f func()) {
	b.Helper()
	if bytes > 0 {
		b.SetBytes(int64(bytes))
	}
	b.ReportAllocs()
	t0, n := testutil.CPUTime(), 0
	for b.Loop() {
		f()
		n++
	}
	cpu := testutil.CPUTime() - t0
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms/op")
	if bytes > 0 && cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(n)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// benchBackends are the implementations the benchmarks compare; see
// BENCHMARKS.md "## Tokenizer".
var benchBackends = []string{backendBPE, backendTokenizer, backendTiktokenGo}

// benchCorpus is Go standard library source: all .go files of net/http
// and go/{ast,parser,printer,scanner,token} (about 2.4 MB), or every text
// file under GOROOT/src with CTXD_BENCH_FULL=1.
func benchCorpus(b *testing.B) (string, string) {
	b.Helper()
	if os.Getenv("CTXD_BENCH_FULL") == "1" {
		var sb strings.Builder
		for _, s := range goSample(b, true) {
			sb.WriteString(s)
		}
		return "goroot", sb.String()
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	var sb strings.Builder
	for _, d := range []string{"net/http", "go/ast", "go/parser", "go/printer", "go/scanner", "go/token"} {
		names, err := filepath.Glob(filepath.Join(root, d, "*.go"))
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
		}
	}
	return "gosrc", sb.String()
}

// minifiedJS returns a realistic minified JavaScript line of n bytes: no
// newlines, short identifiers, punctuation-dense.
func minifiedJS(n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, `var a%d=function(e,t){if(!e)return t[%d];for(var n=0,r=e.length;n<r;n++)t.push({id:"k%x",v:e[n]*%d.5,ok:!0});return t},`, i%97, i%13, i*2654435761%1000003, i%89)
	}
	return sb.String()[:n]
}

// BenchmarkCount measures throughput (MB/s) and allocations of each
// backend on Go source, per encoding. Counts bypass the cache.
func BenchmarkCount(b *testing.B) {
	name, text := benchCorpus(b)
	for _, enc := range Encodings {
		for _, kind := range benchBackends {
			be := mustBackend(b, kind, enc)
			b.Run(fmt.Sprintf("corpus=%s/enc=%s/backend=%s", name, enc, kind), func(b *testing.B) {
				loopCPU(b, len(text), func() { be.count(text) })
			})
		}
	}
}

// BenchmarkCountLongRun measures one unbroken run of one letter, the case
// that is quadratic in pkoukk/tiktoken-go, at growing lengths.
func BenchmarkCountLongRun(b *testing.B) {
	for _, n := range []int{20_000, 50_000, 100_000, 200_000} {
		text := strings.Repeat("a", n)
		for _, kind := range benchBackends {
			be := mustBackend(b, kind, Cl100kBase)
			b.Run(fmt.Sprintf("chars=%d/backend=%s", n, kind), func(b *testing.B) {
				loopCPU(b, n, func() { be.count(text) })
			})
		}
	}
}

// BenchmarkCountMinified measures a 200,000-character minified JavaScript
// line.
func BenchmarkCountMinified(b *testing.B) {
	text := minifiedJS(200_000)
	for _, kind := range benchBackends {
		be := mustBackend(b, kind, Cl100kBase)
		b.Run("backend="+kind, func(b *testing.B) {
			loopCPU(b, len(text), func() { be.count(text) })
		})
	}
}

// BenchmarkCountCached compares a repeated count through the shared
// counter (a cache hit: hashing only) with the uncached backend, for one
// 20 KB file.
func BenchmarkCountCached(b *testing.B) {
	_, corpus := benchCorpus(b)
	text := corpus[:20_000]
	c := mustGet(Cl100kBase)
	b.Run("cache=hit", func(b *testing.B) {
		c.Count(text)
		loopCPU(b, len(text), func() { c.Count(text) })
	})
	b.Run("cache=none", func(b *testing.B) {
		loopCPU(b, len(text), func() { c.backend.count(text) })
	})
}

// BenchmarkCountColdStart measures building a backend (what the first Get
// of an encoding costs in a process) and reports the heap it keeps.
func BenchmarkCountColdStart(b *testing.B) {
	for _, enc := range Encodings {
		for _, kind := range benchBackends {
			b.Run(fmt.Sprintf("enc=%s/backend=%s", enc, kind), func(b *testing.B) {
				b.ReportAllocs()
				var heap float64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					be, err := newBackend(kind, enc)
					if err != nil {
						b.Fatal(err)
					}
					be.count("warm up")
					runtime.GC()
					runtime.ReadMemStats(&after)
					heap = float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc)) / (1 << 20)
					runtime.KeepAlive(be)
				}
				b.ReportMetric(heap, "heap-MB")
			})
		}
	}
}

// BenchmarkTruncateMiddle measures truncating 1 MB inputs to a budget:
// cache=none counts everything each time (a first call: the whole text's
// count dominates), cache=warm repeats a call through the shared cache.
func BenchmarkTruncateMiddle(b *testing.B) {
	_, corpus := benchCorpus(b)
	inputs := map[string]string{
		"code":     corpus[:1<<20],
		"minified": minifiedJS(1 << 20),
	}
	shared := mustGet(Cl100kBase)
	uncached := &exactCounter{name: Cl100kBase, backend: shared.backend}
	for _, name := range []string{"code", "minified"} {
		text := inputs[name]
		for _, max := range []int{1000, 32000} {
			for _, cache := range []string{"none", "warm"} {
				c := Counter(uncached)
				if cache == "warm" {
					c = shared
					truncateMiddle(c, text, max)
				}
				b.Run(fmt.Sprintf("input=%s/max=%d/cache=%s", name, max, cache), func(b *testing.B) {
					loopCPU(b, 0, func() { truncateMiddle(c, text, max) })
				})
			}
		}
	}
}

// BenchmarkCountView measures counting a never-seen view of a file (a
// focus-like view: two functions of three collapsed, framed as a prompt
// section), as compress.Fit does, bypassing the whole-text cache:
// backend=whole runs the pre-tokenizer and BPE over all of it (the path
// before block counting); blocks=cold counts by blocks with an empty
// block cache (hashing and lookups on top of counting); blocks=file after
// the file itself was counted; blocks=view after another view of it.
func BenchmarkCountView(b *testing.B) {
	path := filepath.Join(runtime.GOROOT(), "src", "net", "http", "client.go")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	src := string(data)
	views := viewsOf("net/http/client.go", src)
	view, other := views[0], views[1]
	be := mustBackend(b, backendBPE, O200kBase)
	b.Logf("file %d bytes, view %d bytes", len(src), len(view))
	b.Run("path=whole", func(b *testing.B) {
		loopCPU(b, len(view), func() { be.count(view) })
	})
	for _, minLen := range []int{0, blockMinLen, 64} {
		b.Run(fmt.Sprintf("path=blocks/min=%d/cache=cold", minLen), func(b *testing.B) {
			bc := newBlockCache(1 << 12)
			loopCPU(b, len(view), func() {
				clear(bc.slots)
				bc.countBlocks(view, minLen, be.count)
			})
		})
		for _, warm := range []struct{ name, text string }{{"file", src}, {"view", other}} {
			b.Run(fmt.Sprintf("path=blocks/min=%d/cache=%s", minLen, warm.name), func(b *testing.B) {
				bc := newBlockCache(1 << 12)
				bc.countBlocks(warm.text, minLen, be.count)
				warmed := slices.Clone(bc.slots)
				loopCPU(b, len(view), func() {
					copy(bc.slots, warmed)
					bc.countBlocks(view, minLen, be.count)
				})
			})
		}
	}
}
