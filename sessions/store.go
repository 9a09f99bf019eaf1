package sessions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/filelock"
	"github.com/ctxd/ctxd/safefs"
)

// DefaultKeep is how many checkpoints a session keeps when nothing else is
// configured: older ones are removed after each save.
const DefaultKeep = 50

// Log attribute keys.
const (
	keySession = "session"
	keySeq     = "seq"
	keyPath    = "path"
	keyReason  = "reason"
)

// Names inside the store.
const (
	lockName      = "lock"
	tempPrefix    = ".tmp-"
	gitignoreName = ".gitignore"
	// gitignoreText keeps checkpoints (which hold conversation histories)
	// out of git, and out of ctxd's own gathering when the state directory
	// sits inside the workspace under another name than .ctxd.
	gitignoreText = "# ctxd session checkpoints: never committed, never gathered.\n*\n"
)

// Options configure a [Store].
type Options struct {
	// Keep is how many of the newest checkpoints each session keeps after
	// a save; older ones are removed (never a corrupt one, never the
	// newest). 0 means [DefaultKeep]; a negative value keeps all.
	Keep int
	// Logger receives counts, paths and reasons, never message text; nil
	// discards.
	Logger *slog.Logger
	// Now stamps checkpoints saved without a timestamp; nil is time.Now.
	Now func() time.Time
}

// Store is a directory of sessions. It keeps no state in memory: every
// call reads the directory, so any number of Stores, in any number of
// processes, may share one directory. Safe for concurrent use.
type Store struct {
	dir  string
	keep int
	log  *slog.Logger
	now  func() time.Time
}

