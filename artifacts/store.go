package artifacts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/internal/filelock"
	"github.com/ctxd/ctxd/internal/vsort"
)

// Subdir is the folder of a state directory that holds the artifacts
// (beside sessions/).
const Subdir = "artifacts"

// Dir returns the artifacts folder of a state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, Subdir) }

// Defaults of [Options].
const (
	// DefaultMaxBytes caps the store at 512 MiB.
	DefaultMaxBytes = 512 << 20
	// DefaultProtect keeps artifacts used in the last ten minutes from
	// eviction: a request being rewritten now may still refer to them.
	DefaultProtect = 10 * time.Minute
)

// MinPrefix is the shortest hash prefix (hex digits) a lookup accepts.
const MinPrefix = 12

// touchInterval is how stale an artifact's modification time may get
// before a use refreshes it (the LRU order is by modification time; a
// refresh per use would cost a syscall per reference per turn).
const touchInterval = time.Minute

// ErrCorrupt reports an artifact whose bytes do not hash to its name: it
// was truncated or altered after it was written.
var ErrCorrupt = errors.New("artifact does not verify against its sha256")

// Options configure a [Store].
type Options struct {
	// MaxBytes caps the bytes of all artifacts in the store; 0 means
	// [DefaultMaxBytes], a negative value no cap.
	MaxBytes int64
	// Protect keeps artifacts used more recently than this from eviction,
	// even over the cap; 0 means [DefaultProtect], a negative value none.
	Protect time.Duration
	// Sync makes [Store.Flush] fsync the packs appended since the last
	// flush. Without it records survive the process but a machine crash
	// may lose the last ones (a torn record is never served).
	Sync bool
	// Logger receives counts, sizes and hashes, never content; nil
	// discards.
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Ref describes a stored artifact.
type Ref struct {
	// Hash is the hex SHA-256 of the content.
	Hash  string `json:"sha256"`
	Bytes int    `json:"bytes"`
	// Lines is the content's line count (see [CountLines]).
	Lines int `json:"lines"`
}

// What [Store.Put] found.
const (
	// StatusCreated: the artifact was written.
	StatusCreated = "created"
	// StatusExists: a verified copy was already stored.
	StatusExists = "exists"
	// StatusRepaired: a stored copy did not verify and was replaced.
	StatusRepaired = "repaired"
)

// Store is a content-addressed artifact store rooted at one directory. It
// is safe for concurrent use, and several processes may share the
// directory.
type Store struct {
	dir  string
	opts Options
	log  *slog.Logger

	// mu guards total, dirs and verified.
	mu    sync.Mutex
	total int64 // bytes stored as last counted; -1 when not counted yet
	dirs  map[string]bool
	// verified records files read and found to match their name, by the
	// size and modification time they had then.
	verified map[string]stamp

	// packMu guards packs and every pack's index; it serializes this
	// process's pack reads and appends (other processes are kept out of
	// an append by a lock on the file).
	packMu sync.Mutex
	packs  map[string]*pack
}

type stamp struct {
	size  int64
	mtime time.Time
	lines int
}

// Open returns the store rooted at dir (usually [Dir] of a state
// directory). It creates nothing until the first [Store.Put].
func Open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, fmt.Errorf("open artifact store: no directory: %w", ctxd.ErrInvalidParams)
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Protect == 0 {
		opts.Protect = DefaultProtect
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open artifact store %s: %w", dir, err)
	}
	return &Store{dir: abs, opts: opts, log: log, total: -1, dirs: map[string]bool{}, verified: map[string]stamp{}, packs: map[string]*pack{}}, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// scopeName is the folder of a session's artifacts: a hash of its id, so
// that ids differing only in case get distinct folders on case-insensitive
// file systems, and no id can name another's folder.
func scopeName(session string) string {
	sum := sha256.Sum256([]byte("ctxd artifact scope\x00" + session))
	return hex.EncodeToString(sum[:16])
}

// Hash returns the hex SHA-256 of content: an artifact's name.
func Hash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// validHash checks a full hash (64 lowercase hex digits).
func validHash(h string) bool {
	return len(h) == 64 && ValidPrefix(h)
}

// ValidPrefix reports whether s is a hash or a prefix of one that
// [Store.Resolve] reads as it is: [MinPrefix] to 64 lowercase hex digits
// (the sha256 field of a content reference).
func ValidPrefix(s string) bool {
	return len(s) >= MinPrefix && len(s) <= 64 && isHex(s)
}

func isHex(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (s *Store) path(session, hash string) string {
	return filepath.Join(s.dir, scopeName(session), hash)
}

// Put stores content in the session's scope and returns its reference and
// what it found: [StatusCreated], [StatusExists] (a verified copy was
// there; its use is recorded for eviction) or [StatusRepaired] (a copy
// that did not verify was replaced). Storing may evict the least
// recently used artifacts of any session when the store is over its cap.
func (s *Store) Put(ctx context.Context, session string, content []byte) (Ref, string, error) {
	if err := ctx.Err(); err != nil {
		return Ref{}, "", err
	}
	src := source{sum: sha256.Sum256(content), n: len(content), lines: byteview.CountLines(content), write: func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	}}
	return s.put(ctx, session, src)
}

// PutWith is [Store.Put] of the bytes write writes, without holding them:
// write is called twice and must write the same bytes each time (once to
// hash them, once into the pack file; it should buffer small writes). A
// text assembled from many pieces (a ledger's evicted messages) is then
// never whole in memory (issue 28). Only the count of the second pass is
// checked (another count is an error and leaves no record): other bytes
// of the same count are stored under the first pass's hash, and Get,
// which hashes what it returns, refuses them as [ErrCorrupt] (Put and
// Verify in this process take the record as verified until the pack
// changes).
func (s *Store) PutWith(ctx context.Context, session string, write func(io.Writer) error) (Ref, string, error) {
	if err := ctx.Err(); err != nil {
		return Ref{}, "", err
	}
	h := lineHash{h: sha256.New()}
	if err := write(&h); err != nil {
		return Ref{}, "", fmt.Errorf("store artifact: %w", err)
	}
	src := source{n: h.n, lines: h.lines(), write: write}
	h.h.Sum(src.sum[:0])
	return s.put(ctx, session, src)
}

// source is what a record stores: its SHA-256, length and lines, and
// how to write its bytes.
type source struct {
	sum   [sha256.Size]byte
	n     int
	lines int
	write func(io.Writer) error
}

// writeTo writes the source's bytes to w, and checks that they are as
// many as were hashed (their count only: they are not hashed again).
func (c source) writeTo(w io.Writer) error {
	cw := &countWriter{w: w}
	if err := c.write(cw); err != nil {
		return err
	}
	if cw.n != c.n {
		return fmt.Errorf("the writer wrote %d bytes, then %d", c.n, cw.n)
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += n
	return n, err
}

// lineHash hashes what is written to it and counts its bytes and lines
// (as byteview.CountLines).
type lineHash struct {
	h        hash.Hash
	n, nl    int
	lastByte byte
}

func (l *lineHash) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	l.h.Write(b)
	l.n += len(b)
	l.nl += bytes.Count(b, []byte{'\n'})
	l.lastByte = b[len(b)-1]
	return len(b), nil
}

func (l *lineHash) lines() int {
	if l.n > 0 && l.lastByte != '\n' {
		return l.nl + 1
	}
	return l.nl
}

// put stores src in the session's scope (Put, PutWith).
func (s *Store) put(ctx context.Context, session string, src source) (Ref, string, error) {
	if err := ctxd.ValidSessionID(session); err != nil {
		return Ref{}, "", fmt.Errorf("store artifact: %w", err)
	}
	hash := hex.EncodeToString(src.sum[:])
	ref := Ref{Hash: hash, Bytes: src.n, Lines: src.lines}
	s.packMu.Lock()
	pk := s.packOf(session)
	if _, err := s.refresh(pk, nil); err != nil {
		s.packMu.Unlock()
		return Ref{}, "", fmt.Errorf("store artifact %s: %w", hash[:MinPrefix], err)
	}
	if len(pk.recs[hash]) > 0 {
		if _, err := pk.check(hash); err == nil {
			s.touchPack(pk)
			s.packMu.Unlock()
			return ref, StatusExists, nil
		}
	}
	legacyBad := false
	if len(pk.recs[hash]) == 0 {
		// A file of the per-file layout (before packs) still counts.
		p := s.path(session, hash)
		if fi, err := os.Stat(p); err == nil {
			if s.check(p, fi, hash) == nil {
				s.touch(p, fi)
				s.packMu.Unlock()
				return ref, StatusExists, nil
			}
			legacyBad = true
			s.log.Warn("artifact did not verify; storing it again", "sha256", hash, "bytes", fi.Size())
		}
	}
	status, err := s.appendRecord(pk, hash, src)
	if err == nil && status == StatusExists {
		s.touchPack(pk)
	}
	s.packMu.Unlock()
	if err != nil {
		return Ref{}, "", fmt.Errorf("store artifact %s: %w", hash[:MinPrefix], err)
	}
	if status == StatusExists {
		return ref, StatusExists, nil
	}
	if legacyBad {
		status = StatusRepaired
	}
	s.mu.Lock()
	over := false
	if s.total >= 0 {
		s.total += int64(RecordHeaderSize + src.n)
		over = s.opts.MaxBytes > 0 && s.total > s.opts.MaxBytes
	} else {
		over = s.opts.MaxBytes > 0
	}
	s.mu.Unlock()
	if over {
		if _, err := s.Evict(ctx); err != nil {
			s.log.Warn("artifact eviction failed", "error", err)
		}
	}
	s.log.Debug("artifact stored", "sha256", hash[:MinPrefix], "bytes", src.n, "status", status)
	return ref, status, nil
}

// ensureDir creates a scope folder, and the store's own folder with a
// .gitignore so the state never ends up in a commit.
func (s *Store) ensureDir(dir string) error {
	s.mu.Lock()
	ok := s.dirs[dir]
	s.mu.Unlock()
	if ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create artifact folder: %w", err)
	}
	gi := filepath.Join(s.dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		if err := os.WriteFile(gi, []byte("*\n"), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", gi, err)
		}
	}
	s.mu.Lock()
	s.dirs[dir] = true
	s.mu.Unlock()
	return nil
}

