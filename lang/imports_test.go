package lang

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestImports(t *testing.T) {
	tests := []struct {
		lang, src string
		want      []string
	}{
		{"go", "package a\n\nimport \"fmt\"\nimport m \"x/y\"\nimport (\n\t\"os\"\n\t_ \"embed\"\n\t. `z`\n)\n\nfunc f() { _ = \"import \\\"no\\\"\" }\n", []string{"fmt", "x/y", "os", "embed", "z"}},
		{"python", "import os, sys as system\nfrom . import db, models as m\nfrom ..x.y import (a,\n  b)\nfrom pkg.mod import *\n", []string{"os", "sys", ".", ".db", ".models", "..x.y", "..x.y.a", "..x.y.b", "pkg.mod"}},
		{"typescript", "import a from './a'\nimport type { B } from \"../b\"\nexport * from './c'\nimport './side'\nconst d = require('./d')\nconst e = await import('./e')\n", []string{"./a", "../b", "./c", "./side", "./d", "./e"}},
		{"java", "package x;\nimport com.acme.Foo;\nimport static com.acme.Util.max;\nimport com.acme.sub.*;\n", []string{"com.acme.Foo", "com.acme.Util.max", "com.acme.sub.*"}},
		{"rust", "use std::io;", nil},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Imports(tt.lang, []byte(tt.src))); d != "" {
				t.Errorf("Imports (-want +got):\n%s", d)
			}
		})
	}
}

