package sessions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/filelock"
)

// retain removes the checkpoints of seqs older than the newest keep, after
// verifying each (a file that does not verify is kept and reported). The
// caller holds the session's lock. With dry set nothing is removed.
func (s *Store) retain(id, dir string, seqs []int, keep int) (removed int, bytes int64, problems []Problem) {
	return s.retainDry(id, dir, seqs, keep, false)
}

func (s *Store) retainDry(id, dir string, seqs []int, keep int, dry bool) (removed int, bytes int64, problems []Problem) {
	if keep < 0 || len(seqs) <= keep {
		return 0, 0, nil
	}
	for _, seq := range seqs[:len(seqs)-keep] {
		path := filepath.Join(dir, seqName(seq))
		_, n, err := s.load(id, dir, seq)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, problem(path, err))
			s.log.Warn("kept unreadable checkpoint", keyPath, path, keyReason, err.Error())
			continue
		}
		if !dry {
			if err := os.Remove(path); err != nil {
				problems = append(problems, problem(path, fmt.Errorf("remove: %w", err)))
				continue
			}
		}
		removed++
		bytes += n
	}
	if removed > 0 && !dry {
		// No fsync of the directory: a removal lost in a power failure
		// leaves an old, valid checkpoint that the next save removes
		// again. It would cost a third fsync per save.
		s.log.Debug("old checkpoints removed", keySession, id, "count", removed)
	}
	return removed, bytes, problems
}

// DeleteResult says what [Store.Delete] removed and what it left.
type DeleteResult struct {
	SessionID string `json:"session_id"`
	// Removed counts the checkpoint files removed, Bytes their size.
	Removed int   `json:"removed"`
	Bytes   int64 `json:"bytes"`
	// Left lists the files kept because they do not verify (corrupt files
	// are never deleted); the session's directory stays while any is
	// left.
	Left []Problem `json:"left"`
}

// Delete removes a session: every checkpoint file that verifies, orphaned
// temporary files, then the lock and the directory when nothing else is
// left. A missing session is an error wrapping ctxd.ErrNotFound.
func (s *Store) Delete(ctx context.Context, id string) (*DeleteResult, error) {
	if err := ctxd.ValidSessionID(id); err != nil {
		return nil, fmt.Errorf("delete session: %w", err)
	}
	dir := s.sessionDir(id)
	ls, unlock, err := s.lockScan(ctx, dir, false)
	if err != nil {
		return nil, fmt.Errorf("delete session %s: %w", id, err)
	}
	defer unlock()
	res := s.removeSession(id, dir, ls, false)
	if res.Removed == 0 && len(res.Left) == 0 && len(ls.seqs) == 0 {
		return nil, fmt.Errorf("delete: session %s has no checkpoints: %w", id, ctxd.ErrNotFound)
	}
	return res, nil
}

// removeSession removes what a session holds, under its lock (or, with
// dry set, says what it would remove).
func (s *Store) removeSession(id, dir string, ls *listing, dry bool) *DeleteResult {
	res := &DeleteResult{SessionID: id, Left: []Problem{}}
	for _, seq := range ls.seqs {
		path := filepath.Join(dir, seqName(seq))
		_, n, err := s.load(id, dir, seq)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			res.Left = append(res.Left, problem(path, err))
			continue
		}
		if !dry {
			if err := os.Remove(path); err != nil {
				res.Left = append(res.Left, problem(path, fmt.Errorf("remove: %w", err)))
				continue
			}
		}
		res.Removed++
		res.Bytes += n
	}
	if dry {
		return res
	}
	if filelock.Exclusive {
		s.removeTemps(dir, ls.temps)
	}
	if len(res.Left) == 0 {
		_ = os.Remove(filepath.Join(dir, lockName))
		if err := os.Remove(dir); err != nil {
			res.Left = append(res.Left, problem(dir, fmt.Errorf("directory kept: it holds files the store does not own: %w", err)))
		}
		_ = syncDir(s.dir)
	} else {
		_ = syncDir(dir)
	}
	s.log.Info("session deleted", keySession, id, "removed", res.Removed, "left", len(res.Left))
	return res
}

