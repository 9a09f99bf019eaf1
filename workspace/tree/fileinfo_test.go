package tree

import (
	"testing"
	"unsafe"

	"github.com/ctxd/ctxd/lang"
)

// TestFileInfoSmall: a fileInfo, one per file of the tree, fits the
// allocator's 128-byte size class, and its language index names every
// language Language returns.
func TestFileInfoSmall(t *testing.T) {
	if n := unsafe.Sizeof(File{}); n > 128 {
		t.Errorf("fileInfo takes %d bytes, over 128", n)
	}
	for _, m := range []map[string]string{lang.Extensions(), lang.Names()} {
		for _, l := range m {
			if id, ok := langIDs[l]; !ok || langNames[id] != l {
				t.Errorf("language %q: index %d (%v) names %q", l, id, ok, langNames[id])
			}
		}
	}
	for _, rel := range []string{"a.go", "b/c.py", "Makefile", "x.unknown-ext", "README"} {
		f := &File{langID: langIDs[lang.Of(rel)]}
		if f.Lang() != lang.Of(rel) {
			t.Errorf("%s: lang %q, want %q", rel, f.Lang(), lang.Of(rel))
		}
	}
}

// TestIndexDocSmall: an indexDoc, one per indexed file, fits the 96-byte
// size class.
func TestIndexDocSmall(t *testing.T) {
	if n := unsafe.Sizeof(indexDoc{}); n > 96 {
		t.Errorf("indexDoc takes %d bytes, over 96", n)
	}
}
