package server

import "github.com/ctxd/ctxd/engine"

// The structure methods, answered from the tree-sitter symbol index and
// views; they read and change no connection state and run concurrently.
//
// ctx/outline returns a file's symbols and imports from one tree-sitter
// parse, and its view at a truncation level when one is asked for
// (docs/truncation.md). ctx/findSymbol returns a symbol's definitions and
// the code lines that use it, as `ctxd symbol` and MCP's find_symbol do.
func init() {
	register(method{name: "ctx/outline", async: true, handle: engineMethod((*engine.Engine).Outline)})
	register(method{name: "ctx/findSymbol", async: true, handle: engineMethod((*engine.Engine).FindSymbol)})
}