// check verifies the file at p (whose stat is fi) against hash, reading
// it only when this process has not verified it at its current size and
// modification time.
func (s *Store) check(p string, fi fs.FileInfo, hash string) error {
	s.mu.Lock()
	st, ok := s.verified[p]
	s.mu.Unlock()
	if ok && st.size == fi.Size() && st.mtime.Equal(fi.ModTime()) {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("read artifact: %w", err)
	}
	if Hash(b) != hash {
		s.forget(p)
		return fmt.Errorf("artifact %s (%d bytes): %w", hash[:MinPrefix], len(b), ErrCorrupt)
	}
	s.mu.Lock()
	s.verified[p] = stamp{size: fi.Size(), mtime: fi.ModTime(), lines: byteview.CountLines(b)}
	s.mu.Unlock()
	return nil
}

func (s *Store) forget(p string) {
	s.mu.Lock()
	delete(s.verified, p)
	s.mu.Unlock()
}

// touch refreshes an artifact's modification time (its place in the LRU
// order) when it is older than touchInterval.
func (s *Store) touch(p string, fi fs.FileInfo) {
	now := s.opts.Now()
	if now.Sub(fi.ModTime()) < touchInterval {
		return
	}
	if err := os.Chtimes(p, now, now); err != nil {
		return
	}
	nfi, err := os.Stat(p)
	if err != nil {
		return
	}
	s.mu.Lock()
	if st, ok := s.verified[p]; ok && st.size == fi.Size() && st.mtime.Equal(fi.ModTime()) {
		st.mtime = nfi.ModTime()
		s.verified[p] = st
	}
	s.mu.Unlock()
}

