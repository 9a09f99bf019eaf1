package artifacts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/internal/filelock"
)

// pack is this process's index of one scope's pack file. The file is the
// truth: the index is extended by scanning what was appended since (by
// this process or another) and rebuilt when the file was replaced or
// shrank.
type pack struct {
	path string
	fi   fs.FileInfo // the file as last scanned; nil before
	end  int64       // offset up to which records are indexed
	// recs holds every complete record of a hash, oldest first: a read
	// takes the newest one that verifies.
	recs    map[string][]packRecord
	damaged int64
	// verified records a hash whose newest record verified while the
	// file had this size and modification time.
	verified map[string]stamp
	dirty    bool // appended since the last fsync
	created  bool // created since the last fsync: its folder needs one too
}

// PackPath returns the pack file of a session in a store directory.
func PackPath(dir, session string) string {
	return filepath.Join(dir, scopeName(session), PackName)
}

// pack returns the index of the session's pack; the caller holds s.packMu.
func (s *Store) packOf(session string) *pack {
	p := PackPath(s.dir, session)
	pk, ok := s.packs[p]
	if !ok {
		pk = &pack{path: p, recs: map[string][]packRecord{}, verified: map[string]stamp{}}
		s.packs[p] = pk
	}
	return pk
}

func (pk *pack) reset() {
	pk.fi, pk.end, pk.damaged = nil, 0, 0
	pk.recs = map[string][]packRecord{}
	pk.verified = map[string]stamp{}
}

// refresh brings the index up to the file's end. f is the open pack, or
// nil to open it for reading. It reports whether the file ends in a torn
// record (at pk.end).
func (s *Store) refresh(pk *pack, f *os.File) (bool, error) {
	if f == nil {
		// A stat tells whether anything changed since the last scan.
		fi, err := os.Stat(pk.path)
		if errors.Is(err, fs.ErrNotExist) {
			pk.reset()
			return false, nil
		}
		if err == nil && pk.fi != nil && os.SameFile(pk.fi, fi) && fi.Size() == pk.fi.Size() &&
			fi.Size() == pk.end && fi.ModTime().Equal(pk.fi.ModTime()) {
			return false, nil
		}
		of, err := os.Open(pk.path)
		if errors.Is(err, fs.ErrNotExist) {
			pk.reset()
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("open artifact pack: %w", err)
		}
		defer of.Close()
		f = of
	}
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("stat artifact pack: %w", err)
	}
	// Appends grow the file; a file replaced, shrunk, or changed in place
	// (same size, new time: an edit, or another process's touch) is read
	// again from the start.
	if pk.fi == nil || !os.SameFile(pk.fi, fi) || fi.Size() < pk.end ||
		(fi.Size() == pk.fi.Size() && !fi.ModTime().Equal(pk.fi.ModTime())) {
		pk.reset()
	}
	pk.fi = fi
	if fi.Size() == pk.end {
		return false, nil
	}
	sc, err := scanPack(f, pk.end, fi.Size())
	if err != nil {
		return false, fmt.Errorf("read artifact pack: %w", err)
	}
	for _, r := range sc.records {
		pk.recs[r.hash] = append(pk.recs[r.hash], r)
	}
	if sc.damaged > 0 {
		pk.damaged += sc.damaged
		s.log.Warn("artifact pack has damaged bytes; they are skipped, never served", "pack", filepath.Base(filepath.Dir(pk.path)), "damaged_bytes", pk.damaged)
	}
	pk.end = sc.end
	return sc.torn, nil
}

// read returns the content of the newest record of hash that verifies:
// found is false when the pack holds no record of it, and the error is
// [ErrCorrupt] when it holds only ones that do not verify.
func (pk *pack) read(hash string) (content []byte, found bool, err error) {
	recs := pk.recs[hash]
	if len(recs) == 0 {
		return nil, false, nil
	}
	f, err := os.Open(pk.path)
	if err != nil {
		return nil, true, fmt.Errorf("open artifact pack: %w", err)
	}
	defer f.Close()
	for i := len(recs) - 1; i >= 0; i-- {
		b := make([]byte, recs[i].n)
		if _, err := f.ReadAt(b, recs[i].off); err != nil {
			continue
		}
		if Hash(b) == hash {
			return b, true, nil
		}
	}
	delete(pk.verified, hash)
	return nil, true, fmt.Errorf("artifact %s: %d record(s) in the pack, none verifies: %w", hash[:MinPrefix], len(recs), ErrCorrupt)
}

// check verifies hash's newest good record, reading it only the first
// time: a verified record stays verified while the pack only grows by
// appends (refresh forgets every verification when the pack was replaced,
// shrank, or changed in place at the same size); it returns the content's
// line count. Get always hashes what it returns.
func (pk *pack) check(hash string) (int, error) {
	if st, ok := pk.verified[hash]; ok {
		return st.lines, nil
	}
	b, _, err := pk.read(hash)
	if err != nil {
		return 0, err
	}
	n := byteview.CountLines(b)
	if pk.fi != nil {
		pk.verified[hash] = stamp{size: pk.fi.Size(), mtime: pk.fi.ModTime(), lines: n}
	}
	return n, nil
}

