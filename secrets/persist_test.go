package secrets

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCleanSetRoundTrip: texts a scan found clean persist and load into a
// fresh scanner's cache; a text with a secret is never persisted as clean,
// so it is scanned (and redacted) again.
func TestCleanSetRoundTrip(t *testing.T) {
	det := mustDefault(t)
	path := filepath.Join(t.TempDir(), "clean.bin")
	clean := "package a\n\nfunc F() int { return 1 }\n// unique " + t.Name() + "\n"
	dirty := "token = \"ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX\"\n// " + t.Name() + "\n"
	a := &Scanner{det: det.det, cache: map[[32]byte][]finding{}}
	if _, reds := a.Redact("a.go", clean); len(reds) != 0 {
		t.Fatalf("clean text redacted: %v", reds)
	}
	if _, reds := a.Redact("b.py", dirty); len(reds) == 0 {
		t.Fatal("the token was not found")
	}
	if err := a.saveCleanFile(path); err != nil {
		t.Fatal(err)
	}

	b := &Scanner{det: det.det, cache: map[[32]byte][]finding{}}
	if err := b.loadCleanFile(path); err != nil {
		t.Fatal(err)
	}
	if fs, ok := b.cache[sha256.Sum256([]byte(clean))]; !ok || len(fs) != 0 {
		t.Errorf("the clean text is not known clean after loading (ok=%v, %d findings)", ok, len(fs))
	}
	if _, ok := b.cache[sha256.Sum256([]byte(dirty))]; ok {
		t.Error("a text with a secret was persisted")
	}
	out, reds := b.Redact("b.py", dirty)
	if len(reds) == 0 || strings.Contains(out, "ghp_") {
		t.Errorf("the loaded scanner did not redact the secret: %q", out)
	}
	// Nothing new: no write.
	st, _ := os.Stat(path)
	if err := b.saveCleanFile(path); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(path); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("SaveClean rewrote an unchanged set")
	}
}

// TestCleanSetRejected: a set that does not verify is an error and loads
// nothing; a set written for other rules loads nothing without an error;
// a missing file is no error.
func TestCleanSetRejected(t *testing.T) {
	det := mustDefault(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bin")
	a := &Scanner{det: det.det, cache: map[[32]byte][]finding{}}
	a.Redact("a.go", "package a // "+t.Name()+"\n")
	if err := a.saveCleanFile(good); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), b...)
	flipped[len(cleanMagic)+3] ^= 1
	otherRules := &Scanner{det: det.det, cache: map[[32]byte][]finding{}}
	otherRules.keyOnce.Do(func() { otherRules.key = "other rules" })
	otherRules.cache[sha256.Sum256([]byte("x"))] = nil
	other := filepath.Join(dir, "other.bin")
	if err := otherRules.saveCleanFile(other); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		data    []byte // written to path when not nil
		wantErr error
	}{
		{"missing", filepath.Join(dir, "none.bin"), nil, nil},
		{"flipped byte", filepath.Join(dir, "flipped.bin"), flipped, ErrCleanSet},
		{"truncated", filepath.Join(dir, "short.bin"), b[:len(b)-5], ErrCleanSet},
		{"garbage", filepath.Join(dir, "garbage.bin"), []byte("not a clean set at all, but long enough to have a trailer"), ErrCleanSet},
		{"other rules", other, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.data != nil {
				if err := os.WriteFile(tt.path, tt.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s := &Scanner{det: det.det, cache: map[[32]byte][]finding{}}
			err := s.loadCleanFile(tt.path)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("LoadClean: %v, want %v", err, tt.wantErr)
			}
			if len(s.cache) != 0 {
				t.Errorf("%d entries loaded", len(s.cache))
			}
		})
	}
}

func mustDefault(t *testing.T) *Scanner {
	t.Helper()
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// FuzzLoadClean: any bytes load without panicking; what loads verifies.
func FuzzLoadClean(f *testing.F) {
	f.Add([]byte(cleanMagic))
	f.Add([]byte("garbage"))
	det, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "c.bin")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s := &Scanner{det: det.det, cache: map[[32]byte][]finding{}}
		if err := s.loadCleanFile(p); err == nil && len(s.cache) > 0 && len(data) < len(cleanMagic)+32 {
			t.Fatalf("loaded %d entries from %d bytes", len(s.cache), len(data))
		}
	})
}