// Open returns the store in dir (the sessions folder of a state directory,
// see [StateDir]). Nothing is created until the first save.
func Open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, fmt.Errorf("open session store: no directory given: %w", ctxd.ErrInvalidParams)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open session store %s: %w", dir, err)
	}
	s := &Store{dir: abs, keep: opts.Keep, log: opts.Logger, now: opts.Now}
	if s.keep == 0 {
		s.keep = DefaultKeep
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Problem is a file the store could not load: its path and why. Problem
// files are reported, skipped and left in place.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func problem(path string, err error) Problem { return Problem{Path: path, Reason: err.Error()} }

// Update builds the checkpoint to save from the session's newest readable
// checkpoint (nil for a new session) and the sequence number it will get.
// The store sets SessionID, Seq and, when zero, Timestamp. It may be
// called more than once (with a higher seq) if another writer without a
// working file lock took the number first.
type Update func(prev *Checkpoint, seq int) (*Checkpoint, error)

// Save appends cp to its session's timeline as the next checkpoint and
// returns it with its number and checksum set.
func (s *Store) Save(ctx context.Context, cp *Checkpoint) (*Checkpoint, error) {
	if cp == nil {
		return nil, fmt.Errorf("save checkpoint: nil checkpoint: %w", ctxd.ErrInvalidParams)
	}
	return s.Append(ctx, cp.SessionID, copyOf(cp))
}

// copyOf is the Update that saves a copy of cp.
func copyOf(cp *Checkpoint) Update {
	return func(*Checkpoint, int) (*Checkpoint, error) {
		c := *cp
		return &c, nil
	}
}

// Append saves the checkpoint fn builds as the session's next one, under
// the session's lock: the number is the highest on disk plus one (corrupt
// files count, so no number is ever reused), and prev is the newest
// checkpoint that verifies. It then removes checkpoints beyond the
// store's Keep.
func (s *Store) Append(ctx context.Context, id string, fn Update) (*Checkpoint, error) {
	return s.append(ctx, id, fn, false)
}

// Create saves cp as the first checkpoint of a new session; it fails with
// an error wrapping ctxd.ErrInvalidParams if the session already has any
// checkpoint file.
func (s *Store) Create(ctx context.Context, cp *Checkpoint) (*Checkpoint, error) {
	if cp == nil {
		return nil, fmt.Errorf("create session: nil checkpoint: %w", ctxd.ErrInvalidParams)
	}
	return s.append(ctx, cp.SessionID, copyOf(cp), true)
}

func (s *Store) append(ctx context.Context, id string, fn Update, create bool) (*Checkpoint, error) {
	if err := ctxd.ValidSessionID(id); err != nil {
		return nil, fmt.Errorf("save checkpoint: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := s.sessionDir(id)
	ls, unlock, err := s.lockScan(ctx, dir, true)
	if err != nil {
		return nil, fmt.Errorf("save checkpoint to session %s: %w", id, err)
	}
	defer unlock()
	if create && len(ls.seqs) > 0 {
		return nil, fmt.Errorf("create session %s: it already exists with %d checkpoint files: %w", id, len(ls.seqs), ctxd.ErrInvalidParams)
	}
	if filelock.Exclusive {
		// Under the lock, a temporary file is an orphan of a writer that
		// died between writing and publishing it. Without flock the lock
		// serializes this process's writers only and a temporary file may
		// be another process's, so none is removed (checkpoints are still
		// never overwritten: publication by hard link fails on an
		// existing name and the writer takes the next number).
		s.removeTemps(dir, ls.temps)
	}
	prev, problems := s.latest(id, dir, ls.seqs)
	for _, p := range problems {
		s.log.Warn("skipped unreadable checkpoint", keyPath, p.Path, keyReason, p.Reason)
	}
	next := 1
	if len(ls.seqs) > 0 {
		next = ls.seqs[len(ls.seqs)-1] + 1
	}
	for attempt := 0; ; attempt++ {
		cp, err := fn(prev, next)
		if err != nil {
			return nil, err
		}
		if cp == nil {
			return nil, fmt.Errorf("save checkpoint to session %s: nothing to save: %w", id, ctxd.ErrInvalidParams)
		}
		c := *cp
		c.SessionID, c.Seq = id, next
		if c.Timestamp.IsZero() {
			c.Timestamp = s.now()
		}
		c.normalize()
		data, sum, err := encode(&c)
		if err != nil {
			return nil, fmt.Errorf("save checkpoint to session %s: %w", id, err)
		}
		err = publish(dir, next, data)
		if errors.Is(err, fs.ErrExist) && attempt < 100 {
			// Only without a working lock: another writer took the number.
			next++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("save checkpoint %d to session %s: %w", next, id, err)
		}
		c.Checksum = sum
		s.log.Debug("checkpoint saved", keySession, id, keySeq, next, "bytes", len(data))
		all := append(ls.seqs, next)
		s.retain(id, dir, all, s.keep)
		if s.keep >= 0 && len(all) > s.keep {
			for _, seq := range all[:len(all)-s.keep] {
				if _, err := os.Lstat(filepath.Join(dir, seqName(seq))); errors.Is(err, fs.ErrNotExist) {
					c.removed = append(c.removed, seq)
				}
			}
		}
		return &c, nil
	}
}

// publish writes data as checkpoint seq of dir: a temporary file, fsynced,
// hard-linked to its final name (which fails with fs.ErrExist rather than
// replace a checkpoint), then the directory fsynced.
func publish(dir string, seq int, data []byte) error {
	f, err := os.CreateTemp(dir, tempPrefix+strconv.Itoa(seq)+"-")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	final := filepath.Join(dir, seqName(seq))
	if err := linkNoReplace(tmp, final); err != nil {
		return err
	}
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", tmp, err)
	}
	return syncDir(dir)
}

// linkNoReplace publishes tmp as final, failing with fs.ErrExist when
// final exists. Filesystems without hard links fall back to a rename
// after a check, which the session lock makes safe.
func linkNoReplace(tmp, final string) error {
	err := os.Link(tmp, final)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fs.ErrExist
	}
	if !linkUnsupported(err) {
		return fmt.Errorf("publish %s: %w", final, err)
	}
	if _, err := os.Lstat(final); err == nil {
		return fs.ErrExist
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("publish %s: %w", final, err)
	}
	return nil
}

// syncDir fsyncs a directory, so the names created or removed in it
// survive a crash of the machine.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errSyncUnsupported) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// seqName is the file name of checkpoint seq.
func seqName(seq int) string { return fmt.Sprintf("%06d.json", seq) }

// parseSeqName returns the checkpoint number a file name holds, or false
// for any other name (temporary files, the lock, stray files).
func parseSeqName(name string) (int, bool) {
	num, ok := strings.CutSuffix(name, ".json")
	if !ok || len(num) < 6 {
		return 0, false
	}
	for _, r := range num {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || seqName(n) != name {
		return 0, false
	}
	return n, true
}

// listing is what a session directory holds.
type listing struct {
	seqs  []int // checkpoint numbers, ascending
	temps []string
	// odd are checkpoint names that are not regular files (a symlink, a
	// directory, a FIFO): never read, reported as problems.
	odd   []Problem
	bytes int64
}

// scan lists a session directory; a missing directory is an error
// wrapping fs.ErrNotExist.
func scan(dir string) (*listing, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read session directory: %w", err)
	}
	ls := &listing{}
	for _, e := range ents {
		name := e.Name()
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			ls.bytes += fi.Size()
		}
		if n, ok := parseSeqName(name); ok && e.Type().IsRegular() {
			ls.seqs = append(ls.seqs, n)
		} else if ok {
			ls.odd = append(ls.odd, Problem{Path: filepath.Join(dir, name), Reason: fmt.Sprintf("a checkpoint name that is %s, not a regular file: not read", kindOf(e.Type()))})
		} else if strings.HasPrefix(name, tempPrefix) {
			ls.temps = append(ls.temps, name)
		}
	}
	slices.Sort(ls.seqs)
	return ls, nil
}

