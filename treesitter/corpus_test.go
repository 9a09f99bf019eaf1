//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/tokens"
)

// corpusFiles lists the files under root with one of exts, skipping
// testdata and hidden directories, and vendor and node_modules unless
// vendored is set.
func corpusFiles(t testing.TB, root string, vendored bool, exts ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts of a corpus are skipped
		}
		if d.IsDir() {
			switch n := d.Name(); {
			case p != root && (n == "testdata" || strings.HasPrefix(n, ".")),
				p != root && !vendored && (n == "vendor" || n == "node_modules"):
				return filepath.SkipDir
			}
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(p, e) {
				out = append(out, p)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// corpusResult is what one file of a corpus yields.
type corpusResult struct {
	path    string
	size    int
	skipped string // why the file was not rendered ("" when it was)
	views   []View
	invalid []string // validity failures
	took    time.Duration
}

// runCorpus renders every file with parallel workers and checks each with
// check (nil: the tree-sitter checks of checkInvariants).
func runCorpus(t *testing.T, lang string, files []string, check func(path string, src []byte, vs []View) []string) []corpusResult {
	t.Helper()
	results := make([]corpusResult, len(files))
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= len(files) {
					return
				}
				r := &results[j]
				r.path = files[j]
				src, err := os.ReadFile(files[j])
				if err != nil {
					r.skipped = "unreadable"
					continue
				}
				r.size = len(src)
				start := time.Now()
				vs, err := Views(context.Background(), lang, src, Options{Timeout: slow})
				r.took = time.Since(start)
				var te *TimeoutError
				switch {
				case errors.As(err, &te):
					r.skipped = "timeout"
					continue
				case errors.Is(err, ErrUnsupported):
					r.skipped = "unsupported" // syntax errors in the original or too large
					continue
				case err != nil:
					r.invalid = append(r.invalid, err.Error())
					continue
				}
				r.views = vs
				r.invalid = check(files[j], src, vs)
			}
		}()
	}
	wg.Wait()
	return results
}

// treeSitterCheck is the validity check for languages without a Go parser
// at hand: the views have no ERROR or MISSING nodes (the original has none,
// or it would have been skipped), keep the level order and every top-level
// symbol.
func treeSitterCheck(lang string) func(string, []byte, []View) []string {
	g, _ := grammarFor(lang)
	return func(path string, src []byte, vs []View) []string {
		var bad []string
		orig, err := Symbols(slowCtx(), lang, src)
		if err != nil {
			return []string{err.Error()}
		}
		levels := map[Level]bool{}
		for i, v := range vs {
			levels[v.Level] = true
			if i > 0 && len(v.Text) > len(vs[i-1].Text) {
				bad = append(bad, fmt.Sprintf("%s larger than %s", v.Level, vs[i-1].Level))
			}
			if v.Level != Bodies && v.Level != Signatures {
				continue
			}
			errs, err := g.errors(context.Background(), []byte(v.Text), time.Minute)
			if err != nil || len(errs) > 0 {
				bad = append(bad, fmt.Sprintf("%s view: %d syntax errors %v", v.Level, len(errs), err))
				continue
			}
			got, err := Symbols(slowCtx(), lang, []byte(v.Text))
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			if m := missingTopLevel(orig.Symbols, got.Symbols); len(m) > 0 {
				bad = append(bad, fmt.Sprintf("%s view lost %v", v.Level, m))
			}
		}
		for _, l := range []Level{Bodies, Signatures} {
			if !levels[l] {
				bad = append(bad, fmt.Sprintf("%s view dropped (could not be made to parse)", l))
			}
		}
		return bad
	}
}

