package server

import "github.com/ctxd/ctxd/engine"

// ctx/outline returns a file's symbols and imports from one tree-sitter
// parse, and its view at a truncation level when one is asked for
// (docs/truncation.md). It reads and changes no connection state and runs
// concurrently.
func init() {
	register(method{name: "ctx/outline", async: true, handle: engineMethod((*engine.Engine).Outline)})
}
