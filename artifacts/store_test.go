package artifacts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
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
	// The store's folder carries a .gitignore, and the session one pack.
	if b, err := os.ReadFile(filepath.Join(s.Dir(), ".gitignore")); err != nil || string(b) != "*\n" {
		t.Errorf(".gitignore: %q %v", b, err)
	}
	matches, _ := filepath.Glob(filepath.Join(s.Dir(), "*", "*"))
	if len(matches) != 1 || filepath.Base(matches[0]) != PackName {
		t.Errorf("files in the store: %v, want one pack", matches)
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
	damageRecord(t, s, "session-a", a.Hash, func(b []byte, at int) []byte {
		b[at+RecordHeaderSize] ^= 0x20
		return b
	})
	if _, _, err := s.Get(ctx, "session-a", a.Hash); !errors.Is(err, ErrCorrupt) {
		t.Errorf("session-a: %v, want ErrCorrupt", err)
	}
	if got, _, err := s.Get(ctx, "session-b", b.Hash); err != nil || !strings.Contains(string(got), "FAIL: TestX") {
		t.Errorf("session-b: %q %v", got, err)
	}
}

// damageRecord rewrites the session's pack with damage applied at the
// start of hash's record (the offset of its header).
func damageRecord(t *testing.T, s *Store, session, hash string, damage func(b []byte, at int) []byte) {
	t.Helper()
	p := PackPath(s.Dir(), session)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(hash)
	i := bytes.Index(b, raw)
	if i < 4 {
		t.Fatalf("record of %s not found in %s", hash[:MinPrefix], p)
	}
	if err := os.WriteFile(p, damage(b, i-4), 0o600); err != nil {
		t.Fatal(err)
	}
	// The damage changes the modification time; make sure the verified
	// cache cannot hide it even when it does not.
	past := time.Now().Add(-time.Hour)
	_ = os.Chtimes(p, past, past)
}

// putLegacy writes an artifact as the per-file layout before packs did.
func putLegacy(t *testing.T, s *Store, session, content string) string {
	t.Helper()
	h := Hash([]byte(content))
	p := s.path(session, h)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCorruptionIsDetected(t *testing.T) {
	content := strings.Repeat("panic: runtime error: index out of range\n", 20)
	tests := []struct {
		name   string
		legacy bool
		damage func(t *testing.T, s *Store, hash string)
		want   error
		status string // of a Put of the original after the damage
	}{
		{"content altered", false, func(t *testing.T, s *Store, h string) {
			damageRecord(t, s, "s", h, func(b []byte, at int) []byte { b[at+RecordHeaderSize+3] ^= 0x20; return b })
		}, ErrCorrupt, StatusRepaired},
		{"content truncated", false, func(t *testing.T, s *Store, h string) {
			damageRecord(t, s, "s", h, func(b []byte, at int) []byte { return b[:at+RecordHeaderSize+5] })
		}, ctxd.ErrNotFound, StatusCreated},
		{"header altered", false, func(t *testing.T, s *Store, h string) {
			damageRecord(t, s, "s", h, func(b []byte, at int) []byte { b[at+40] ^= 1; return b })
		}, ctxd.ErrNotFound, StatusCreated},
		{"pack emptied", false, func(t *testing.T, s *Store, h string) {
			damageRecord(t, s, "s", h, func([]byte, int) []byte { return nil })
		}, ctxd.ErrNotFound, StatusCreated},
		{"pack removed", false, func(t *testing.T, s *Store, h string) {
			if err := os.Remove(PackPath(s.Dir(), "s")); err != nil {
				t.Fatal(err)
			}
		}, ctxd.ErrNotFound, StatusCreated},
		{"legacy truncated", true, func(t *testing.T, s *Store, h string) { _ = os.Truncate(s.path("s", h), 5) }, ErrCorrupt, StatusRepaired},
		{"legacy altered", true, func(t *testing.T, s *Store, h string) {
			p := s.path("s", h)
			b, _ := os.ReadFile(p)
			b[0] ^= 0x20
			_ = os.WriteFile(p, b, 0o600)
			past := time.Now().Add(-time.Hour)
			_ = os.Chtimes(p, past, past)
		}, ErrCorrupt, StatusRepaired},
		{"legacy emptied", true, func(t *testing.T, s *Store, h string) { _ = os.WriteFile(s.path("s", h), nil, 0o600) }, ErrCorrupt, StatusRepaired},
		{"legacy removed", true, func(t *testing.T, s *Store, h string) { _ = os.Remove(s.path("s", h)) }, ctxd.ErrNotFound, StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := open(t, t.TempDir(), Options{})
			ctx := t.Context()
			// Another artifact before and after: damage to one record
			// never costs its neighbours.
			before := put(t, s, "s", "before\n")
			var ref Ref
			if tt.legacy {
				putLegacy(t, s, "s", content)
				ref = Ref{Hash: Hash([]byte(content))}
			} else {
				ref = put(t, s, "s", content)
			}
			after := "after\n"
			if !strings.Contains(tt.name, "truncated") {
				put(t, s, "s", after)
			}
			if _, err := s.Verify(ctx, "s", ref.Hash); err != nil {
				t.Fatal(err)
			}
			tt.damage(t, s, ref.Hash)
			if _, err := s.Verify(ctx, "s", ref.Hash); !errors.Is(err, tt.want) {
				t.Errorf("verify: %v, want %v", err, tt.want)
			}
			if _, _, err := s.Get(ctx, "s", ref.Hash); !errors.Is(err, tt.want) {
				t.Errorf("get: %v, want %v", err, tt.want)
			}
			if _, err := s.Lines(ctx, "s", ref.Hash, 1, 2); !errors.Is(err, tt.want) {
				t.Errorf("lines: %v, want %v", err, tt.want)
			}
			if !strings.Contains(tt.name, "pack") {
				if got, _, err := s.Get(ctx, "s", before.Hash); err != nil || string(got) != "before\n" {
					t.Errorf("neighbour before the damage: %q %v", got, err)
				}
				if !strings.Contains(tt.name, "truncated") {
					if got, _, err := s.Get(ctx, "s", Hash([]byte(after))); err != nil || string(got) != after {
						t.Errorf("neighbour after the damage: %q %v", got, err)
					}
				}
			}
			// Storing the original again repairs it, in a new process too.
			_, status, err := open(t, s.Dir(), Options{}).Put(ctx, "s", []byte(content))
			if err != nil || status != tt.status {
				t.Errorf("put after damage: %s %v, want %s", status, err, tt.status)
			}
			if got, _, err := s.Get(ctx, "s", ref.Hash); err != nil || string(got) != content {
				t.Errorf("after repair: %v", err)
			}
		})
	}
}

