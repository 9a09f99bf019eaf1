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
