// This go.mod only marks editors/vscode as outside the ctxd module, so that
// `go list ./...`, `go vet ./...` and `go test ./...` never walk into
// node_modules (some npm packages ship .go files). The extension has no Go
// code; its tests are driven from editors/vscode_test.go.
module github.com/ctxd/ctxd/editors/vscode/nodeproject

go 1.26
