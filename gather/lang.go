package gather

import (
	"path"
	"strings"

	"github.com/ctxd/ctxd/lang"
)

// Language returns the language of a file from its name ("go", "python",
// "typescript", ...), or "" when unknown: [lang.Of], the table treesitter
// reads too.
func Language(p string) string { return lang.Of(p) }

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
	for seg := range strings.SplitSeq(path.Dir(lower), "/") {
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