// Verify checks that the session holds the artifact hash (a full hash)
// and that it verifies, and returns its reference. It reads the file only
// the first time this process sees it at its size and modification time;
// afterwards a stat suffices. A missing artifact wraps [ctxd.ErrNotFound];
// one that does not verify is [ErrCorrupt].
func (s *Store) Verify(ctx context.Context, session, hash string) (Ref, error) {
	if err := ctx.Err(); err != nil {
		return Ref{}, err
	}
	if err := ctxd.ValidSessionID(session); err != nil {
		return Ref{}, fmt.Errorf("verify artifact: %w", err)
	}
	if !validHash(hash) {
		return Ref{}, fmt.Errorf("verify artifact: %q is not a sha256 (64 lowercase hex digits): %w", hash, ctxd.ErrInvalidParams)
	}
	s.packMu.Lock()
	pk := s.packOf(session)
	if _, err := s.refresh(pk, nil); err != nil {
		s.packMu.Unlock()
		return Ref{}, fmt.Errorf("verify artifact %s: %w", hash[:MinPrefix], err)
	}
	if len(pk.recs[hash]) > 0 {
		lines, err := pk.check(hash)
		var ref Ref
		if err == nil {
			ref = Ref{Hash: hash, Bytes: pk.size(hash), Lines: lines}
			s.touchPack(pk)
		}
		s.packMu.Unlock()
		return ref, err
	}
	s.packMu.Unlock()
	p := s.path(session, hash)
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Ref{}, fmt.Errorf("artifact %s is not stored for session %s: %w", hash[:MinPrefix], session, ctxd.ErrNotFound)
		}
		return Ref{}, fmt.Errorf("verify artifact %s: %w", hash[:MinPrefix], err)
	}
	if err := s.check(p, fi, hash); err != nil {
		return Ref{}, err
	}
	s.touch(p, fi)
	s.mu.Lock()
	lines := s.verified[p].lines
	s.mu.Unlock()
	return Ref{Hash: hash, Bytes: int(fi.Size()), Lines: lines}, nil
}

