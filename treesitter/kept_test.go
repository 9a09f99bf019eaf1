//go:build cgo && !notreesitter

package treesitter

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestKeptViewsParse checks the claim render relies on to skip the check
// parse of a view that keeps functions whole: when its edits are a subset
// of the checked edits of the view without kept functions, it parses (no
// error the check would find) and it is the very view the checked render
// returns. Every function of each file is kept in turn, and pairs of
// them (a few per file), at the Bodies and Signatures levels, over the
// golden inputs (every language) and, without -short, GOROOT/src's
// net/http and encoding/json (or the files under CTXD_KEPT_CORPUS).
func TestKeptViewsParse(t *testing.T) {
	files := goldenPaths(t)
	// Under the race detector the golden inputs alone (the parses are
	// slow there; the corpus runs without it).
	if !testing.Short() && !testutil.RaceEnabled {
		if root := os.Getenv("CTXD_KEPT_CORPUS"); root != "" {
			files = append(files, corpusFiles(t, root, false, ".go", ".py", ".js", ".ts", ".tsx", ".rs", ".java", ".rb", ".c", ".cpp", ".cs", ".kt", ".php", ".swift")...)
		} else {
			src := filepath.Join(runtime.GOROOT(), "src")
			for _, dir := range []string{"net/http", "encoding/json"} {
				files = append(files, corpusFiles(t, filepath.Join(src, dir), false, ".go")...)
			}
		}
	}
	subset, other, inner := 0, 0, 0
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lang := Detect(path, src)
		if lang == "" || len(src) > MaxSize {
			continue
		}
		ctx := slowCtx()
		a, err := analyzeStored(ctx, lang, src, sumOf(src), budget(ctx, lang, time.Minute), nil)
		if err != nil {
			continue // does not parse cleanly: no views
		}
		g, _ := grammarFor(lang)
		var starts []int
		for _, s := range a.symbols {
			if s.Kind == "function" || s.Kind == "method" {
				starts = append(starts, s.Start)
			}
		}
		// At most maxKept functions of a file, spread over it, alone and
		// with the one before.
		var keeps [][]int
		step := max(1, len(starts)/maxKept)
		for i := 0; i < len(starts); i += step {
			keeps = append(keeps, []int{starts[i]})
			if i > 0 {
				keeps = append(keeps, []int{starts[i-1], starts[i]})
			}
		}
		keeps = append(keeps, nil) // KeepFuncs below instead
		for _, level := range []Level{Bodies, Signatures} {
			for _, keep := range keeps {
				o := Options{KeepLines: keep, Timeout: time.Minute}
				if keep == nil {
					if len(a.symbols) == 0 {
						continue
					}
					o.KeepFuncs = []string{a.symbols[len(a.symbols)/2].Name}
				}
				ref, err := a.cleanEdits(ctx, g, level, o, budget(ctx, lang, time.Minute), nil, false)
				if err != nil {
					continue
				}
				es := a.plan(level, o, nil)
				if !subsetOf(es, ref) {
					// A kept large function outlined: its inner edits
					// come from the view with every one outlined.
					in, err := a.cleanEdits(ctx, g, level, o, budget(ctx, lang, time.Minute), nil, true)
					if err != nil || !a.hasInner() || !subsetOf(es, mergeEdits(ref, in)) {
						other++
						continue
					}
					inner++
				}
				subset++
				text, _, _ := a.apply(es)
				errs, err := g.errors(ctx, []byte(text), time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if len(errs) > 0 {
					t.Errorf("%s at %s keeping lines %v funcs %v: the view does not parse (errors at %v)", path, level, o.KeepLines, o.KeepFuncs, errs)
					continue
				}
				want, _, err := a.renderChecked(ctx, g, level, o, budget(ctx, lang, time.Minute), nil, "")
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := a.render(ctx, g, level, o, budget(ctx, lang, time.Minute), nil); got.Text != want.Text || len(got.Elided) != len(want.Elided) {
					t.Errorf("%s at %s keeping lines %v funcs %v: render without the check differs from the checked render", path, level, o.KeepLines, o.KeepFuncs)
				}
			}
		}
	}
	t.Logf("%d files; %d kept views were subsets of the checked views (not checked; %d of them outlining a large function), %d were not (checked)", len(files), subset, inner, other)
	if subset == 0 {
		t.Fatal("no kept view took the unchecked path")
	}
}

// maxKept bounds the functions of a file TestKeptViewsParse keeps.
const maxKept = 12

// TestViewsWithSum: a source's sum handed in (Options.Sum) gives the views
// and focus views computed without it.
func TestViewsWithSum(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "golden", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	for _, keep := range [][]int{nil, {12}, {30, 60}} {
		o := Options{KeepLines: keep}
		want, err := Views(slowCtx(), "go", src, o)
		if err != nil {
			t.Fatal(err)
		}
		wantF, _ := FocusViews(slowCtx(), "go", src, o)
		o.Sum = &sum
		got, err := Views(slowCtx(), "go", src, o)
		if err != nil {
			t.Fatal(err)
		}
		gotF, _ := FocusViews(slowCtx(), "go", src, o)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("keep %v: views (-without +with sum):\n%s", keep, d)
		}
		if d := cmp.Diff(wantF, gotF); d != "" {
			t.Errorf("keep %v: focus views (-without +with sum):\n%s", keep, d)
		}
	}
}

// TestSymbolsStored: the symbols read through a store are Symbols', and
// the store learns the file's analysis (a later process reads it there).
func TestSymbolsStored(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "golden", "widget.js"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Symbols(slowCtx(), "javascript", src)
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore()
	got, err := SymbolsStored(slowCtx(), "javascript", src, store)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("symbols (-Symbols +SymbolsStored):\n%s", d)
	}
	if n := store.Stats().Analyses; n != 1 {
		t.Errorf("store holds %d analyses, want 1", n)
	}
}
