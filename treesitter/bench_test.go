//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
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
	for _, name := range []string{"go/net-http-server", "go/golden", "python/golden", "typescript/golden", "rust/golden", "javascript/mocha-tests", "javascript/inner"} {
		var src []byte
		lang := "javascript"
		switch name {
		case "javascript/mocha-tests":
			src = mochaFile(20, 15) // every test's body is walked for its own collapse
		case "javascript/inner":
			s, _ := innerSource(lang, 60, 8) // one function of 60 inner functions, walked for them
			src = []byte(s)
		default:
			var err error
			if src, err = os.ReadFile(files[name]); err != nil {
				b.Fatal(err)
			}
			lang = Detect(files[name], src)
		}
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

// mochaFile returns a Mocha test file of suites describe blocks of tests
// it blocks each, about 10 lines a test.
func mochaFile(suites, tests int) []byte {
	var b []byte
	b = append(b, "'use strict'\n\nvar assert = require('assert')\nvar express = require('..')\n"...)
	for s := range suites {
		b = fmt.Appendf(b, "\ndescribe('suite %d', function () {\n", s)
		for t := range tests {
			b = fmt.Appendf(b, "  it('should handle case %d', function (done) {\n    var app = express()\n    app.use(function (req, res) {\n      res.send({ n: %d })\n    })\n    request(app)\n      .get('/')\n      .expect(200, done)\n  })\n\n", t, t)
		}
		b = append(b, "})\n"...)
	}
	return b
}

// BenchmarkFocusLadder renders the focus views of net/http's server.go
// that one request's ladder asks for (six ranked functions: all of them,
// the best 1, 2, 3 and 5, and the named one alone), the analysis cached
// and the views not: seven FocusViews calls against one FocusViewsEach.
//
//	go test -run XXX -bench FocusLadder -count 5 ./treesitter
func BenchmarkFocusLadder(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Fatal(err)
	}
	opts, keeps := ladderOf(b, src)
	ctx := WithoutCaches(context.Background())
	b.Run("calls", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, k := range keeps {
				o := opts
				o.KeepLines = k
				if _, err := FocusViews(ctx, "go", src, o); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("each", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := FocusViewsEach(ctx, "go", src, opts, keeps); errs[0] != nil {
				b.Fatal(errs[0])
			}
		}
	})
}

// ladderOf returns the options and the kept lines of a focus ladder over
// src's functions (every 25th of them, six in all, the first one named),
// its analysis put in the cache.
func ladderOf(tb testing.TB, src []byte) (Options, [][]int) {
	syms, err := Symbols(context.Background(), "go", src)
	if err != nil {
		tb.Fatal(err)
	}
	var lines []int
	var named string
	for i, s := range syms.Symbols {
		if focusFunctionKinds[s.Kind] && i%25 == 0 && len(lines) < 6 {
			lines = append(lines, s.Start+1)
			if named == "" {
				named = s.Name
			}
		}
	}
	if len(lines) < 6 {
		tb.Fatalf("%d functions", len(lines))
	}
	sum := sha256.Sum256(src) // as the engine passes it
	opts := Options{KeepFuncs: []string{named}, Timeout: slowOpts.Timeout, Sum: &sum}
	return opts, [][]int{lines, lines[:1], lines[:2], lines[:3], lines[:5], nil}
}

// BenchmarkParse parses net/http/server.go into Go nodes with the symbol
// index's leaves: the walk in C (parse) against the binding's cursor walk
// it replaced (parseCursor, walk_test.go).
//
//	go test -run XXX -bench Parse -count 5 ./treesitter
func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip(err)
	}
	g := grammars["go"]
	leaves := 0
	leaf := func(string, int, int) { leaves++ }
	for _, name := range []string{"c", "cursor"} {
		parse := g.parse
		if name == "cursor" {
			parse = g.parseCursor
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parse(context.Background(), src, time.Minute, nil, leaf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