// Resolve expands a hash prefix of at least [MinPrefix] hex digits (or a
// full hash) to the full hash of an artifact of the session. No match
// wraps [ctxd.ErrNotFound]; two matches are [ctxd.ErrInvalidParams].
func (s *Store) Resolve(ctx context.Context, session, prefix string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := ctxd.ValidSessionID(session); err != nil {
		return "", fmt.Errorf("resolve artifact: %w", err)
	}
	prefix = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(prefix), "sha256:"))
	if !ValidPrefix(prefix) {
		return "", fmt.Errorf("resolve artifact: %q: want a sha256 or a prefix of at least %d hex digits: %w", prefix, MinPrefix, ctxd.ErrInvalidParams)
	}
	if len(prefix) == 64 {
		return prefix, nil
	}
	var found []string
	s.packMu.Lock()
	pk := s.packOf(session)
	_, err := s.refresh(pk, nil)
	for h := range pk.recs {
		if strings.HasPrefix(h, prefix) {
			found = append(found, h)
		}
	}
	s.packMu.Unlock()
	if err != nil {
		return "", fmt.Errorf("resolve artifact %s: %w", prefix, err)
	}
	ents, err := os.ReadDir(filepath.Join(s.dir, scopeName(session)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("resolve artifact %s: %w", prefix, err)
	}
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, prefix) && validHash(n) && !slices.Contains(found, n) {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("artifact %s is not stored for session %s: %w", prefix, session, ctxd.ErrNotFound)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("artifact prefix %s is ambiguous in session %s (%d matches); give more digits: %w", prefix, session, len(found), ctxd.ErrInvalidParams)
}