// size returns the length of hash's newest record.
func (pk *pack) size(hash string) int {
	recs := pk.recs[hash]
	return int(recs[len(recs)-1].n)
}

// appendRecord writes content as one record at the end of the session's
// pack, under an exclusive lock on the file, unless a verified record of
// it is already there. It returns the status and whether it wrote.
func (s *Store) appendRecord(pk *pack, hash string, content source) (string, error) {
	if err := s.ensureDir(filepath.Dir(pk.path)); err != nil {
		return "", err
	}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(pk.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return "", fmt.Errorf("open artifact pack: %w", err)
		}
		status, retry, err := s.appendLocked(pk, f, hash, content)
		cerr := f.Close()
		if retry && attempt < 3 {
			continue
		}
		if err == nil && cerr != nil {
			err = fmt.Errorf("close artifact pack: %w", cerr)
		}
		return status, err
	}
}

func (s *Store) appendLocked(pk *pack, f *os.File, hash string, content source) (status string, retry bool, err error) {
	if err := filelock.Lock(f); err != nil {
		return "", false, fmt.Errorf("lock artifact pack: %w", err)
	}
	defer filelock.Unlock(f)
	// An evictor may have removed the file between open and lock.
	held, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("stat artifact pack: %w", err)
	}
	if cur, err := os.Stat(pk.path); err != nil || !os.SameFile(held, cur) {
		return "", true, fmt.Errorf("artifact pack %s was replaced while opening it", pk.path)
	}
	torn, err := s.refresh(pk, f)
	if err != nil {
		return "", false, err
	}
	if held.Size() == 0 {
		pk.created = true
	}
	status = StatusCreated
	if len(pk.recs[hash]) > 0 {
		if _, err := pk.check(hash); err == nil {
			return StatusExists, false, nil
		}
		status = StatusRepaired
		s.log.Warn("artifact did not verify; storing it again", "sha256", hash)
	}
	if torn {
		// Under the lock nobody is writing: the tail is a write cut short
		// by a crash, never acknowledged. Cut it so the record below
		// starts on a boundary.
		s.log.Warn("artifact pack ends in a torn record; truncating it", "bytes", pk.fi.Size()-pk.end)
		if err := f.Truncate(pk.end); err != nil {
			return "", false, fmt.Errorf("truncate torn artifact pack: %w", err)
		}
	}
	// The header, then the content as it is (no copy of a large text):
	// under the lock nobody writes between them, and a write cut short
	// is a torn record the next writer cuts, as a partial single write
	// would be.
	hdr := headerOf(content.sum, int64(content.n))
	if _, err := f.Write(hdr); err != nil {
		return "", false, fmt.Errorf("append artifact record: %w", err)
	}
	if err := content.writeTo(f); err != nil {
		// A writer that failed, or wrote another number of bytes than
		// it hashed (PutWith: only the count is compared), leaves no
		// record behind it: cut it off under the lock, as the next
		// writer would cut a torn one.
		if terr := f.Truncate(pk.end); terr != nil {
			err = errors.Join(err, terr)
		}
		return "", false, fmt.Errorf("append artifact record: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return "", false, fmt.Errorf("stat artifact pack: %w", err)
	}
	pk.recs[hash] = append(pk.recs[hash], packRecord{hash: hash, off: pk.end + RecordHeaderSize, n: int64(content.n)})
	pk.end += int64(len(hdr) + content.n)
	pk.fi = fi
	pk.verified[hash] = stamp{size: fi.Size(), mtime: fi.ModTime(), lines: content.lines}
	pk.dirty = true
	return status, false, nil
}

// touchPack refreshes a pack's modification time (its place in the LRU
// order) when it is older than touchInterval.
func (s *Store) touchPack(pk *pack) {
	if pk.fi == nil {
		return
	}
	now := s.opts.Now()
	if now.Sub(pk.fi.ModTime()) < touchInterval {
		return
	}
	if err := os.Chtimes(pk.path, now, now); err != nil {
		return
	}
	if fi, err := os.Stat(pk.path); err == nil && os.SameFile(fi, pk.fi) && fi.Size() == pk.fi.Size() {
		pk.fi = fi // our own touch: not a change in place
	}
}

// Flush makes every record appended since the last Flush durable (fsync)
// when [Options.Sync] is set; without it, it does nothing (records are
// written with one write each and survive the process, not a machine
// crash). A compactor calls it once before it replies, so a reply's
// references survive a crash right after it at the cost of one fsync per
// pack written, not one per artifact.
func (s *Store) Flush() error {
	if !s.opts.Sync {
		return nil
	}
	s.packMu.Lock()
	defer s.packMu.Unlock()
	var errs []error
	for _, pk := range s.packs {
		if !pk.dirty {
			continue
		}
		f, err := os.OpenFile(pk.path, os.O_RDWR, 0)
		if err == nil {
			err = errors.Join(f.Sync(), f.Close())
		}
		if err == nil && pk.created {
			if d, derr := os.Open(filepath.Dir(pk.path)); derr == nil {
				_ = d.Sync() // unsupported on some filesystems: best effort
				d.Close()
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sync artifact pack: %w", err))
			continue
		}
		pk.dirty, pk.created = false, false
	}
	return errors.Join(errs...)
}
