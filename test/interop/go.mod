// This go.mod only marks test/interop (an npm project) as outside the ctxd
// module, so that `go list ./...`, `go vet ./...` and `go test ./...` never
// walk into node_modules (some npm packages ship .go files). The scripts
// here are run by the Go tests of mcp/ and proxy/.
module github.com/ctxd/ctxd/test/interop/nodeproject

go 1.26
