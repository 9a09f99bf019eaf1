// Package editors holds no code: it is the home of the end-to-end tests
// of the editor plugins, which live beside it as non-Go projects.
// editors/vscode is a TypeScript VS Code extension (its own npm project,
// marked off from the Go module by editors/vscode/go.mod so that Go never
// walks its node_modules) and editors/nvim a Lua Neovim plugin. The tests
// build the real ctxd binary and drive each plugin against it with the
// editor's own tools: tsc, eslint, node's test runner and vsce for VS
// Code; headless nvim, busted and luacheck for Neovim.
package editors