// TestGoStdlib: for every .go file of GOROOT/src (testdata excluded) that
// go/parser parses, the bodies and signatures views parse with go/parser
// and keep every package-scope identifier. Under the race detector a
// deterministic tenth of the files is checked, to keep CI time reasonable.
func TestGoStdlib(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus test; skipped under -short")
	}
	files := corpusFiles(t, filepath.Join(runtime.GOROOT(), "src"), true, ".go")
	if len(files) < 1000 {
		t.Fatalf("only %d .go files under GOROOT/src", len(files))
	}
	if testutil.RaceEnabled {
		var sample []string
		for i := 0; i < len(files); i += 10 {
			sample = append(sample, files[i])
		}
		files = sample
	}
	results := runCorpus(t, "go", files, func(path string, src []byte, vs []View) []string {
		var bad []string
		for i, v := range vs {
			if i > 0 && len(v.Text) > len(vs[i-1].Text) {
				bad = append(bad, fmt.Sprintf("%s larger than %s", v.Level, vs[i-1].Level))
			}
			if v.Level == Bodies || v.Level == Signatures {
				if msg := goValid(src, []byte(v.Text)); msg != "" {
					bad = append(bad, fmt.Sprintf("%s: %s", v.Level, msg))
				}
			}
		}
		if len(vs) != len(Levels) {
			bad = append(bad, fmt.Sprintf("only %d of %d levels", len(vs), len(Levels)))
		}
		return bad
	})
	var rendered, skipped int
	for _, r := range results {
		if r.skipped != "" {
			// tree-sitter-go lags the language in a few files; they fall
			// back to the middle cut, which is allowed but must stay rare.
			skipped++
			if goValid(mustRead(t, r.path), mustRead(t, r.path)) == "" {
				t.Logf("%s: %s", r.path, r.skipped)
			}
			continue
		}
		rendered++
		for _, msg := range r.invalid {
			t.Errorf("%s: %s", r.path, msg)
		}
	}
	t.Logf("%d files rendered, %d skipped", rendered, skipped)
	if skipped*100 > len(files) {
		t.Errorf("%d of %d files skipped, more than 1%%", skipped, len(files))
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorpusReport measures real code per language: files, how many parse,
// the share of those whose bodies and signatures views are valid, median
// and total token reduction per level, and throughput. The corpora come
// from environment variables (a checked-out repository or unpacked package
// each); without them only Go (GOROOT/src) runs, and only when
// CTXD_CORPUS_REPORT is set. The numbers go to BENCHMARKS.md:
//
//	CTXD_CORPUS_REPORT=1 CTXD_CORPUS_PYTHON=... CTXD_CORPUS_TS=... CTXD_CORPUS_RUST=... \
//	  CTXD_CORPUS_JS=... CTXD_CORPUS_C=... \
//	  go test -run TestCorpusReport -v -timeout 60m ./treesitter
func TestCorpusReport(t *testing.T) {
	if os.Getenv("CTXD_CORPUS_REPORT") == "" {
		t.Skip("set CTXD_CORPUS_REPORT=1 (and CTXD_CORPUS_PYTHON, _TS, _RUST) to measure corpora")
	}
	corpora := []struct {
		lang string
		env  string
		exts []string
	}{
		{"go", "CTXD_CORPUS_GO", []string{".go"}},
		{"python", "CTXD_CORPUS_PYTHON", []string{".py"}},
		{"typescript", "CTXD_CORPUS_TS", []string{".ts"}},
		{"rust", "CTXD_CORPUS_RUST", []string{".rs"}},
		{"javascript", "CTXD_CORPUS_JS", []string{".js"}},
		{"c", "CTXD_CORPUS_C", []string{".c", ".h"}},
	}
	counter, err := tokens.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpora {
		root := os.Getenv(c.env)
		if root == "" && c.lang == "go" {
			root = filepath.Join(runtime.GOROOT(), "src")
		}
		if root == "" {
			t.Logf("%s: %s not set, skipped", c.lang, c.env)
			continue
		}
		t.Run(c.lang, func(t *testing.T) {
			files := corpusFiles(t, root, c.lang == "go", c.exts...)
			if c.lang == "typescript" {
				files = slices.DeleteFunc(files, func(p string) bool { return strings.HasSuffix(p, ".d.ts") && os.Getenv("CTXD_CORPUS_TS_DTS") == "" })
			}
			start := time.Now()
			var check func(string, []byte, []View) []string
			if c.lang == "go" {
				ts := treeSitterCheck("go")
				check = func(p string, src []byte, vs []View) []string {
					bad := ts(p, src, vs)
					for _, v := range vs {
						if v.Level == Bodies || v.Level == Signatures {
							if msg := goValid(src, []byte(v.Text)); msg != "" {
								bad = append(bad, fmt.Sprintf("%s: %s", v.Level, msg))
							}
						}
					}
					return bad
				}
			} else {
				check = treeSitterCheck(c.lang)
			}
			results := runCorpus(t, c.lang, files, check)
			wall := time.Since(start)
			report(t, c.lang, root, results, wall, counter)
		})
	}
}

func report(t *testing.T, lang, root string, results []corpusResult, wall time.Duration, counter tokens.Counter) {
	var parsed, valid, bytes, skippedTimeout int
	var cpu time.Duration
	ratios := map[Level][]float64{}
	totals := map[Level]int{}
	for _, r := range results {
		switch r.skipped {
		case "timeout":
			skippedTimeout++
			continue
		case "":
		default:
			continue
		}
		parsed++
		bytes += r.size
		cpu += r.took
		if len(r.invalid) == 0 {
			valid++
		} else if len(r.invalid) > 0 {
			t.Logf("invalid %s: %v", strings.TrimPrefix(r.path, root), r.invalid)
		}
		full := counter.Count(r.views[0].Text)
		for _, v := range r.views {
			n := counter.Count(v.Text)
			totals[v.Level] += n
			if full > 0 {
				ratios[v.Level] = append(ratios[v.Level], 1-float64(n)/float64(full))
			}
		}
	}
	median := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	t.Logf("| %s | %d | %d (%.1f%%) | %d timeouts | %.2f%% valid |", lang, len(results), parsed, pct(parsed, len(results)), skippedTimeout, pct(valid, parsed))
	for _, l := range []Level{Bodies, Signatures, Outline} {
		t.Logf("  %-10s median reduction %.1f%%, total %d → %d tokens (%.1f%% less)", l, 100*median(ratios[l]), totals[Full], totals[l], 100-pct(totals[l], totals[Full]))
	}
	t.Logf("  %.1f MB in %v wall (%d workers): %.2f MB/s; %.2f MB/s per core", float64(bytes)/1e6, wall.Round(time.Millisecond), runtime.GOMAXPROCS(0),
		float64(bytes)/1e6/wall.Seconds(), float64(bytes)/1e6/cpu.Seconds())
}
