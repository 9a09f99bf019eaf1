package tree

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/disk"
)

// TestLineHistoriesImplausibleFile: a linehist.bin that is sealed for
// this root and HEAD but could not come from the log it stands for (a
// hunk of more lines than a log of maxLineLogBytes can hold: mapping it
// would take every one of them into memory) is not used: it is read
// again from git, as a corrupt file is.
func TestLineHistoriesImplausibleFile(t *testing.T) {
	root, _ := twoCommitPy(t)
	dir := filepath.Join(t.TempDir(), "state", "index")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	read := func(t *testing.T) *LineHistories {
		t.Helper()
		w, err := Open(root, Options{State: disk.New(dir)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		l, err := w.ReadLineHistories(t.Context())
		if err != nil || l == nil {
			t.Fatalf("%+v, %v", l, err)
		}
		return l
	}
	first := read(t)
	w, err := Open(root, Options{State: disk.New(dir)})
	if err != nil {
		t.Fatal(err)
	}
	key := w.git.gitCacheKey(first.Head, LineHistCommits)
	w.Close()
	path := filepath.Join(dir, lineHistFile)
	if _, err := index.ReadSealed(path, lineHistMagic, key, maxLineLogBytes); err != nil {
		t.Fatalf("the first read's file: %v", err)
	}
	huge := maxLineLogBytes/2 + 1
	body := []byte("\x01\ndiff --git \n+++ b/f.py\n@@ -1,0 +1," + itoa(huge) + " @@\n")
	if err := index.WriteSealed(path, lineHistMagic, key, body); err != nil {
		t.Fatal(err)
	}
	if again := read(t); !reflect.DeepEqual(again, first) {
		t.Errorf("read with an implausible file: f.py %+v, want %+v", again.Of("f.py"), first.Of("f.py"))
	}
	if got, err := index.ReadSealed(path, lineHistMagic, key, maxLineLogBytes); err != nil || bytes.Equal(got, body) {
		t.Errorf("the implausible file kept (%v)", err)
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
