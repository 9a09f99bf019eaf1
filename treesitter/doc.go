// Package treesitter shows less of a source file without losing its
// structure: it renders a file at graded levels (full, bodies, signatures,
// outline), each no larger than the one before, and the bodies and
// signatures views still parse. The compressor calls [Views] and includes
// the largest level that fits the space left; each [View] lists the
// original line ranges it elided so an editor can open them.
//
// The same parse yields [Symbols]: definitions with their kind, lines,
// one-line signature, visibility and doc, and the file's imports, for
// ranking and for ctx/outline.
//
// Fourteen languages are parsed with tree-sitter grammars (see [Languages]
// and [Detect]). Everything else, a file with syntax errors, or one over
// [MaxSize], returns an error wrapping [ErrUnsupported] and the caller
// falls back to a head-and-tail cut. Parses are pooled per language,
// bounded in time ([TimeoutError]) and cached by content hash; a [Store]
// passed in [Options] keeps the analyses and the views' parse checks
// across processes. Built with
// -tags notreesitter or CGO_ENABLED=0, a line-based fallback keeps the API
// with the full and outline levels only.
//
// Design, placeholders per language and limits: docs/truncation.md.
package treesitter
