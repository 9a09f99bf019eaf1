package treesitter

import (
	"bytes"
	"path"
	"strings"
)

// Languages lists the language names [Detect] returns, in a stable order.
var Languages = []string{
	"go", "python", "javascript", "typescript", "tsx", "rust", "java",
	"c", "cpp", "csharp", "ruby", "php", "kotlin", "swift",
}

var extLanguage = map[string]string{
	".go":   "go",
	".py":   "python",
	".pyi":  "python",
	".pyw":  "python",
	".js":   "javascript",
	".mjs":  "javascript",
	".cjs":  "javascript",
	".jsx":  "javascript",
	".ts":   "typescript",
	".mts":  "typescript",
	".cts":  "typescript",
	".tsx":  "tsx",
	".rs":   "rust",
	".java": "java",
	".c":    "c",
	// .h is shared by C and C++; the C grammar reads the common subset.
	".h":       "c",
	".cc":      "cpp",
	".cpp":     "cpp",
	".cxx":     "cpp",
	".c++":     "cpp",
	".hh":      "cpp",
	".hpp":     "cpp",
	".hxx":     "cpp",
	".h++":     "cpp",
	".ipp":     "cpp",
	".cs":      "csharp",
	".rb":      "ruby",
	".rake":    "ruby",
	".gemspec": "ruby",
	".ru":      "ruby",
	".php":     "php",
	".kt":      "kotlin",
	".kts":     "kotlin",
	".swift":   "swift",
}

var nameLanguage = map[string]string{
	"Rakefile": "ruby",
	"Gemfile":  "ruby",
	"Podfile":  "ruby",
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
// file name) or, failing that, by a shebang line at the start of src: one
// of [Languages], or "" when unsupported.
func Detect(p string, src []byte) string {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if l, ok := nameLanguage[base]; ok {
		return l
	}
	if l, ok := extLanguage[strings.ToLower(path.Ext(base))]; ok {
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
