//go:build !cgo || notreesitter

package treesitter

// CGO_ENABLED=0 go test -tags notreesitter ./treesitter/

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestFallbackLevels(t *testing.T) {
	for _, in := range goldenInputs(t) {
		lang, src := in.lang, in.src
		t.Run(lang, func(t *testing.T) {
			full, err := Render(t.Context(), lang, src, Full, Options{})
			if err != nil || full.Text != string(src) {
				t.Fatalf("Render(full): %v", err)
			}
			for _, l := range []Level{Bodies, Signatures} {
				if _, err := Render(t.Context(), lang, src, l, Options{}); !errors.Is(err, ErrUnsupported) {
					t.Errorf("Render(%s): got %v, want ErrUnsupported", l, err)
				}
			}
			vs, err := Views(t.Context(), lang, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 2 || vs[0].Level != Full || vs[1].Level != Outline {
				t.Fatalf("views %v, want full and outline", vs)
			}
			if len(vs[1].Text) > len(vs[0].Text) {
				t.Errorf("outline larger than the file")
			}
			syms, err := Symbols(t.Context(), lang, src)
			if err != nil {
				t.Fatal(err)
			}
			if len(syms.Symbols) == 0 {
				t.Errorf("no symbols found in %s", in)
			}
			for _, s := range syms.Symbols {
				if s.Start < 1 || s.End < s.Start || !strings.Contains(string(src), s.Name) {
					t.Errorf("bad symbol %+v", s)
				}
			}
		})
	}
}

func TestFallbackSymbols(t *testing.T) {
	tests := []struct {
		name    string
		lang    string
		src     string
		want    []string // Parent.Name
		imports []string
	}{
		{"go", "go", "package a\n\nimport (\n\t\"fmt\"\n)\n\n// F does f. More.\nfunc F() {}\n\nfunc (s *S) m() {}\n\ntype S struct{}\n", []string{"F", "m", "S"}, []string{"fmt"}},
		{"python", "python", "import os\n\nclass A:\n    def m(self):\n        pass\n\ndef f():\n    pass\n", []string{"A", "A.m", "f"}, []string{"os"}},
		{"typescript", "typescript", "import { x } from './x';\nexport class C {}\nexport function f() {}\nconst y = 1;\n", []string{"C", "f", "y"}, []string{"./x"}},
		{"rust", "rust", "use std::io;\npub struct S;\nimpl S {\n    fn m() {}\n}\npub fn f() {}\n", []string{"S", "S", "f"}, []string{"std::io"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Symbols(t.Context(), tt.lang, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range o.Symbols {
				n := s.Name
				if s.Parent != "" {
					n = s.Parent + "." + n
				}
				got = append(got, n)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("symbols %v, want %v", got, tt.want)
			}
			if !slices.Equal(o.Imports, tt.imports) {
				t.Errorf("imports %v, want %v", o.Imports, tt.imports)
			}
		})
	}
	if _, err := Symbols(t.Context(), "cobol", nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("unknown language: %v", err)
	}
}
