package artifacts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
)

func open(t *testing.T, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t *testing.T, s *Store, session, content string) Ref {
	t.Helper()
	ref, _, err := s.Put(t.Context(), session, []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestPutGetVerify(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	ctx := t.Context()
	content := "line 1\nline 2\nline 3"
	ref, status, err := s.Put(ctx, "s1", []byte(content))
	if err != nil || status != StatusCreated {
		t.Fatalf("put: %v %s", err, status)
	}
	if ref.Hash != Hash([]byte(content)) || ref.Bytes != len(content) || ref.Lines != 3 {
		t.Errorf("ref = %+v", ref)
	}
	if _, status, _ := s.Put(ctx, "s1", []byte(content)); status != StatusExists {
		t.Errorf("second put: %s, want %s", status, StatusExists)
	}
	got, gref, err := s.Get(ctx, "s1", ref.Hash[:MinPrefix])
	if err != nil || string(got) != content || gref != ref {
		t.Fatalf("get by prefix: %q %+v %v", got, gref, err)
	}
	if v, err := s.Verify(ctx, "s1", ref.Hash); err != nil || v != ref {
		t.Errorf("verify: %+v %v", v, err)
	}
	// The store's folder carries a .gitignore and no temporary files.
	if b, err := os.ReadFile(filepath.Join(s.Dir(), ".gitignore")); err != nil || string(b) != "*\n" {
		t.Errorf(".gitignore: %q %v", b, err)
	}
	matches, _ := filepath.Glob(filepath.Join(s.Dir(), "*", tempPrefix+"*"))
	if len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	ctx := t.Context()
	a := put(t, s, "session-a", "the same build output\nFAIL: TestX\n")
	if _, _, err := s.Get(ctx, "session-b", a.Hash); !errors.Is(err, ctxd.ErrNotFound) {
		t.Fatalf("session-b read session-a's artifact: %v", err)
	}
	if _, err := s.Verify(ctx, "session-b", a.Hash); !errors.Is(err, ctxd.ErrNotFound) {
		t.Fatalf("session-b verified session-a's artifact: %v", err)
	}
	// Ids that differ only in case are different sessions.
	if _, err := s.Verify(ctx, "SESSION-A", a.Hash); !errors.Is(err, ctxd.ErrNotFound) {
		t.Fatalf("SESSION-A sees session-a's artifact: %v", err)
	}
	b := put(t, s, "session-b", "the same build output\nFAIL: TestX\n")
	if a.Hash != b.Hash {
		t.Fatal("same content, different hashes")
	}
	// Each session has its own copy: corrupting one leaves the other.
	pa := s.path("session-a", a.Hash)
	if err := os.WriteFile(pa, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, "session-a", a.Hash); !errors.Is(err, ErrCorrupt) {
		t.Errorf("session-a: %v, want ErrCorrupt", err)
	}
	if got, _, err := s.Get(ctx, "session-b", b.Hash); err != nil || !strings.Contains(string(got), "FAIL: TestX") {
		t.Errorf("session-b: %q %v", got, err)
	}
}

func TestCorruptionIsDetected(t *testing.T) {
	tests := []struct {
		name   string
		damage func(path string) error
		want   error
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 5) }, ErrCorrupt},
		{"altered same size", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[0] ^= 0x20
			return os.WriteFile(p, b, 0o600)
		}, ErrCorrupt},
		{"emptied", func(p string) error { return os.WriteFile(p, nil, 0o600) }, ErrCorrupt},
		{"removed", os.Remove, ctxd.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, t.TempDir(), Options{})
			ctx := t.Context()
			content := strings.Repeat("panic: runtime error: index out of range\n", 20)
			ref := put(t, s, "s", content)
			if _, err := s.Verify(ctx, "s", ref.Hash); err != nil {
				t.Fatal(err)
			}
			p := s.path("s", ref.Hash)
			if err := tt.damage(p); err != nil {
				t.Fatal(err)
			}
			// The damage changes the modification time; make sure the
			// verified cache cannot hide it even when it does not.
			past := time.Now().Add(-time.Hour)
			_ = os.Chtimes(p, past, past)
			if _, err := s.Verify(ctx, "s", ref.Hash); !errors.Is(err, tt.want) {
				t.Errorf("verify: %v, want %v", err, tt.want)
			}
			if _, _, err := s.Get(ctx, "s", ref.Hash); !errors.Is(err, tt.want) {
				t.Errorf("get: %v, want %v", err, tt.want)
			}
			if _, err := s.Lines(ctx, "s", ref.Hash, 1, 2); !errors.Is(err, tt.want) {
				t.Errorf("lines: %v, want %v", err, tt.want)
			}
			// Storing the original again repairs it.
			_, status, err := s.Put(ctx, "s", []byte(content))
			want := StatusRepaired
			if tt.want == ctxd.ErrNotFound {
				want = StatusCreated
			}
			if err != nil || status != want {
				t.Errorf("put after damage: %s %v, want %s", status, err, want)
			}
			if got, _, err := s.Get(ctx, "s", ref.Hash); err != nil || string(got) != content {
				t.Errorf("after repair: %v", err)
			}
		})
	}
}

