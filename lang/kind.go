package lang

import (
	"path"
	"strings"
)

// binaryExts are extensions of files that are never text; the walk skips
// them without reading (BinaryName).
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

// Kind is a coarse class of file that sets its base priority.
type Kind int

const (
	KindCode Kind = iota
	KindConfig
	KindDoc
	KindExample
)

var docLanguages = map[string]bool{"markdown": true, "rst": true, "text": true}

var configLanguages = map[string]bool{
	"json": true, "yaml": true, "toml": true, "xml": true, "ini": true, "go.mod": true,
	"make": true, "dockerfile": true, "cmake": true, "hcl": true, "just": true, "groovy": true,
}

// KindOf classifies a root-relative path: documentation (docs/, *.md,
// LICENSE, ...), examples (examples/, example/, samples/, testdata/,
// fixtures/), configuration, or code.
func KindOf(rel string) Kind {
	lower := strings.ToLower(rel)
	for seg := range strings.SplitSeq(path.Dir(lower), "/") {
		switch seg {
		case "examples", "example", "samples", "sample", "_examples", "demo", "demos":
			return KindExample
		case "docs", "doc", "documentation":
			return KindDoc
		}
	}
	base := path.Base(lower)
	switch strings.TrimSuffix(base, path.Ext(base)) {
	case "license", "licence", "copying", "authors", "contributors", "notice", "changelog", "patents":
		return KindDoc
	}
	l := Of(rel)
	switch {
	case docLanguages[l]:
		return KindDoc
	case configLanguages[l]:
		return KindConfig
	}
	return KindCode
}

// BinaryName reports a name whose extension is never text (an image, an
// archive, an object file...): the walk skips such a file without reading.
func BinaryName(name string) bool {
	return binaryExts[strings.ToLower(path.Ext(name))]
}
