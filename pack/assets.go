package pack

import (
	"path"
	"strings"

	"github.com/ctxd/ctxd/lang"
)

// Assets: files a whole-repository pack leaves out by default because
// they cost many tokens and say little about the code: lockfiles (any
// size), minified bundles and source maps (any size), and data or image
// formats kept as text (SVG, JSON, CSV, ...) over AssetMinBytes, and any
// minified text (tree.Minified: 16 KiB or more with very long lines).
// Options.IncludeAssets packs them; a file an Include glob names is packed
// whatever it is. The result names every file left out (Result.Excluded).

// AssetMinBytes is the size from which a data file counts as an asset.
const AssetMinBytes = 32 << 10

// Reasons a file was left out as an asset.
const (
	ReasonLockfile = "lockfile"
	ReasonMinified = "minified or source map"
	ReasonData     = "large data file"
)

var lockfiles = map[string]bool{
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"bun.lock": true, "deno.lock": true, "composer.lock": true, "Gemfile.lock": true, "Cargo.lock": true,
	"poetry.lock": true, "Pipfile.lock": true, "pdm.lock": true, "uv.lock": true, "go.sum": true,
	"go.work.sum": true, "mix.lock": true, "pubspec.lock": true, "Podfile.lock": true, "flake.lock": true,
	"packages.lock.json": true, "gradle.lockfile": true,
}

var dataExts = map[string]bool{
	".svg": true, ".json": true, ".jsonl": true, ".ndjson": true, ".geojson": true, ".csv": true,
	".tsv": true, ".xml": true, ".txt": true, ".log": true, ".dat": true,
	".pbtxt": true, ".ipynb": true, ".har": true, ".snap": true,
}

// assetReason returns why a file is an asset, or "": by its name, or by
// its text when it is minified (tree.Minified: long lines).
func assetReason(rel string, text []byte) string {
	if why := assetByName(rel, len(text)); why != "" {
		return why
	}
	if lang.Minified(text) {
		return ReasonMinified
	}
	return ""
}

// assetByName returns why a file of size bytes is an asset by its name,
// or "".
func assetByName(rel string, size int) string {
	base := path.Base(rel)
	lower := strings.ToLower(base)
	switch {
	case lockfiles[base]:
		return ReasonLockfile
	case strings.HasSuffix(lower, ".min.js"), strings.HasSuffix(lower, ".min.css"), strings.HasSuffix(lower, ".min.mjs"),
		strings.HasSuffix(lower, ".map"):
		return ReasonMinified
	case size >= AssetMinBytes && dataExts[path.Ext(lower)]:
		return ReasonData
	}
	return ""
}