// Get returns the content of an artifact of the session, verified against
// its hash (a full hash or a prefix, see [Store.Resolve]).
func (s *Store) Get(ctx context.Context, session, hash string) ([]byte, Ref, error) {
	full, err := s.Resolve(ctx, session, hash)
	if err != nil {
		return nil, Ref{}, err
	}
	s.packMu.Lock()
	pk := s.packOf(session)
	if _, err := s.refresh(pk, nil); err != nil {
		s.packMu.Unlock()
		return nil, Ref{}, fmt.Errorf("read artifact %s: %w", full[:MinPrefix], err)
	}
	b, found, err := pk.read(full)
	if found && err == nil {
		s.touchPack(pk)
	}
	s.packMu.Unlock()
	if found {
		if err != nil {
			return nil, Ref{}, err
		}
		return b, Ref{Hash: full, Bytes: len(b), Lines: byteview.CountLines(b)}, nil
	}
	p := s.path(session, full)
	b, err = os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Ref{}, fmt.Errorf("artifact %s is not stored for session %s: %w", full[:MinPrefix], session, ctxd.ErrNotFound)
		}
		return nil, Ref{}, fmt.Errorf("read artifact %s: %w", full[:MinPrefix], err)
	}
	if Hash(b) != full {
		s.forget(p)
		return nil, Ref{}, fmt.Errorf("artifact %s (%d bytes): %w", full[:MinPrefix], len(b), ErrCorrupt)
	}
	ref := Ref{Hash: full, Bytes: len(b), Lines: byteview.CountLines(b)}
	if fi, err := os.Stat(p); err == nil {
		s.mu.Lock()
		s.verified[p] = stamp{size: fi.Size(), mtime: fi.ModTime(), lines: ref.Lines}
		s.mu.Unlock()
		s.touch(p, fi)
	}
	return b, ref, nil
}

// Lines is a line range of an artifact, as [Store.Lines] returns it.
type Lines struct {
	Hash string `json:"sha256"`
	// StartLine and EndLine are the 1-based, inclusive range returned
	// (EndLine is clamped to TotalLines).
	StartLine  int `json:"start_line"`
	EndLine    int `json:"end_line"`
	TotalLines int `json:"total_lines"`
	// Bytes is the size of the whole artifact.
	Bytes int `json:"bytes"`
	// Text is exactly the lines StartLine..EndLine, each with its newline
	// as stored (the last line of the artifact may have none).
	Text string `json:"text"`
}

// Lines returns lines start..end (1-based, inclusive) of an artifact,
// verified against its hash. start = end = 0 returns every line; end = 0
// alone means to the last line; an end past the last line is clamped to
// it. A start before 1 or after the last
// line, or an end before start, is [ctxd.ErrInvalidParams].
func (s *Store) Lines(ctx context.Context, session, hash string, start, end int) (*Lines, error) {
	b, ref, err := s.Get(ctx, session, hash)
	if err != nil {
		return nil, err
	}
	text, first, last, err := SliceLines(b, start, end)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %w", ref.Hash[:MinPrefix], err)
	}
	return &Lines{Hash: ref.Hash, StartLine: first, EndLine: last, TotalLines: ref.Lines, Bytes: ref.Bytes, Text: string(text)}, nil
}

// SliceLines returns lines start..end (1-based, inclusive) of content with
// their newlines, and the range actually returned; see [Store.Lines] for
// the rules.
func SliceLines(content []byte, start, end int) (text []byte, first, last int, err error) {
	total := byteview.CountLines(content)
	if start == 0 && end == 0 {
		return content, min(1, total), total, nil
	}
	if end == 0 {
		end = max(total, start)
	}
	switch {
	case start < 1:
		return nil, 0, 0, fmt.Errorf("start_line %d: lines count from 1: %w", start, ctxd.ErrInvalidParams)
	case end < start:
		return nil, 0, 0, fmt.Errorf("end_line %d is before start_line %d: %w", end, start, ctxd.ErrInvalidParams)
	case start > total:
		return nil, 0, 0, fmt.Errorf("start_line %d is past the end: the artifact has %d lines: %w", start, total, ctxd.ErrInvalidParams)
	}
	end = min(end, total)
	off, line := 0, 1
	for line < start {
		off += bytes.IndexByte(content[off:], '\n') + 1
		line++
	}
	stop := off
	for ; line <= end; line++ {
		i := bytes.IndexByte(content[stop:], '\n')
		if i < 0 {
			stop = len(content)
			break
		}
		stop += i + 1
	}
	return content[off:stop], start, end, nil
}