func TestRestartKeepsArtifacts(t *testing.T) {
	dir := t.TempDir()
	first := open(t, dir, Options{})
	ref := put(t, first, "s", "one\ntwo\nthree\n")
	second := open(t, dir, Options{}) // a new process over the same folder
	l, err := second.Lines(t.Context(), "s", ref.Hash, 2, 3)
	if err != nil || l.Text != "two\nthree\n" || l.TotalLines != 3 {
		t.Fatalf("lines after restart: %+v %v", l, err)
	}
}

func TestSliceLines(t *testing.T) {
	content := []byte("a\nbb\nccc\ndddd")
	tests := []struct {
		name       string
		start, end int
		want       string
		first      int
		last       int
		err        bool
	}{
		{"all", 0, 0, "a\nbb\nccc\ndddd", 1, 4, false},
		{"first", 1, 1, "a\n", 1, 1, false},
		{"middle", 2, 3, "bb\nccc\n", 2, 3, false},
		{"last without newline", 4, 4, "dddd", 4, 4, false},
		{"end clamped", 3, 99, "ccc\ndddd", 3, 4, false},
		{"open end", 2, 0, "bb\nccc\ndddd", 2, 4, false},
		{"start zero", 0, 2, "", 0, 0, true},
		{"past the end", 5, 6, "", 0, 0, true},
		{"reversed", 3, 2, "", 0, 0, true},
		{"negative", -1, 2, "", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, first, last, err := SliceLines(content, tt.start, tt.end)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if err != nil {
				if !errors.Is(err, ctxd.ErrInvalidParams) {
					t.Errorf("error %v does not wrap ErrInvalidParams", err)
				}
				return
			}
			if string(got) != tt.want || first != tt.first || last != tt.last {
				t.Errorf("got %q %d-%d, want %q %d-%d", got, first, last, tt.want, tt.first, tt.last)
			}
		})
	}
	if got, first, last, err := SliceLines(nil, 0, 0); err != nil || len(got) != 0 || first != 0 || last != 0 {
		t.Errorf("empty content: %q %d %d %v", got, first, last, err)
	}
}

func TestCountLines(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2, "a\n\nb\n": 3} {
		if got := CountLines([]byte(in)); got != want {
			t.Errorf("CountLines(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	ctx := t.Context()
	ref := put(t, s, "s", "content")
	// A second file sharing the first 12 digits makes that prefix
	// ambiguous (a real collision is beyond reach; the name is enough).
	twin := ref.Hash[:MinPrefix] + strings.Repeat("0", 64-MinPrefix)
	if twin == ref.Hash {
		twin = ref.Hash[:MinPrefix] + strings.Repeat("1", 64-MinPrefix)
	}
	if err := os.WriteFile(s.path("s", twin), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		prefix string
		want   string
		err    error
	}{
		{"full", ref.Hash, ref.Hash, nil},
		{"long prefix", ref.Hash[:20], ref.Hash, nil},
		{"with sha256: and upper case", "sha256:" + strings.ToUpper(ref.Hash[:16]), ref.Hash, nil},
		{"ambiguous", ref.Hash[:MinPrefix], "", ctxd.ErrInvalidParams},
		{"short", ref.Hash[:8], "", ctxd.ErrInvalidParams},
		{"not hex", "../../etc/passwd0000", "", ctxd.ErrInvalidParams},
		{"unknown", "0123456789abcdef", "", ctxd.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(ctx, "s", tt.prefix)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q %v, want %q", got, err, tt.want)
			}
		})
	}
}

