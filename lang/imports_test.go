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
		{"python", "import os, sys as system\nfrom . import db, models as m\nfrom ..x.y import (a,\n  b)\nfrom pkg.mod import *\n", []string{"os", "sys", ".", ".db", ".models", "..x.y", "..x.y.a", "pkg.mod"}},
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

func TestImportLines(t *testing.T) {
	tests := []struct {
		lang, src string
		want      []string
	}{
		{"go", "import \"fmt\"\nimport (\n\tm \"x/y\"\n)\n", []string{"fmt", "x/y"}},
		{"python", "import os.path\nfrom a.b import c\n", []string{"os.path", "a.b"}},
		{"javascript", "import x from './x'\nimport './side'\nconst y = require('./y')\n", []string{"./x", "./side", "./y"}},
		{"typescript", "export * from \"../c\"\n", []string{"../c"}},
		{"tsx", "import React from 'react'\n", []string{"react"}},
		{"java", "import static a.B.c;\nimport a.b.*;\n", []string{"a.B.c", "a.b.*"}},
		{"kotlin", "import kotlinx.coroutines.channels.Channel\n", []string{"kotlinx.coroutines.channels.Channel"}},
		{"rust", "pub use std::io;\nuse a::{b, c};\n", []string{"std::io", "a::{b, c}"}},
		{"c", "#include <stdlib.h>\n# include \"list.h\"\n", []string{"stdlib.h", "list.h"}},
		{"cpp", "#include <vector>\n", []string{"vector"}},
		{"csharp", "using System;\nglobal using static System.Math;\n", []string{"System", "System.Math"}},
		{"ruby", "require 'json'\nrequire_relative(\"item\")\n", []string{"json", "item"}},
		{"php", "use App\\Db\\Connection;\nrequire_once 'x.php';\n", []string{"App\\Db\\Connection", "x.php"}},
		{"swift", "import Foundation\nimport struct Swift.Int\n", []string{"Foundation", "Swift.Int"}},
		{"vue", "import x from './x'\n", nil},
		{"markdown", "import x\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			var got []string
			for line := range strings.SplitSeq(tt.src, "\n") {
				for _, re := range ImportLines(tt.lang) {
					if m := re.FindStringSubmatch(line); m != nil {
						got = append(got, m[1])
					}
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ImportLines (-want +got):\n%s", d)
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
	})
}
