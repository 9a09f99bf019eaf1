package workspace

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/treesitter"
)

const goSource = "package a\n\n// Shutdown stops the server.\nfunc Shutdown() error { return nil }\n"

// TestStoreLifecycle: nothing is written before <state>/index/ exists;
// once it does, what one store learned (a symbol entry, a clean text) a
// second store reads without computing it again.
func TestStoreLifecycle(t *testing.T) {
	state := t.TempDir()
	s := Open(Options{StateDir: state})
	if _, err := s.Symbols().File(t.Context(), "a.go", []byte(goSource)); err != nil {
		t.Fatal(err)
	}
	// The tree-sitter store and the clean set learn too (the engine's
	// TestViewStoreNotWithoutIndex checked the views end to end, racing
	// the walk's own write of the index).
	if _, err := treesitter.SymbolsStored(t.Context(), "go", []byte(goSource), s.Views()); err != nil {
		t.Fatal(err)
	}
	if sc, err := s.Secrets(); err == nil {
		sc.Redact("c.go", "package c // "+t.Name()+" first "+state+"\n")
	}
	s.Save()
	s.Close()
	if _, err := os.Stat(filepath.Join(state, "index")); err == nil {
		t.Fatal("the store made <state>/index/ itself")
	}

	s = Open(Options{StateDir: state})
	if err := s.Create(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Symbols().File(t.Context(), "a.go", []byte(goSource)); err != nil {
		t.Fatal(err)
	}
	sc, err := s.Secrets()
	if err != nil {
		t.Fatal(err)
	}
	clean := "package b // " + t.Name() + " " + state + "\n" // unique per run: the scanner remembers clean contents process-wide
	sc.Redact("b.go", clean)
	s.Close()

	again := Open(Options{StateDir: state})
	defer again.Close()
	if _, err := again.Symbols().File(t.Context(), "a.go", []byte(goSource)); err != nil {
		t.Fatal(err)
	}
	if n := again.Symbols().Parses(); n != 0 {
		t.Errorf("a second store parsed %d files, want 0 (read from the record file)", n)
	}
	if _, err := os.Stat(filepath.Join(state, "index", cleanFile)); err != nil {
		t.Errorf("clean set not written: %v", err)
	}
}

// TestStoreUnusableFiles: a record file that cannot be opened leaves its
// facts in memory (said once, at debug level); a whole file that does not
// verify is said at warning level and rewritten; requests still work.
func TestStoreUnusableFiles(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(state, "index")
	// A directory where the symbols' keys file goes: it cannot be opened.
	if err := os.MkdirAll(filepath.Join(dir, SymbolsName+".keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, cleanFile), []byte("not a clean set, but long enough for its trailer......"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s := Open(Options{StateDir: state, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	for range 2 {
		if e, err := s.Symbols().File(t.Context(), "a.go", []byte(goSource)); err != nil || e == nil || len(e.Defs) != 1 {
			t.Fatalf("entry %+v, %v", e, err)
		}
	}
	if _, ok := s.RecordCounts()[SymbolsName]; ok {
		t.Error("an unusable record file is open")
	}
	if _, err := s.Secrets(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	out := logs.String()
	if n := strings.Count(out, "record file not used"); n != 1 {
		t.Errorf("said %d times that the record file is not used, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "level=WARN msg=\"secret scan cache ignored\"") {
		t.Errorf("corrupt clean set not reported:\n%s", out)
	}
}