func TestLegacyFilesStayReadable(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	ctx := t.Context()
	content := "written\nby an older ctxd\n"
	putLegacy(t, s, "s", content)
	h := Hash([]byte(content))
	if full, err := s.Resolve(ctx, "s", h[:MinPrefix]); err != nil || full != h {
		t.Fatalf("resolve: %q %v", full, err)
	}
	if ref, err := s.Verify(ctx, "s", h); err != nil || ref.Bytes != len(content) || ref.Lines != 2 {
		t.Fatalf("verify: %+v %v", ref, err)
	}
	if l, err := s.Lines(ctx, "s", h, 2, 2); err != nil || l.Text != "by an older ctxd\n" {
		t.Fatalf("lines: %+v %v", l, err)
	}
	if _, status, err := s.Put(ctx, "s", []byte(content)); err != nil || status != StatusExists {
		t.Fatalf("put of a legacy artifact: %s %v", status, err)
	}
	if _, err := os.Stat(PackPath(s.Dir(), "s")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an artifact already stored as a file was appended to the pack: %v", err)
	}
}

// TestTornTail: a process that dies mid-append leaves a partial record;
// it is never served, and the next append cuts it and lands on a record
// boundary.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	ctx := t.Context()
	first := put(t, s, "s", "first\n")
	p := PackPath(dir, "s")
	torn := encodeRecord([]byte("never acknowledged\n"))
	for _, cut := range []int{3, RecordHeaderSize - 1, RecordHeaderSize + 4} {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(torn[:cut])
		f.Close()
		fresh := open(t, dir, Options{})
		if _, err := fresh.Verify(ctx, "s", Hash([]byte("never acknowledged\n"))); !errors.Is(err, ctxd.ErrNotFound) {
			t.Errorf("cut %d: torn record served: %v", cut, err)
		}
		next := put(t, fresh, "s", fmt.Sprintf("next %d\n", cut))
		for _, h := range []string{first.Hash, next.Hash} {
			if _, _, err := open(t, dir, Options{}).Get(ctx, "s", h); err != nil {
				t.Errorf("cut %d: %v", cut, err)
			}
		}
	}
	b, _ := os.ReadFile(p)
	sc, err := scanPack(bytes.NewReader(b), 0, int64(len(b)))
	if err != nil || sc.damaged != 0 || sc.torn || len(sc.records) != 4 {
		t.Errorf("pack after torn tails: %d records, %d damaged bytes, torn %v, %v", len(sc.records), sc.damaged, sc.torn, err)
	}
}

