package tree

import (
	"strings"

	"github.com/ctxd/ctxd/lang"
)

// declarationCopies reports, by document, a TypeScript declaration file
// that copies an implementation the repository holds (nil when none
// does): every code declaration file of a repository whose code is
// JavaScript, with no TypeScript source (commander.js's typings/index.d.ts
// declares what lib/*.js defines), and in any repository one beside an
// implementation of its name (misc/true.d.ts beside misc/true.js, x.d.ts
// beside the x.ts it was built from). For a code task such a file is the
// implementation's signatures a second time: its ranking prior is a
// document's (lang.RoleDeclaration), and "how do I make an option
// required" had given it 5,105 of 9,534 tokens at signatures. In a
// TypeScript repository a declaration file alone is code of its own
// (vite's types/*.d.ts are written by hand and edited by its commits).
func declarationCopies(docs []*indexDoc) []bool {
	var decls []int
	ts, js := false, false
	impl := map[string]bool{} // implementation paths without their extension
	for i, d := range docs {
		if d.role != lang.RoleCode {
			continue
		}
		if _, ok := declarationStem(d.path); ok {
			decls = append(decls, i)
			continue
		}
		stem, ext := splitScriptExt(d.path)
		switch ext {
		case "":
			continue
		case ".ts", ".tsx", ".mts", ".cts":
			// A type test (tsd's index.test-d.ts) tests the declarations.
			ts = ts || !d.test && !strings.HasSuffix(stem, ".test-d")
		default:
			js = js || !d.test
		}
		impl[stem] = true
	}
	if len(decls) == 0 {
		return nil
	}
	var out []bool
	for _, i := range decls {
		stem, _ := declarationStem(docs[i].path)
		if js && !ts || impl[stem] {
			if out == nil {
				out = make([]bool, len(docs))
			}
			out[i] = true
		}
	}
	return out
}

// declarationStem returns a declaration file's path without ".d.ts"
// (".d.mts", ".d.cts") and whether it is one.
func declarationStem(rel string) (string, bool) {
	for _, ext := range []string{".d.ts", ".d.mts", ".d.cts"} {
		if stem, ok := strings.CutSuffix(rel, ext); ok && stem != "" && !strings.HasSuffix(stem, "/") {
			return stem, true
		}
	}
	return "", false
}

// splitScriptExt splits a JavaScript or TypeScript source's path into
// its path without the extension and the extension ("" for another file).
func splitScriptExt(rel string) (string, string) {
	for _, ext := range []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"} {
		if stem, ok := strings.CutSuffix(rel, ext); ok && stem != "" && !strings.HasSuffix(stem, "/") {
			return stem, ext
		}
	}
	return "", ""
}
