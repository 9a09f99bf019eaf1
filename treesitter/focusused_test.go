//go:build cgo && !notreesitter

package treesitter

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusShowsWhatItUses: the focus views show, beside a focused
// function, the import lines that bring the names it uses and the short
// declarations it names (a module constant, a variable, a class
// attribute, a field of its type), in place; the imports and declarations
// it does not use stay elided. A change to a function often changes them
// too: gin's countParams commit replaced the bytes import and the
// strColon and strStar variables with strings.Count.
func TestFocusShowsWhatItUses(t *testing.T) {
	tests := []struct {
		name, lang, src string
		keep            string   // a line of the focused function
		want            []string // lines shown
		hidden          []string // lines elided
	}{
		{
			name: "go",
			lang: "go",
			src: `package gin

import (
	"bytes"
	"net/url"
	"strings"
)

var (
	strColon = []byte(":")
	strStar  = []byte("*")
)

const maxParams = 255

var unusedTable = []string{"a", "b"}

type node struct {
	path     string
	priority uint32
}

func (n *node) countParams(path string) uint16 {
	var k uint16
	k += uint16(bytes.Count([]byte(path), strColon)) // keepMe
	k += uint16(bytes.Count([]byte(n.path), strStar))
	if k > maxParams {
		k = maxParams
	}
	return k
}

func escape(s string) string {
	return url.PathEscape(strings.TrimSpace(s))
}
`,
			keep:   "keepMe",
			want:   []string{`"bytes"`, `strColon = []byte(":")`, `strStar  = []byte("*")`, "const maxParams = 255", "path     string", "import ("},
			hidden: []string{`"net/url"`, `"strings"`, "unusedTable", "priority uint32"},
		},
		{
			name: "python",
			lang: "python",
			src: `"""Auth."""

import hashlib
import os
from ._models import (
    Cookies,
    Request,
)
from ._utils import to_bytes

DEFAULT_REALM = "realm"
UNUSED = 3


class DigestAuth:
    _ALGORITHMS = {"MD5": hashlib.md5}
    other_attr = 1

    def auth_flow(self, request):
        response = yield request  # keepMe
        Cookies(response.cookies).set_cookie_header(request=request)
        digest = self._ALGORITHMS["MD5"]
        return DEFAULT_REALM, digest

    def other(self):
        return to_bytes(os.getcwd()) + self.other_attr
`,
			keep: "keepMe",
			// other_attr is not used, but it is in the head of the
			// focused method's class (typeHeads), shown whole.
			want:   []string{"    Cookies,", "from ._models import (", "DEFAULT_REALM = \"realm\"", `_ALGORITHMS = {"MD5": hashlib.md5}`, "other_attr = 1", "class DigestAuth:"},
			hidden: []string{"import os", "from ._utils import to_bytes", "UNUSED = 3", "    Request,"},
		},
		{
			name: "typescript",
			lang: "typescript",
			src: `import { readFile } from 'node:fs'
import path from 'node:path'
import {
  normalizePath,
  isObject,
} from './utils'

const DEFAULT_EXT = '.ts'
const unused = 1

export function resolveConfig(root: string): string {
  const file = path.join(root, 'vite.config' + DEFAULT_EXT) // keepMe
  return normalizePath(file)
}

export function other(): boolean {
  return isObject(readFile)
}
`,
			keep:   "keepMe",
			want:   []string{"import path from 'node:path'", "  normalizePath,", "import {", "const DEFAULT_EXT = '.ts'"},
			hidden: []string{"import { readFile } from 'node:fs'", "  isObject,", "const unused = 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := strings.Split(tt.src, "\n")
			at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, tt.keep) }) + 1
			lineOf := func(s string) int {
				if i := slices.Index(lines, s); i >= 0 {
					return i + 1
				}
				for i, l := range lines {
					if strings.Contains(l, s) {
						return i + 1
					}
				}
				t.Fatalf("no line holds %q", s)
				return 0
			}
			vs, err := FocusViews(slowCtx(), tt.lang, []byte(tt.src), Options{KeepLines: []int{at}})
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) == 0 {
				t.Fatal("no focus view")
			}
			for _, v := range vs {
				elided := func(l int) bool {
					return slices.ContainsFunc(v.Elided, func(r ctxd.LineRange) bool { return r.Start <= l && l <= r.End })
				}
				for _, w := range tt.want {
					if l := lineOf(w); elided(l) || !strings.Contains(v.Text, lines[l-1]) {
						t.Errorf("%s: line %d %q hidden (elided %v)\n%s", v.Level, l, w, v.Elided, v.Text)
					}
				}
				for _, h := range tt.hidden {
					if l := lineOf(h); !elided(l) {
						t.Errorf("%s: line %d %q shown, want it elided\n%s", v.Level, l, h, v.Text)
					}
				}
			}
		})
	}
}

// TestImportNames: the names an import line binds.
func TestImportNames(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`"net/http"`, []string{"http"}},
		{`bc "github.com/gin-gonic/gin/internal/bytesconv"`, []string{"bc"}},
		{`_ "embed"`, []string{"embed"}},
		{`from ._models import Cookies, Request  # types`, []string{"_models", "Cookies", "Request"}},
		{`import os.path as osp`, []string{"os", "path", "osp"}},
		{`import { a, b as c } from './x.js'`, []string{"a", "b", "c"}},
		{`import * as fs from "node:fs";`, []string{"fs"}},
		{`use std::collections::HashMap;`, []string{"std", "collections", "HashMap"}},
		{`) // end`, nil},
	}
	for _, tt := range tests {
		if got := importNames(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("importNames(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// FuzzFocusUsed: the focus views of any source at any kept line never
// panic, and every elided range lies within the file (the import scan
// and the used declarations read untrusted text).
//
//	go test -fuzz=FuzzFocusUsed ./treesitter
func FuzzFocusUsed(f *testing.F) {
	f.Add("package p\n\nimport (\n\t\"bytes\"\n\tx \"net/url\"\n)\n\nconst c = 1\n\nfunc f() int {\n\treturn bytes.MinRead + c + len(x.Path)\n}\n", 11, false)
	f.Add("import os\nfrom a import (\n    b,\n)\nK = 1\n\nclass C:\n    v = 2\n\n    def m(self):\n        return os.sep, b, K, self.v\n", 11, true)
	f.Add("from x import (\n", 1, true)
	f.Add("import (\n\"\n", 2, false)
	f.Fuzz(func(t *testing.T, src string, keep int, python bool) {
		lang := "go"
		if python {
			lang = "python"
		}
		vs, err := FocusViews(t.Context(), lang, []byte(src), Options{KeepLines: []int{keep}})
		if err != nil {
			return
		}
		n := strings.Count(src, "\n") + 1
		for _, v := range vs {
			for _, r := range v.Elided {
				if r.Start < 1 || r.End < r.Start || r.End > n {
					t.Fatalf("%s: elided %v outside 1-%d", v.Level, r, n)
				}
			}
		}
	})
}
