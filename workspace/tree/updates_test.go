package tree

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestUpdatedAndContentHashes: Updated fires on an edit the watcher
// sees, and ContentHashes then differ for that file only; a new file adds
// a hash, a removed one drops it.
func TestUpdatedAndContentHashes(t *testing.T) {
	root, w, _ := followedRepo(t, 20)
	upd := w.Updated()
	before, err := w.ContentHashes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 21 {
		t.Fatalf("%d hashes, want 21", len(before))
	}
	writeFile(t, root, "pkg3/file3.go", "package pkg3\n\nfunc Func3() int { return 33 }\n")
	writeFile(t, root, "pkg3/new.go", "package pkg3\n\nfunc New() int { return 0 }\n")
	if err := os.Remove(filepath.Join(root, "pkg4", "file4.go")); err != nil {
		t.Fatal(err)
	}
	var after map[string]uint64
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-upd:
		case <-deadline:
			t.Fatal("no update within 10s")
		}
		upd = w.Updated()
		if after, err = w.ContentHashes(t.Context()); err != nil {
			t.Fatal(err)
		}
		if _, ok := after["pkg3/new.go"]; ok && after["pkg3/file3.go"] != before["pkg3/file3.go"] && len(after) == 21 {
			break
		}
	}
	var changed []string
	for rel, h := range after {
		if old, ok := before[rel]; !ok || old != h {
			changed = append(changed, rel)
		}
	}
	if len(changed) != 2 {
		t.Errorf("changed %v, want pkg3/file3.go and pkg3/new.go", changed)
	}
	if _, ok := after["pkg4/file4.go"]; ok {
		t.Error("a removed file kept its hash")
	}
	// Nothing changed: the same hashes, and no update pending.
	again, err := w.ContentHashes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(again, after) {
		t.Error("hashes changed without a change")
	}
}
