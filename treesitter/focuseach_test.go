//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusViewsEachIsFocusViews: FocusViewsEach returns for each kept
// set what FocusViews returns for it alone, on every golden file (each
// as is and without its final newline, where a focused span ending at
// the last line is scanned whole), for ladders over its functions with a
// named one, caches off so every view is rendered.
func TestFocusViewsEachIsFocusViews(t *testing.T) {
	ctx := WithoutCaches(context.Background())
	tried := 0
	for _, in := range goldenInputs(t) {
		p, lang, src := in.path, in.lang, in.src
		if lang == "" {
			continue
		}
		for _, src := range [][]byte{src, []byte(strings.TrimRight(string(src), "\n"))} {
			syms, err := Symbols(ctx, lang, src)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			var lines []int
			var named []string
			for i := len(syms.Symbols) - 1; i >= 0; i-- { // the last first: the span at the end
				if s := syms.Symbols[i]; focusFunctionKinds[s.Kind] {
					lines = append(lines, s.End)
					if len(named) == 0 {
						named = []string{s.Name}
					}
				}
			}
			if len(lines) == 0 {
				continue
			}
			keeps := [][]int{lines, lines[:1], lines[:min(2, len(lines))], lines[:min(3, len(lines))], nil}
			for _, opts := range []Options{{}, {KeepFuncs: named}, {KeepFuncs: named, RefLines: lines[:1]}} {
				got, errs := FocusViewsEach(ctx, lang, src, opts, keeps)
				for i, k := range keeps {
					o := opts
					o.KeepLines = k
					want, err := FocusViews(ctx, lang, src, o)
					if !reflect.DeepEqual(got[i], want) || (err == nil) != (errs[i] == nil) {
						t.Errorf("%s (%d bytes) keep %v %+v: FocusViewsEach %d views (%v), FocusViews %d (%v)", p, len(src), k, o, len(got[i]), errs[i], len(want), err)
					}
					if len(want) > 0 {
						tried++
					}
				}
			}
		}
	}
	if tried < 50 {
		t.Errorf("%d sets of focus views compared", tried)
	}
}

// TestFocusViewsOfIsFocusViews: FocusViewsOf, given options that differ
// in more than the kept lines (module-level lines in some and not in
// others, match lines, a named function), returns for each what
// FocusViews returns for it alone, on every golden file, caches off.
func TestFocusViewsOfIsFocusViews(t *testing.T) {
	ctx := WithoutCaches(context.Background())
	tried := 0
	for _, in := range goldenInputs(t) {
		p, lang, src := in.path, in.lang, in.src
		if lang == "" {
			continue
		}
		syms, err := Symbols(ctx, lang, src)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var ends, outside []int // the functions' last lines; lines outside every function
		var named []string
		for _, s := range syms.Symbols {
			if focusFunctionKinds[s.Kind] {
				ends = append(ends, s.End)
				named = []string{s.Name}
			}
		}
		for l := 1; l <= strings.Count(string(src), "\n") && len(outside) < 3; l++ {
			if !slices.ContainsFunc(syms.Symbols, func(s Symbol) bool { return focusFunctionKinds[s.Kind] && s.Start <= l && l <= s.End }) {
				outside = append(outside, l)
			}
		}
		if len(ends) == 0 {
			continue
		}
		last := ends[len(ends)-1:]
		opts := []Options{
			{KeepLines: ends, DeclLines: outside},
			{KeepLines: last},
			{KeepLines: last, DeclLines: outside},
			{KeepLines: ends[:1], MatchLines: last},
			{KeepFuncs: named},
			{},
			{KeepLines: ends[:1], RefLines: outside},
		}
		got, errs := FocusViewsOf(ctx, lang, src, opts)
		for i, o := range opts {
			want, err := FocusViews(ctx, lang, src, o)
			if !reflect.DeepEqual(got[i], want) || (err == nil) != (errs[i] == nil) {
				t.Errorf("%s %+v: FocusViewsOf %d views (%v), FocusViews %d (%v)", p, o, len(got[i]), errs[i], len(want), err)
			}
			if len(want) > 0 {
				tried++
			}
		}
	}
	if tried < 50 {
		t.Errorf("%d sets of focus views compared", tried)
	}
}

// TestFocusFileFound: the words a focus file finds in ranges of its
// lines (scanned a line at a time, once) are identifiersIn's over the
// ranges' text, whatever the order of the ranges, the last line with or
// without its newline (a word would then run into the next range's).
func TestFocusFileFound(t *testing.T) {
	for _, src := range []string{
		"package p\n\nimport \"fmt\"\n\nconst Max = 3\n\nfunc A() { fmt.Println(Max) }\n\nfunc B() { A() }\n",
		"package p\n\nimport \"fmt\"\n\nconst Max = 3\n\nfunc A() { fmt.Println(Max) }\n\nfunc B() { A() }\nfunc C() { B() }",
		"package p\n\nimport \"fmt\"\n\nconst Max = 3\n\nfunc A() { fmt.Println(Max) }\n\nfunc B() { A() }\nMax",
	} {
		syms, err := Symbols(context.Background(), "go", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		f := newFocusFile("go", []byte(src), nil, syms.Symbols, syms.Imports)
		n := len(f.lines)
		for _, rs := range [][]ctxd.LineRange{
			{{Start: 1, End: n}},
			{{Start: 7, End: 7}},
			{{Start: n, End: n}, {Start: 7, End: 7}},
			{{Start: n, End: n}, {Start: 5, End: 5}},
			{{Start: 5, End: 5}, {Start: n, End: n}},
			{{Start: 3, End: 3}, {Start: 9, End: n}, {Start: 1, End: 2}},
		} {
			want := identifiersIn(rangesText(f.lines, rs), f.names)
			if got := f.found(rs); !reflect.DeepEqual(got, want) {
				t.Errorf("%q %v: found %v, identifiersIn %v", src[len(src)-12:], rs, got, want)
			}
		}
	}
}