func TestFlushSyncs(t *testing.T) {
	s := open(t, t.TempDir(), Options{Sync: true})
	put(t, s, "a", "one")
	put(t, s, "b", "two")
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, pk := range s.packs {
		if pk.dirty || pk.created {
			t.Errorf("%s still dirty after Flush", pk.path)
		}
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
		if got := byteview.CountLines([]byte(in)); got != want {
			t.Errorf("byteview.CountLines(%q) = %d, want %d", in, got, want)
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
	s := open(t, t.TempDir(), Options{MaxBytes: 1200, Protect: time.Minute, Now: clock})
	ctx := t.Context()
	var refs []Ref
	for i := range 4 {
		session := fmt.Sprintf("s%d", i)
		ref := put(t, s, session, strings.Repeat(fmt.Sprint(i), 200))
		// Age the packs: the first is the least recently used.
		age := now.Add(-time.Duration(10-i) * time.Hour)
		if err := os.Chtimes(PackPath(s.Dir(), session), age, age); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	// Using the first artifact makes its session recent; s1 is now oldest.
	if _, _, err := s.Get(ctx, "s0", refs[0].Hash); err != nil {
		t.Fatal(err)
	}
	// 4*248+348 bytes overflow the cap: eviction goes down to 1080,
	// oldest session first, never touching what was used within Protect.
	put(t, s, "s0", strings.Repeat("x", 300))
	u, err := s.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u.Bytes > 1080 {
		t.Errorf("usage %d bytes after eviction, want <= 1080", u.Bytes)
	}
	if _, err := s.Verify(ctx, "s1", refs[1].Hash); !errors.Is(err, ctxd.ErrNotFound) {
		t.Errorf("least recently used session kept: %v", err)
	}
	if _, err := s.Verify(ctx, "s0", refs[0].Hash); err != nil {
		t.Errorf("recently used artifact evicted: %v", err)
	}
	// The evicted session stores again.
	put(t, s, "s1", "again")
}

func TestEvictionSparesRecentUse(t *testing.T) {
	s := open(t, t.TempDir(), Options{MaxBytes: 100})
	for i := range 3 {
		put(t, s, "s", strings.Repeat(fmt.Sprint(i), 80))
	}
	putLegacy(t, s, "t", strings.Repeat("x", 80))
	u, err := s.Usage(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if u.Artifacts != 4 || u.Files != 2 {
		t.Errorf("%+v, want all 4 artifacts in 2 files (each in use within Protect)", u)
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
	if err != nil || u.Artifacts != 20 || u.Files != 1 {
		t.Errorf("usage %+v %v, want 20 artifacts in one pack", u, err)
	}
	b, _ := os.ReadFile(PackPath(dir, "shared"))
	if sc, err := scanPack(bytes.NewReader(b), 0, int64(len(b))); err != nil || sc.damaged != 0 || sc.torn || len(sc.records) != 20 {
		t.Errorf("pack after concurrent puts: %d records (want 20, each once), %d damaged bytes, torn %v, %v", len(sc.records), sc.damaged, sc.torn, err)
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
		if n := byteview.CountLines(got); len(got) > 0 && n != last-first+1 {
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

// encodeRecord returns content as one pack record.
func encodeRecord(content []byte) []byte {
	return append(headerOf(sha256.Sum256(content), int64(len(content))), content...)
}

// FuzzScanPack feeds arbitrary bytes to the record decoder, alone and
// between valid records: it never panics, every record it returns lies
// within the input, and valid records before damage are all found.
func FuzzScanPack(f *testing.F) {
	f.Add([]byte{}, []byte("x"))
	f.Add([]byte("cxa1"), []byte("hello\n"))
	f.Add(encodeRecord([]byte("inner"))[:30], []byte(""))
	f.Add(bytes.Repeat([]byte{0xff}, 60), []byte("tail"))
	f.Fuzz(func(t *testing.T, junk, content []byte) {
		good := encodeRecord(content)
		for _, b := range [][]byte{junk, append(append(slices.Clone(good), junk...), good...)} {
			sc, err := scanPack(bytes.NewReader(b), 0, int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			if sc.end > int64(len(b)) || sc.damaged > int64(len(b)) {
				t.Fatalf("end %d, damaged %d of %d bytes", sc.end, sc.damaged, len(b))
			}
			for _, r := range sc.records {
				if r.off < RecordHeaderSize || r.n < 0 || r.off+r.n > int64(len(b)) {
					t.Fatalf("record %+v outside %d bytes", r, len(b))
				}
			}
			if len(b) > len(junk) && (len(sc.records) == 0 || sc.records[0].hash != Hash(content) || sc.records[0].off != RecordHeaderSize) {
				t.Fatalf("the leading valid record was not found: %+v", sc.records)
			}
		}
	})
}