func TestInvalidSession(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	for _, id := range []string{"", "../x", ".hidden", "a/b", strings.Repeat("x", 129)} {
		if _, _, err := s.Put(t.Context(), id, []byte("x")); !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Errorf("put with session %q: %v", id, err)
		}
		if _, _, err := s.Get(t.Context(), id, strings.Repeat("a", 64)); !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Errorf("get with session %q: %v", id, err)
		}
	}
}

func TestEviction(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := open(t, t.TempDir(), Options{MaxBytes: 1000, Protect: time.Minute, Now: clock})
	ctx := t.Context()
	var refs []Ref
	for i := range 4 {
		ref := put(t, s, fmt.Sprintf("s%d", i%2), strings.Repeat(fmt.Sprint(i), 200))
		// Age the artifacts: the first is the least recently used.
		age := now.Add(-time.Duration(10-i) * time.Hour)
		if err := os.Chtimes(s.path(fmt.Sprintf("s%d", i%2), ref.Hash), age, age); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	// Using the first artifact makes it recent; the second is now oldest.
	if _, _, err := s.Get(ctx, "s0", refs[0].Hash); err != nil {
		t.Fatal(err)
	}
	// 1100 bytes overflow the cap: eviction goes down to 900, oldest first,
	// never touching what was used within Protect.
	put(t, s, "s0", strings.Repeat("x", 300))
	u, err := s.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u.Bytes > 900 {
		t.Errorf("usage %d bytes after eviction, want <= 900", u.Bytes)
	}
	if _, err := s.Verify(ctx, "s1", refs[1].Hash); !errors.Is(err, ctxd.ErrNotFound) {
		t.Errorf("least recently used artifact kept: %v", err)
	}
	if _, err := s.Verify(ctx, "s0", refs[0].Hash); err != nil {
		t.Errorf("recently used artifact evicted: %v", err)
	}
}

func TestEvictionSparesRecentUse(t *testing.T) {
	s := open(t, t.TempDir(), Options{MaxBytes: 100})
	for i := range 3 {
		put(t, s, "s", strings.Repeat(fmt.Sprint(i), 80))
	}
	u, err := s.Usage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if u.Files != 3 {
		t.Errorf("%d files left, want all 3 (each in use within Protect)", u.Files)
	}
}

func TestConcurrentPuts(t *testing.T) {
	dir := t.TempDir()
	stores := []*Store{open(t, dir, Options{}), open(t, dir, Options{})}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			s := stores[g%2]
			for i := range 20 {
				content := bytes.Repeat([]byte(fmt.Sprint(i)), 1000)
				if _, _, err := s.Put(context.Background(), "shared", content); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	u, err := stores[0].Usage(t.Context())
	if err != nil || u.Files != 20 {
		t.Errorf("usage %+v %v, want 20 files", u, err)
	}
	for i := range 20 {
		content := bytes.Repeat([]byte(fmt.Sprint(i)), 1000)
		if got, _, err := stores[1].Get(t.Context(), "shared", Hash(content)); err != nil || !bytes.Equal(got, content) {
			t.Errorf("artifact %d: %v", i, err)
		}
	}
}

func FuzzSliceLines(f *testing.F) {
	f.Add([]byte("a\nb\nc"), 1, 2)
	f.Add([]byte(""), 0, 0)
	f.Add([]byte("\n\n\n"), 2, 9)
	f.Fuzz(func(t *testing.T, content []byte, start, end int) {
		got, first, last, err := SliceLines(content, start, end)
		if err != nil {
			return
		}
		if !bytes.Contains(content, got) {
			t.Fatalf("slice %q not in content", got)
		}
		if n := CountLines(got); len(got) > 0 && n != last-first+1 {
			t.Fatalf("returned %d lines for range %d-%d", n, first, last)
		}
	})
}

func FuzzResolve(f *testing.F) {
	s, err := Open(f.TempDir(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	ref, _, err := s.Put(context.Background(), "s", []byte("x"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add("s", ref.Hash[:12])
	f.Add("../s", "../../../../etc/passwd")
	f.Fuzz(func(t *testing.T, session, prefix string) {
		full, err := s.Resolve(context.Background(), session, prefix)
		if err != nil {
			return
		}
		if !validHash(full) {
			t.Fatalf("resolved to %q", full)
		}
	})
}
