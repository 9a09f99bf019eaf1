package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/secrets"
)

// TestContentSums: a request carries each gathered file's hash (its
// chunk's Hash) to the stages that key caches by it, for that content
// only: a content redacted, or a view of it (the same bytes, shorter),
// has no sum and is hashed as before; the redactions are those of a scan
// without sums.
func TestContentSums(t *testing.T) {
	file := func(rel, text string) ctxd.Chunk {
		sum := sha256.Sum256([]byte(text))
		return ctxd.Chunk{Source: rel, ChunkType: ctxd.ChunkFile, Hash: hex.EncodeToString(sum[:]), Content: text}
	}
	gathered := func() []ctxd.Chunk {
		return []ctxd.Chunk{
			file("a.go", "package a\n\n// A is clean.\nfunc A() int { return 1 }\n"),
			file("s.go", "package a\n\nconst token = \"ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc\"\n"),
			{Source: "structure", ChunkType: ctxd.ChunkStructure, Content: "a.go\ns.go\n"},
		}
	}
	chunks := gathered()
	sums := sumsOf(chunks)
	for i := range chunks[:2] {
		c := &chunks[i]
		if cs := sums.of(c); cs == nil || cs.sum != sha256.Sum256([]byte(c.Content)) {
			t.Errorf("%s: sum %v, want its content's", c.Source, cs)
		}
	}
	if cs := sums.of(&chunks[2]); cs != nil {
		t.Errorf("structure chunk: sum %v, want none", cs)
	}
	sc, err := secrets.Default()
	if err != nil {
		t.Fatal(err)
	}
	reds, _, err := sanitizeChunks(sc, chunks, sums)
	if err != nil {
		t.Fatal(err)
	}
	plain := gathered()
	want, _, err := sanitizeChunks(sc, plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reds) != 1 || len(want) != 1 || reds[0] != want[0] || chunks[1].Content != plain[1].Content {
		t.Fatalf("redactions %v (content %q), want %v (%q)", reds, chunks[1].Content, want, plain[1].Content)
	}
	if cs := sums.of(&chunks[1]); cs != nil {
		t.Errorf("redacted s.go: sum %v, want none (its content changed)", cs)
	}
	if sums.of(&chunks[0]) == nil {
		t.Error("a.go: no sum after a scan that left it as it was")
	}
	view := chunks[0]
	view.Content = view.Content[:len(view.Content)-10]
	if cs := sums.of(&view); cs != nil {
		t.Errorf("a view of a.go (its first bytes): sum %v, want none", cs)
	}
}