func TestImportsAt(t *testing.T) {
	type im = Import
	tests := []struct {
		name, lang, src string
		want            []Import
	}{
		{"go", "go", "import \"fmt\"\nimport (\n\tm \"x/y\"\n\n\t\"os\"\n)\n\nfunc f() {}\n", []im{
			{Spec: "fmt", Line: 1, Start: 1, End: 1},
			{Spec: "x/y", Line: 3, Start: 2, End: 6},
			{Spec: "os", Line: 5, Start: 2, End: 6},
		}},
		{"go one line group", "go", "import ( \"a\" )\nimport (\"b\"\n\t\"c\")\n", []im{
			{Spec: "a", Line: 1, Start: 1, End: 1},
			{Spec: "b", Line: 2, Start: 2, End: 3},
			{Spec: "c", Line: 3, Start: 2, End: 3},
		}},
		{"python one line", "python", "import os.path\nfrom a.b import c\n", []im{
			{Spec: "os.path", Line: 1, Start: 1, End: 1},
			{Spec: "a.b", Line: 2, Start: 2, End: 2},
			{Spec: "a.b.c", Line: 2, Start: 2, End: 2, Name: true},
		}},
		{"python parenthesized", "python", "from ._utils import (\n    to_bytes,  # why\n    to_str,\n)\nx = (1,\n 2)\n", []im{
			{Spec: "._utils", Line: 1, Start: 1, End: 4},
			{Spec: "._utils.to_bytes", Line: 2, Start: 1, End: 4, Name: true},
			{Spec: "._utils.to_str", Line: 3, Start: 1, End: 4, Name: true},
		}},
		{"python names on the first and last lines", "python", "from . import (a,\n  b)\nimport c\n", []im{
			{Spec: ".", Line: 1, Start: 1, End: 2},
			{Spec: ".a", Line: 1, Start: 1, End: 2, Name: true},
			{Spec: ".b", Line: 2, Start: 1, End: 2, Name: true},
			{Spec: "c", Line: 3, Start: 3, End: 3},
		}},
		{"python backslash", "python", "from m import a, \\\n    b\nimport x, \\\n    y.z as w\n", []im{
			{Spec: "m", Line: 1, Start: 1, End: 2},
			{Spec: "m.a", Line: 1, Start: 1, End: 2, Name: true},
			{Spec: "m.b", Line: 2, Start: 1, End: 2, Name: true},
			{Spec: "x", Line: 3, Start: 3, End: 4},
			{Spec: "y.z", Line: 4, Start: 3, End: 4},
		}},
		{"javascript", "javascript", "import x from './x'\nimport './side'\nconst y = require('./y')\n", []im{
			{Spec: "./x", Line: 1, Start: 1, End: 1},
			{Spec: "./side", Line: 2, Start: 2, End: 2},
			{Spec: "./y", Line: 3, Start: 3, End: 3},
		}},
		{"javascript over lines", "javascript", "import {\n  a,\n  b,\n} from './ab'\nexport {\n  c\n} from \"./c\"\nconst d = 1\n", []im{
			{Spec: "./ab", Line: 4, Start: 1, End: 4},
			{Spec: "./c", Line: 7, Start: 5, End: 7},
		}},
		{"typescript over lines", "typescript", "import type {\n  A,\n  B as C,\n} from '../types'\nexport * from \"../c\"\n", []im{
			{Spec: "../types", Line: 4, Start: 1, End: 4},
			{Spec: "../c", Line: 5, Start: 5, End: 5},
		}},
		{"typescript from after code", "typescript", "const s = 'from'\nlet x = y\n} from './z'\n", []im{
			{Spec: "./z", Line: 3, Start: 3, End: 3},
		}},
		{"tsx", "tsx", "import React from 'react'\n", []im{{Spec: "react", Line: 1, Start: 1, End: 1}}},
		{"java", "java", "import static a.B.c;\nimport a.b.*;\n", []im{
			{Spec: "a.B.c", Line: 1, Start: 1, End: 1},
			{Spec: "a.b.*", Line: 2, Start: 2, End: 2},
		}},
		{"kotlin", "kotlin", "import kotlinx.coroutines.channels.Channel\n", []im{{Spec: "kotlinx.coroutines.channels.Channel", Line: 1, Start: 1, End: 1}}},
		{"rust", "rust", "pub use std::io;\nuse a::{b, c};\n", []im{
			{Spec: "std::io", Line: 1, Start: 1, End: 1},
			{Spec: "a::{b, c}", Line: 2, Start: 2, End: 2},
		}},
		{"c", "c", "#include <stdlib.h>\n# include \"list.h\"\n", []im{
			{Spec: "stdlib.h", Line: 1, Start: 1, End: 1},
			{Spec: "list.h", Line: 2, Start: 2, End: 2},
		}},
		{"cpp", "cpp", "#include <vector>\n", []im{{Spec: "vector", Line: 1, Start: 1, End: 1}}},
		{"csharp", "csharp", "using System;\nglobal using static System.Math;\n", []im{
			{Spec: "System", Line: 1, Start: 1, End: 1},
			{Spec: "System.Math", Line: 2, Start: 2, End: 2},
		}},
		{"ruby", "ruby", "require 'json'\nrequire_relative(\"item\")\n", []im{
			{Spec: "json", Line: 1, Start: 1, End: 1},
			{Spec: "item", Line: 2, Start: 2, End: 2},
		}},
		{"php", "php", "use App\\Db\\Connection;\nrequire_once 'x.php';\n", []im{
			{Spec: "App\\Db\\Connection", Line: 1, Start: 1, End: 1},
			{Spec: "x.php", Line: 2, Start: 2, End: 2},
		}},
		{"swift", "swift", "import Foundation\nimport struct Swift.Int\n", []im{
			{Spec: "Foundation", Line: 1, Start: 1, End: 1},
			{Spec: "Swift.Int", Line: 2, Start: 2, End: 2},
		}},
		{"vue", "vue", "import x from './x'\n", []im{{Spec: "./x", Line: 1, Start: 1, End: 1}}},
		{"markdown", "markdown", "import x\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, ImportsAt(tt.lang, []byte(tt.src))); d != "" {
				t.Errorf("ImportsAt (-want +got):\n%s", d)
			}
			if want := tt.lang != "markdown"; HasImports(tt.lang) != want {
				t.Errorf("HasImports = %v, want %v", !want, want)
			}
		})
	}
}

// go test -fuzz=FuzzImports ./lang
func FuzzImports(f *testing.F) {
	langs := []string{"go", "python", "typescript", "java"}
	for _, s := range []string{"import (\n\"a\"\n", "from . import (x,\n", "import x from './y'", "import static a.*;", "package cart\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/poly/internal/money\"\n)\n\nvar _ money.Amount\nvar _ = fmt.Sprint\n"} {
		for i := range langs {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, li uint8, src string) {
		l := langs[int(li)%len(langs)]
		a := Imports(l, []byte(src))
		b := Imports(l, []byte(src))
		if !slices.Equal(a, b) {
			t.Fatal("not deterministic")
		}
		for _, s := range a {
			if strings.ContainsAny(s, "\n") {
				t.Fatalf("import spec %q spans lines", s)
			}
		}
		n := strings.Count(src, "\n") + 1
		for _, im := range ImportsAt(l, []byte(src)) {
			if im.Start < 1 || im.Start > im.Line || im.Line > im.End || im.End > n {
				t.Fatalf("import %+v: lines out of order or past the file's %d", im, n)
			}
		}
	})
}