// GCOptions say what [Store.GC] collects.
type GCOptions struct {
	// MaxAge removes sessions whose newest checkpoint is older; 0 turns
	// the age rule off.
	MaxAge time.Duration
	// MaxBytes caps the store's total size: sessions are removed oldest
	// first until it fits, never a running session younger than MaxAge
	// (with MaxAge 0, never a running session). 0 means no cap.
	MaxBytes int64
	// Keep trims every session to its newest Keep checkpoints; 0 leaves
	// them as they are.
	Keep int
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
	// Now is the time ages are measured from; zero is the store's clock.
	Now time.Time
}

// Collected is a session [Store.GC] removed (or would remove).
type Collected struct {
	SessionID string    `json:"session_id"`
	State     State     `json:"state"`
	Updated   time.Time `json:"updated"`
	Bytes     int64     `json:"bytes"`
	Reason    string    `json:"reason"`
	// Left counts the files left in place because they do not verify
	// (listed in the report's problems); the directory stays with them.
	Left int `json:"left,omitempty"`
}

// Trimmed is a session whose oldest checkpoints [Store.GC] removed.
type Trimmed struct {
	SessionID   string `json:"session_id"`
	Checkpoints int    `json:"checkpoints"`
	Bytes       int64  `json:"bytes"`
}

// GCReport says what [Store.GC] did, or would do in a dry run.
type GCReport struct {
	DryRun  bool        `json:"dry_run"`
	Removed []Collected `json:"removed"`
	Trimmed []Trimmed   `json:"trimmed"`
	// Kept counts the sessions left whole.
	Kept        int   `json:"kept"`
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
	// TempFiles counts orphaned temporary files removed (or found).
	TempFiles int `json:"temp_files"`
	// Problems are the files left in place because they do not verify.
	Problems []Problem `json:"problems"`
}

type gcSession struct {
	id    string
	info  *Info // nil: no checkpoint verifies
	bytes int64
}

// GC trims sessions to Keep checkpoints, removes sessions older than
// MaxAge, then removes the oldest sessions until the store fits MaxBytes.
// Each removal happens under the session's lock and is skipped if the
// session got a new checkpoint meanwhile. Files that do not verify are
// never removed: they are reported, and their session's directory stays.
func (s *Store) GC(ctx context.Context, opts GCOptions) (*GCReport, error) {
	if opts.MaxAge < 0 || opts.MaxBytes < 0 || opts.Keep < 0 {
		return nil, fmt.Errorf("gc: max age, max size and keep must not be negative: %w", ctxd.ErrInvalidParams)
	}
	now := opts.Now
	if now.IsZero() {
		now = s.now()
	}
	rep := &GCReport{DryRun: opts.DryRun, Removed: []Collected{}, Trimmed: []Trimmed{}, Problems: []Problem{}}
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gc %s: %w", s.dir, err)
	}
	var all []*gcSession
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !e.IsDir() || ctxd.ValidSessionID(e.Name()) != nil {
			continue
		}
		id := e.Name()
		g, err := s.gcPrepare(ctx, id, opts, rep)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ctxd.ErrNotFound) {
				continue
			}
			return nil, err
		}
		rep.BytesBefore += g.bytes
		all = append(all, g)
	}

	total := int64(0)
	for _, g := range all {
		total += g.bytes
	}
	var live []*gcSession
	for _, g := range all {
		if g.info != nil && opts.MaxAge > 0 && now.Sub(g.info.Updated) > opts.MaxAge {
			reason := fmt.Sprintf("last checkpoint %s ago, older than %s", now.Sub(g.info.Updated).Round(time.Second), opts.MaxAge)
			total -= s.gcRemove(ctx, g, reason, opts.DryRun, rep)
			continue
		}
		live = append(live, g)
	}
	if opts.MaxBytes > 0 && total > opts.MaxBytes {
		slices.SortFunc(live, func(a, b *gcSession) int {
			switch {
			case a.info == nil && b.info == nil:
				return 0
			case a.info == nil:
				return 1
			case b.info == nil:
				return -1
			}
			return a.info.Updated.Compare(b.info.Updated)
		})
		var keep []*gcSession
		for _, g := range live {
			protected := g.info == nil || g.info.State == StateRunning && (opts.MaxAge == 0 || now.Sub(g.info.Updated) <= opts.MaxAge)
			if total <= opts.MaxBytes || protected {
				keep = append(keep, g)
				continue
			}
			reason := fmt.Sprintf("the store held %d bytes, over the cap of %d; oldest sessions go first", total, opts.MaxBytes)
			total -= s.gcRemove(ctx, g, reason, opts.DryRun, rep)
		}
		live = keep
	}
	rep.Kept = len(live)
	rep.BytesAfter = total
	return rep, nil
}

