package treesitter

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctxd/ctxd/lang"
)

// Languages lists the language names [Detect] returns, in a stable order.
var Languages = []string{
	"go", "python", "javascript", "typescript", "tsx", "rust", "java",
	"c", "cpp", "csharp", "ruby", "php", "kotlin", "swift",
}

// interpreterLanguage maps a shebang's interpreter to a language.
var interpreterLanguage = map[string]string{
	"python":      "python",
	"node":        "javascript",
	"nodejs":      "javascript",
	"bun":         "javascript",
	"deno":        "typescript",
	"ts-node":     "typescript",
	"tsx":         "typescript",
	"ruby":        "ruby",
	"jruby":       "ruby",
	"php":         "php",
	"kotlin":      "kotlin",
	"kscript":     "kotlin",
	"swift":       "swift",
	"rust-script": "rust",
}

// Detect returns the language name for a path (by extension or well-known
// file name, from the table gather shares: [lang.Of]) or, failing that, by a shebang line at the start of src: one
// of [Languages], or "" when unsupported.
func Detect(p string, src []byte) string {
	if l := lang.Of(p); supported(l) {
		return l
	}
	return detectShebang(src)
}

// detectShebang reads "#!/usr/bin/env -S python3 -u" and the like.
func detectShebang(src []byte) string {
	if !bytes.HasPrefix(src, []byte("#!")) {
		return ""
	}
	line := src[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	interp := path.Base(fields[0])
	if interp == "env" {
		interp = ""
		for _, f := range fields[1:] {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "=") {
				continue // env flags (-S) and variable assignments
			}
			interp = path.Base(f)
			break
		}
	}
	// python3.11, ruby2.7, node18: strip a trailing version.
	name := strings.TrimRight(interp, "0123456789.")
	return interpreterLanguage[name]
}

// supported reports whether lang is one of [Languages].
func supported(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}