// TestCleanSetSparesRules: a scanner whose texts are all in the loaded
// clean set never compiles the rules; the first unknown text does, and is
// scanned.
func TestCleanSetSparesRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clean.bin")
	clean := "package a\n\nfunc G() int { return 2 }\n// unique " + t.Name() + "\n"
	a := &Scanner{cache: map[[32]byte][]finding{}}
	a.Redact("a.go", clean)
	if err := a.saveCleanFile(path); err != nil {
		t.Fatal(err)
	}
	b := &Scanner{cache: map[[32]byte][]finding{}}
	if err := b.loadCleanFile(path); err != nil {
		t.Fatal(err)
	}
	if _, reds := b.Redact("a.go", clean); len(reds) != 0 {
		t.Fatalf("clean text redacted: %v", reds)
	}
	if b.det != nil {
		t.Error("the rules were compiled for a text known clean")
	}
	dirty := "token = \"ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX\"\n"
	if out, reds := b.Redact("b.py", dirty); len(reds) == 0 || strings.Contains(out, "ghp_") {
		t.Errorf("an unknown text was not scanned: %q", out)
	}
}

// TestRulesKeyNamesModule: the clean set's key is stable and names the
// module the rules were generated from, so other rules are another key.
func TestRulesKeyNamesModule(t *testing.T) {
	a, b := &Scanner{}, &Scanner{}
	if a.rulesKey() != b.rulesKey() || len(a.rulesKey()) != 64 {
		t.Errorf("keys %q and %q", a.rulesKey(), b.rulesKey())
	}
	if !strings.HasPrefix(rulesModule, "github.com/zricethezav/gitleaks/v8@v") {
		t.Errorf("rulesModule = %q, want the gitleaks module at a version", rulesModule)
	}
}

// saveCleanFile writes s's clean set to path when it learned something,
// as the workspace store does.
func (s *Scanner) saveCleanFile(path string) error {
	b, ok := s.AppendClean(nil)
	if !ok {
		return nil
	}
	return os.WriteFile(path, b, 0o600)
}

// loadCleanFile loads the clean set at path into s, as the workspace store
// does: a missing file loads nothing.
func (s *Scanner) loadCleanFile(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.DecodeClean(b)
}

// TestCacheKeepsRecentTexts: past the bound the cache drops the texts
// not seen for a generation, not every text: the latest maxCached stay,
// a text found in the older generation moves to the newer, the clean set
// saved holds both and loads back whole, and the rules are never compiled
// for a text the cache holds.
func TestCacheKeepsRecentTexts(t *testing.T) {
	s := &Scanner{cache: map[[32]byte][]finding{}}
	text := func(i int) string { return fmt.Sprintf("package p // text %d\n", i) }
	key := func(i int) [32]byte { return sha256.Sum256([]byte(text(i))) }
	const n = 3*maxCached + 100
	for i := range n {
		s.mu.Lock()
		s.keepLocked(key(i), nil)
		s.mu.Unlock()
	}
	if len(s.cache) > maxCached || len(s.old) > maxCached {
		t.Fatalf("generations of %d and %d texts, bound %d", len(s.cache), len(s.old), maxCached)
	}
	// The oldest of the latest texts is in the older generation, and
	// moves to the newer when read.
	old := n - maxCached
	if _, ok := s.old[key(old)]; !ok {
		t.Fatalf("text %d not in the older generation", old)
	}
	s.find(text(old))
	if _, ok := s.cache[key(old)]; !ok {
		t.Errorf("text %d read but not in the newer generation", old)
	}
	if _, ok := s.old[key(old)]; ok {
		t.Errorf("text %d still in the older generation", old)
	}
	for i := n - maxCached; i < n; i++ {
		if _, reds := s.Redact("p.go", text(i)); len(reds) != 0 {
			t.Fatalf("text %d: %v", i, reds)
		}
	}
	if s.det != nil {
		t.Fatal("the rules were compiled for a text seen among the latest")
	}
	for k := range s.cache {
		if _, ok := s.old[k]; ok {
			t.Fatal("a text in both generations")
		}
	}
	path := filepath.Join(t.TempDir(), "clean.bin")
	if err := s.saveCleanFile(path); err != nil {
		t.Fatal(err)
	}
	b := &Scanner{cache: map[[32]byte][]finding{}}
	if err := b.loadCleanFile(path); err != nil {
		t.Fatal(err)
	}
	if got, want := len(b.cache)+len(b.old), len(s.cache)+len(s.old); got != want {
		t.Errorf("loaded %d clean texts, saved %d", got, want)
	}
	if b.det != nil || s.det != nil {
		t.Error("the rules were compiled")
	}
}
