package gather

import (
	"path"
	"strings"
)

// languages maps lowercase extensions to the language names used in
// Facts.Language and in code fences.
var languages = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
	".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript",
	".cts": "typescript", ".tsx": "tsx", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
	".rs": "rust", ".rb": "ruby", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
	".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".cs": "csharp", ".swift": "swift",
	".scala": "scala", ".php": "php", ".lua": "lua", ".sh": "bash", ".bash": "bash",
	".zsh": "bash", ".sql": "sql", ".html": "html", ".htm": "html", ".css": "css",
	".scss": "scss", ".vue": "vue", ".svelte": "svelte", ".md": "markdown",
	".markdown": "markdown", ".rst": "rst", ".txt": "text", ".json": "json",
	".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".xml": "xml", ".proto": "protobuf",
	".gradle": "groovy", ".groovy": "groovy", ".ex": "elixir", ".exs": "elixir",
	".erl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".zig": "zig", ".dart": "dart",
	".r": "r", ".jl": "julia", ".pl": "perl", ".tf": "hcl", ".hcl": "hcl", ".ini": "ini",
	".cfg": "ini", ".s": "asm", ".asm": "asm", ".mod": "go.mod", ".sum": "text",
	".graphql": "graphql", ".nix": "nix", ".cmake": "cmake", ".mk": "make",
}

// namedLanguages maps whole base names to languages.
var namedLanguages = map[string]string{
	"makefile": "make", "dockerfile": "dockerfile", "gemfile": "ruby", "rakefile": "ruby",
	"go.mod": "go.mod", "go.sum": "text", "cmakelists.txt": "cmake", "justfile": "just",
}

// Language returns the language of a file from its name ("go", "python",
// "typescript", ...), or "" when unknown.
func Language(p string) string {
	base := strings.ToLower(path.Base(p))
	if l, ok := namedLanguages[base]; ok {
		return l
	}
	return languages[path.Ext(base)]
}

// binaryExts are extensions of files that are never text; the walk skips
// them without reading.
var binaryExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true, ".ico": true,
	".webp": true, ".tiff": true, ".psd": true, ".pdf": true, ".zip": true, ".gz": true,
	".tgz": true, ".bz2": true, ".xz": true, ".zst": true, ".7z": true, ".rar": true,
	".tar": true, ".jar": true, ".war": true, ".class": true, ".exe": true, ".dll": true,
	".so": true, ".dylib": true, ".a": true, ".o": true, ".obj": true, ".lib": true,
	".wasm": true, ".pyc": true, ".pyo": true, ".bin": true, ".dat": true, ".db": true,
	".sqlite": true, ".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".eot": true,
	".mp3": true, ".mp4": true, ".wav": true, ".ogg": true, ".mov": true, ".avi": true,
	".mkv": true, ".flac": true, ".syso": true, ".pprof": true, ".gob": true,
}

// kind is a coarse class of file that sets its base priority.
type kind int

const (
	kindCode kind = iota
	kindConfig
	kindDoc
	kindExample
)

var docLanguages = map[string]bool{"markdown": true, "rst": true, "text": true}

var configLanguages = map[string]bool{
	"json": true, "yaml": true, "toml": true, "xml": true, "ini": true, "go.mod": true,
	"make": true, "dockerfile": true, "cmake": true, "hcl": true, "just": true, "groovy": true,
}

// fileKind classifies a root-relative path: documentation (docs/, *.md,
// LICENSE, ...), examples (examples/, example/, samples/, testdata/,
// fixtures/), configuration, or code.
func fileKind(rel string) kind {
	lower := strings.ToLower(rel)
	for _, seg := range strings.Split(path.Dir(lower), "/") {
		switch seg {
		case "examples", "example", "samples", "sample", "_examples", "demo", "demos":
			return kindExample
		case "docs", "doc", "documentation":
			return kindDoc
		}
	}
	base := path.Base(lower)
	switch strings.TrimSuffix(base, path.Ext(base)) {
	case "license", "licence", "copying", "authors", "contributors", "notice", "changelog", "patents":
		return kindDoc
	}
	l := Language(rel)
	switch {
	case docLanguages[l]:
		return kindDoc
	case configLanguages[l]:
		return kindConfig
	}
	return kindCode
}
