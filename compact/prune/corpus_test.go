package prune

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestRequestCorpus checks the invariants of checkOutput on real request
// bodies: every *.json file under $CTXD_REQUEST_CORPUS (captured agent
// traffic, fixtures of public SDKs fetched for the purpose) is compressed
// with the model's own budget, half its size and its floor. Without the
// variable the test is skipped; corpus files are never committed.
//
//	CTXD_REQUEST_CORPUS=/path/to/requests go test -run TestRequestCorpus -v ./compact/prune
func TestRequestCorpus(t *testing.T) {
	dir := testutil.Env(t, "CTXD_REQUEST_CORPUS", "")
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".json" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range files {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, probe, err := Compress(t.Context(), body, Options{})
		if err != nil {
			t.Logf("%s: not a request: %v", path, err)
			continue
		}
		checked++
		for _, budget := range []int{0, max(1, probe.TokensBefore/2), max(1, probe.FloorTokens)} {
			opts := Options{Budget: budget}
			out, rep, err := Compress(t.Context(), body, opts)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			t.Run(filepath.Base(path), func(t *testing.T) { checkOutputDetect(t, body, out, rep, opts, false) })
		}
	}
	t.Logf("%d of %d files were requests", checked, len(files))
}