// gcPrepare reads a session for GC and trims it to Keep.
func (s *Store) gcPrepare(ctx context.Context, id string, opts GCOptions, rep *GCReport) (*gcSession, error) {
	dir := s.sessionDir(id)
	if !opts.DryRun {
		// Trimming and orphan removal need the lock; a dry run only reads.
		unlock, err := s.lock(ctx, dir, false)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	ls, err := scan(dir)
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		rep.TempFiles += len(ls.temps)
	} else if filelock.Exclusive {
		rep.TempFiles += s.removeTemps(dir, ls.temps)
	}
	trimmed := int64(0)
	if opts.Keep > 0 {
		n, b, problems := s.retainDry(id, dir, ls.seqs, opts.Keep, opts.DryRun)
		rep.Problems = appendNew(rep.Problems, problems...)
		if n > 0 {
			rep.Trimmed = append(rep.Trimmed, Trimmed{SessionID: id, Checkpoints: n, Bytes: b})
			trimmed = b
		}
	}
	info, problems, err := s.info(id)
	if err != nil {
		return nil, err
	}
	rep.Problems = appendNew(rep.Problems, problems...)
	g := &gcSession{id: id, info: info}
	if opts.DryRun {
		g.bytes = ls.bytes - trimmed
	} else if ls, err = scan(dir); err == nil {
		g.bytes = ls.bytes
	}
	return g, nil
}

// gcRemove removes one session under its lock, unless it got a new
// checkpoint since GC read it; it returns the bytes freed.
func (s *Store) gcRemove(ctx context.Context, g *gcSession, reason string, dry bool, rep *GCReport) int64 {
	dir := s.sessionDir(g.id)
	if !dry {
		unlock, err := s.lock(ctx, dir, false)
		if err != nil {
			return 0
		}
		defer unlock()
	}
	ls, err := scan(dir)
	if err != nil {
		return 0
	}
	if cur, _ := s.latest(g.id, dir, ls.seqs); cur == nil || !cur.Timestamp.Equal(g.info.Updated) || cur.Seq != g.info.LatestSeq {
		return 0 // a new checkpoint arrived: the session is in use
	}
	res := s.removeSession(g.id, dir, ls, dry)
	rep.Problems = appendNew(rep.Problems, res.Left...)
	freed := res.Bytes
	if len(res.Left) == 0 {
		freed = g.bytes
	}
	rep.Removed = append(rep.Removed, Collected{SessionID: g.id, State: g.info.State, Updated: g.info.Updated, Bytes: freed, Reason: reason, Left: len(res.Left)})
	return freed
}

// appendNew appends the problems not already in ps.
func appendNew(ps []Problem, more ...Problem) []Problem {
	for _, p := range more {
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	return ps
}
