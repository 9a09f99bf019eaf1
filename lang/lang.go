// Package lang holds ctxd's file-classification tables, one per fact: file
// names to language names (Of), test files and their pairing with sources
// (IsTest, TestPairs), secret file names (IsSecret, IsStateDir) and
// minified text (Minified). The workspace walk (gather: facts, code
// fences, roles), the parser (treesitter: which grammar reads a file),
// pack and the engine all read them, so a file is classified the same
// everywhere. It imports nothing of ours.
package lang

import (
	"maps"
	"path"
	"strings"
)

// byExt maps lowercase extensions, with the dot, to language names.
var byExt = map[string]string{
	// Parsed with tree-sitter (treesitter.Languages).
	".go": "go",
	".py": "python", ".pyi": "python", ".pyw": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
	".tsx":  "tsx",
	".rs":   "rust",
	".java": "java",
	// .h is shared by C and C++; the C grammar reads the common subset.
	".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp",
	".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp",
	".cs": "csharp",
	".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
	".php": "php",
	".kt":  "kotlin", ".kts": "kotlin",
	".swift": "swift",

	// Known, not parsed.
	".scala": "scala", ".lua": "lua", ".sh": "bash", ".bash": "bash", ".zsh": "bash",
	".sql": "sql", ".html": "html", ".htm": "html", ".css": "css", ".scss": "scss",
	".vue": "vue", ".svelte": "svelte", ".md": "markdown", ".markdown": "markdown",
	".rst": "rst", ".txt": "text", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
	".toml": "toml", ".xml": "xml", ".proto": "protobuf", ".gradle": "groovy",
	".groovy": "groovy", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
	".hs": "haskell", ".ml": "ocaml", ".zig": "zig", ".dart": "dart", ".r": "r",
	".jl": "julia", ".pl": "perl", ".tf": "hcl", ".hcl": "hcl", ".ini": "ini",
	".cfg": "ini", ".s": "asm", ".asm": "asm", ".mod": "go.mod", ".sum": "text",
	".graphql": "graphql", ".nix": "nix", ".cmake": "cmake", ".mk": "make",
}

// byName maps lowercase base names to language names; a name wins over
// its extension (go.mod, CMakeLists.txt).
var byName = map[string]string{
	"makefile": "make", "dockerfile": "dockerfile", "justfile": "just",
	"gemfile": "ruby", "rakefile": "ruby", "podfile": "ruby",
	"go.mod": "go.mod", "go.sum": "text", "cmakelists.txt": "cmake",
}

// Of returns the language of a file from its name ("go", "python",
// "typescript", "markdown", ...), or "" when unknown. Slash and backslash
// paths are both accepted; case is ignored.
func Of(p string) string {
	base := strings.ToLower(path.Base(strings.ReplaceAll(p, `\`, "/")))
	if l, ok := byName[base]; ok {
		return l
	}
	return byExt[path.Ext(base)]
}

// Extensions returns a copy of the extension table (extension with its
// dot → language), for tests and listings.
func Extensions() map[string]string { return maps.Clone(byExt) }

// Names returns a copy of the base-name table (lowercase name →
// language).
func Names() map[string]string { return maps.Clone(byName) }
