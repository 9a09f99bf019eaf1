package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
)

// BenchmarkDeclLines: one request's declaration lines over a dozen large
// standard library files, their symbol-index entries in memory (a warm
// daemon's request; the first call reads the contents).
func BenchmarkDeclLines(b *testing.B) {
	files := stdlibChunks(b)
	for i := range files {
		files[i].Facts = ctxd.Facts{Language: lang.Of(files[i].Source)}
	}
	e := newEngine(b, b.TempDir())
	q := query.Parse("close idle keep-alive connections when the server shuts down and the default timeout expires")
	cs := make([]ctxd.Chunk, len(files))
	run := func() {
		copy(cs, files)
		e.declLines(b.Context(), q, cs, nil)
	}
	run()
	for b.Loop() {
		run()
	}
}

// stdlibChunks are a dozen large standard library files as gathered
// chunks, each with its content's hash (skipped without GOROOT's
// sources).
func stdlibChunks(b *testing.B) []ctxd.Chunk {
	src := filepath.Join(runtime.GOROOT(), "src")
	var files []ctxd.Chunk
	for _, rel := range []string{
		"net/http/server.go", "net/http/transport.go", "net/http/request.go", "net/http/client.go",
		"net/http/response.go", "net/http/fs.go", "net/http/header.go", "net/http/cookie.go",
		"net/url/url.go", "os/exec/exec.go", "encoding/json/decode.go", "crypto/tls/conn.go",
	} {
		text, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			b.Skip(err)
		}
		sum := sha256.Sum256(text)
		files = append(files, ctxd.Chunk{Source: rel, ChunkType: ctxd.ChunkFile, Content: string(text), Hash: hex.EncodeToString(sum[:])})
	}
	return files
}