// Usage is what the store holds.
type Usage struct {
	// Bytes counts the files: packs (headers included) and per-file
	// artifacts of the layout before packs.
	Bytes int64 `json:"bytes"`
	// Files counts packs and per-file artifacts.
	Files int `json:"files"`
	// Artifacts counts distinct artifacts per scope (a pack's records by
	// hash, plus per-file artifacts).
	Artifacts int `json:"artifacts"`
	Scopes    int `json:"scopes"`
}

type fileEntry struct {
	path  string
	size  int64
	mtime time.Time
	pack  bool
}

// scan lists every pack and per-file artifact of the store.
func (s *Store) scan(ctx context.Context) ([]fileEntry, int, error) {
	scopes, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("list artifact store: %w", err)
	}
	var files []fileEntry
	n := 0
	for _, sc := range scopes {
		if !sc.IsDir() || strings.HasPrefix(sc.Name(), ".") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		n++
		dir := filepath.Join(s.dir, sc.Name())
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			isPack := e.Name() == PackName
			if !isPack && !validHash(e.Name()) {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			files = append(files, fileEntry{path: filepath.Join(dir, e.Name()), size: fi.Size(), mtime: fi.ModTime(), pack: isPack})
		}
	}
	return files, n, nil
}

// Usage counts the store's artifacts.
func (s *Store) Usage(ctx context.Context) (Usage, error) {
	files, scopes, err := s.scan(ctx)
	if err != nil {
		return Usage{}, err
	}
	u := Usage{Files: len(files), Scopes: scopes}
	for _, f := range files {
		u.Bytes += f.size
		if !f.pack {
			u.Artifacts++
			continue
		}
		s.packMu.Lock()
		pk, ok := s.packs[f.path]
		if !ok {
			pk = &pack{path: f.path, recs: map[string][]packRecord{}, verified: map[string]stamp{}}
			s.packs[f.path] = pk
		}
		_, err := s.refresh(pk, nil)
		u.Artifacts += len(pk.recs)
		s.packMu.Unlock()
		if err != nil {
			return Usage{}, err
		}
	}
	s.mu.Lock()
	s.total = u.Bytes
	s.mu.Unlock()
	return u, nil
}

// Evict removes the least recently used packs (a session's artifacts go
// together) and per-file artifacts until the store is within 90% of its
// cap, skipping those used within Options.Protect, and returns how many
// files it removed. It does nothing without a cap.
func (s *Store) Evict(ctx context.Context) (int, error) {
	if s.opts.MaxBytes <= 0 {
		return 0, nil
	}
	files, _, err := s.scan(ctx)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	removed := 0
	if total > s.opts.MaxBytes {
		vsort.Func(files, func(a, b fileEntry) int { return a.mtime.Compare(b.mtime) })
		target := s.opts.MaxBytes / 10 * 9
		now := s.opts.Now()
		for _, f := range files {
			if total <= target {
				break
			}
			if s.opts.Protect > 0 && now.Sub(f.mtime) < s.opts.Protect {
				break // sorted by age: every later file is younger still
			}
			if err := s.remove(f); err != nil {
				continue
			}
			total -= f.size
			removed++
		}
		if total > s.opts.MaxBytes {
			s.log.Warn("artifact store over its cap: the rest is in recent use", "bytes", total, "max_bytes", s.opts.MaxBytes)
		}
	}
	s.mu.Lock()
	s.total = total
	s.mu.Unlock()
	if removed > 0 {
		s.log.Info("artifacts evicted", "removed", removed, "bytes", total)
	}
	return removed, nil
}

// remove deletes an evicted file; a pack under the lock its writers take,
// so no append lands in a removed file.
func (s *Store) remove(f fileEntry) error {
	if !f.pack {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		s.forget(f.path)
		return nil
	}
	s.packMu.Lock()
	defer s.packMu.Unlock()
	pf, err := os.OpenFile(f.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer pf.Close()
	if err := filelock.Lock(pf); err != nil {
		return err
	}
	defer filelock.Unlock(pf)
	if fi, err := pf.Stat(); err != nil || s.opts.Now().Sub(fi.ModTime()) < s.opts.Protect {
		return fmt.Errorf("pack %s is in use", f.path) // written since the scan
	}
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if pk, ok := s.packs[f.path]; ok {
		pk.reset()
	}
	return nil
}