func (s *Store) sessionDir(id string) string { return filepath.Join(s.dir, id) }

// load reads and verifies checkpoint seq of session id. A version 1 file
// gets its number from the name, and its session id and timestamp from
// the directory and the file's modification time when it has none.
func (s *Store) load(id, dir string, seq int) (*Checkpoint, int64, error) {
	path := filepath.Join(dir, seqName(seq))
	data, err := safefs.ReadFile(context.Background(), path, MaxCheckpointBytes)
	if err != nil {
		return nil, 0, err
	}
	cp, err := Decode(data)
	if err != nil {
		return nil, int64(len(data)), err
	}
	if cp.migratedFrom > 0 {
		cp.Seq = seq
		if cp.SessionID == "" {
			cp.SessionID = id
		}
	}
	// A timestamp is only a claim: a legacy file has no checksum, and the
	// checksum of a newer one is a plain SHA-256 anyone can compute. It is
	// never later than the file's modification time or now, so a forged
	// future timestamp does not make a checkpoint the newest.
	if fi, err := os.Stat(path); err == nil {
		if mt := fi.ModTime().UTC(); cp.Timestamp.IsZero() || cp.Timestamp.After(mt) {
			cp.Timestamp = mt
		}
	}
	if now := s.now().UTC(); cp.Timestamp.After(now) {
		cp.Timestamp = now
	}
	if cp.SessionID != id {
		return nil, int64(len(data)), fmt.Errorf("the file holds session %q, not %q (moved from another session?): %w", cp.SessionID, id, ErrCorrupt)
	}
	if cp.Seq != seq {
		return nil, int64(len(data)), fmt.Errorf("the file holds checkpoint %d, not %d (renamed?): %w", cp.Seq, seq, ErrCorrupt)
	}
	return cp, int64(len(data)), nil
}

// latest returns the newest checkpoint of seqs that verifies, and the
// problems of the newer ones that do not. A file removed since the
// directory was read (by retention in another process) is skipped
// silently.
func (s *Store) latest(id, dir string, seqs []int) (*Checkpoint, []Problem) {
	var problems []Problem
	for i := len(seqs) - 1; i >= 0; i-- {
		cp, _, err := s.load(id, dir, seqs[i])
		if err == nil {
			return cp, problems
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		problems = append(problems, problem(filepath.Join(dir, seqName(seqs[i])), err))
	}
	return nil, problems
}

// Restored is a checkpoint read back, with the file it came from and the
// problems of newer files that were skipped to reach it.
type Restored struct {
	Checkpoint *Checkpoint `json:"checkpoint"`
	Path       string      `json:"path"`
	// MigratedFrom is the schema version the file was written in when it
	// is older than the current one (0 otherwise).
	MigratedFrom int       `json:"migrated_from,omitempty"`
	Problems     []Problem `json:"problems,omitempty"`
}

// Restore reads checkpoint seq of session id, or, when seq is 0, the
// newest checkpoint that verifies (newer files that do not are skipped and
// reported). A missing session or checkpoint is an error wrapping
// ctxd.ErrNotFound; a named checkpoint that does not verify wraps
// [ErrCorrupt] or [ErrNewerSchema].
func (s *Store) Restore(ctx context.Context, id string, seq int) (*Restored, error) {
	if err := ctxd.ValidSessionID(id); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if seq < 0 {
		return nil, fmt.Errorf("restore: checkpoint number must not be negative, got %d: %w", seq, ctxd.ErrInvalidParams)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := s.sessionDir(id)
	if seq > 0 {
		cp, _, err := s.load(id, dir, seq)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("restore session %s: checkpoint %d: %w", id, seq, s.notFound(id, dir))
		case err != nil:
			return nil, fmt.Errorf("restore session %s: checkpoint %d (%s): %w", id, seq, filepath.Join(dir, seqName(seq)), err)
		}
		return &Restored{Checkpoint: cp, Path: filepath.Join(dir, seqName(seq)), MigratedFrom: cp.migratedFrom}, nil
	}
	ls, err := scan(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("restore: session %s: %w", id, ctxd.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("restore session %s: %w", id, err)
	}
	cp, problems := s.latest(id, dir, ls.seqs)
	if cp == nil {
		if len(problems) > 0 {
			return nil, fmt.Errorf("restore session %s: none of its %d checkpoint files verifies (first: %s: %s): %w", id, len(ls.seqs), problems[0].Path, problems[0].Reason, ErrCorrupt)
		}
		return nil, fmt.Errorf("restore: session %s has no checkpoints: %w", id, ctxd.ErrNotFound)
	}
	return &Restored{Checkpoint: cp, Path: filepath.Join(dir, seqName(cp.Seq)), MigratedFrom: cp.migratedFrom, Problems: problems}, nil
}

// notFound explains a missing checkpoint: the session is missing, or the
// checkpoint is (with the range that exists).
func (s *Store) notFound(id, dir string) error {
	ls, err := scan(dir)
	if err != nil || len(ls.seqs) == 0 {
		return fmt.Errorf("session %s does not exist: %w", id, ctxd.ErrNotFound)
	}
	return fmt.Errorf("no such checkpoint; session %s has checkpoints %d..%d: %w", id, ls.seqs[0], ls.seqs[len(ls.seqs)-1], ctxd.ErrNotFound)
}

// ensureStore creates the store's directory with its .gitignore.
func (s *Store) ensureStore() error {
	if _, err := os.Stat(filepath.Join(s.dir, gitignoreName)); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create session store %s: %w", s.dir, err)
	}
	f, err := os.CreateTemp(s.dir, tempPrefix)
	if err != nil {
		return fmt.Errorf("create session store %s: %w", s.dir, err)
	}
	defer os.Remove(f.Name())
	_, werr := f.WriteString(gitignoreText)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(s.dir, gitignoreName), err)
	}
	if err := os.Rename(f.Name(), filepath.Join(s.dir, gitignoreName)); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(s.dir, gitignoreName), err)
	}
	return syncDir(s.dir)
}

// lockScan locks session dir as [Store.lock] does (create: make the
// directory) and lists it. On success the caller calls unlock.
func (s *Store) lockScan(ctx context.Context, dir string, create bool) (ls *listing, unlock func(), err error) {
	unlock, err = s.lock(ctx, dir, create)
	if err != nil {
		return nil, nil, err
	}
	if ls, err = scan(dir); err != nil {
		unlock()
		return nil, nil, err
	}
	return ls, unlock, nil
}

// lock takes the session's lock, creating the session directory when
// create is set (otherwise a missing session is ctxd.ErrNotFound). The
// lock file is checked after locking to still be the one at its path: a
// session deleted and recreated meanwhile has a new lock file, and
// holding the old one would exclude nobody.
func (s *Store) lock(ctx context.Context, dir string, create bool) (unlock func(), err error) {
	for {
		if create {
			if err := s.ensureStore(); err != nil {
				return nil, err
			}
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
					return nil, fmt.Errorf("create session directory: %w", err)
				}
				if err := syncDir(s.dir); err != nil {
					return nil, err
				}
			}
		} else if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("session %s does not exist: %w", filepath.Base(dir), ctxd.ErrNotFound)
		}
		path := filepath.Join(dir, lockName)
		l, err := filelock.LockPath(ctx, path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the directory went away between the check and the open
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if l.Current() {
			return l.Unlock, nil
		}
		l.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// removeTemps removes orphaned temporary files; the caller holds the
// session's lock.
func (s *Store) removeTemps(dir string, temps []string) int {
	n := 0
	for _, t := range temps {
		if err := os.Remove(filepath.Join(dir, t)); err == nil {
			n++
		}
	}
	if n > 0 {
		s.log.Info("removed orphaned temporary files", keyPath, dir, "count", n)
	}
	return n
}

// MaxCheckpointBytes caps a checkpoint file read: a checkpoint is written
// by ctxd and stays far below it, so a larger one was not.
const MaxCheckpointBytes = 64 << 20

// kindOf names a non-regular file type for a problem report.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
