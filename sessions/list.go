package sessions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
)

// Info describes a session by its newest checkpoint that verifies.
type Info struct {
	SessionID string `json:"session_id"`
	State     State  `json:"state"`
	// Updated is the newest checkpoint's timestamp.
	Updated time.Time `json:"updated"`
	// LatestSeq is the newest checkpoint's number; Checkpoints counts the
	// checkpoint files (corrupt ones included).
	LatestSeq      int           `json:"latest_seq"`
	Checkpoints    int           `json:"checkpoints"`
	TaskType       ctxd.TaskType `json:"task_type"`
	UserRequest    string        `json:"user_request"`
	ContextSummary Summary       `json:"context_summary"`
	// HistoryMessages counts the newest checkpoint's conversation history.
	HistoryMessages int     `json:"history_messages"`
	Parent          *Parent `json:"parent,omitempty"`
	Root            string  `json:"root,omitempty"`
	// Bytes is the size of the session's directory.
	Bytes int64 `json:"bytes"`
}

// Listing is the answer of [Store.List]: sessions newest first, and the
// files that could not be read on the way.
type Listing struct {
	Sessions []Info    `json:"sessions"`
	Problems []Problem `json:"problems"`
}

// List describes every session, newest first (by the newest checkpoint's
// timestamp, then by id). For each session it reads the newest checkpoint
// that verifies; newer files that do not are listed as problems, and a
// session none of whose files verifies appears only there. A store that
// does not exist yet lists nothing.
func (s *Store) List(ctx context.Context) (*Listing, error) {
	out := &Listing{Sessions: []Info{}, Problems: []Problem{}}
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", s.dir, err)
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !e.IsDir() || ctxd.ValidSessionID(e.Name()) != nil {
			continue
		}
		info, problems, err := s.info(e.Name())
		out.Problems = append(out.Problems, problems...)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // deleted while we listed
			}
			out.Problems = append(out.Problems, problem(s.sessionDir(e.Name()), err))
			continue
		}
		if info != nil {
			out.Sessions = append(out.Sessions, *info)
		}
	}
	sortInfos(out.Sessions)
	return out, nil
}

func sortInfos(is []Info) {
	vsort.Func(is, func(a, b Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.SessionID, b.SessionID)
	})
}

// info describes one session; nil when it has no checkpoint that
// verifies.
func (s *Store) info(id string) (*Info, []Problem, error) {
	dir := s.sessionDir(id)
	ls, err := scan(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(ls.seqs) == 0 {
		return nil, ls.odd, nil
	}
	cp, problems := s.latest(id, dir, ls.seqs)
	problems = append(problems, ls.odd...)
	if cp == nil {
		return nil, problems, nil
	}
	return &Info{
		SessionID: id, State: cp.State, Updated: cp.Timestamp,
		LatestSeq: cp.Seq, Checkpoints: len(ls.seqs),
		TaskType: cp.TaskType, UserRequest: cp.UserRequest, ContextSummary: cp.ContextSummary,
		HistoryMessages: cp.HistoryLen(), Parent: cp.Parent, Root: cp.Root, Bytes: ls.bytes,
	}, problems, nil
}

// Entry is one checkpoint of a timeline.
type Entry struct {
	Seq            int           `json:"seq"`
	Timestamp      time.Time     `json:"timestamp"`
	State          State         `json:"state"`
	TaskType       ctxd.TaskType `json:"task_type"`
	UserRequest    string        `json:"user_request"`
	Note           string        `json:"note,omitempty"`
	ContextSummary Summary       `json:"context_summary"`
	// Chunks counts the envelope's chunks; HistoryMessages the
	// conversation history's messages.
	Chunks          int     `json:"chunks"`
	HistoryMessages int     `json:"history_messages"`
	Artifacts       int     `json:"artifacts"`
	Parent          *Parent `json:"parent,omitempty"`
	Bytes           int64   `json:"bytes"`
	MigratedFrom    int     `json:"migrated_from,omitempty"`
	// Problem says why the file could not be read; the other fields are
	// then empty.
	Problem string `json:"problem,omitempty"`
}

// Timeline is a session's checkpoints, oldest first (TimeTraveler's
// get_timeline).
type Timeline struct {
	SessionID string `json:"session_id"`
	// Parent is where the session was forked from, if it was.
	Parent   *Parent   `json:"parent,omitempty"`
	Entries  []Entry   `json:"entries"`
	Problems []Problem `json:"problems"`
}

// Timeline reads every checkpoint of session id, oldest first. Files that
// do not verify are entries with a Problem (and listed in Problems); a
// missing session is an error wrapping ctxd.ErrNotFound.
func (s *Store) Timeline(ctx context.Context, id string) (*Timeline, error) {
	if err := ctxd.ValidSessionID(id); err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	dir := s.sessionDir(id)
	ls, err := scan(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("timeline: session %s: %w", id, ctxd.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("timeline of session %s: %w", id, err)
	}
	if len(ls.seqs) == 0 && len(ls.odd) == 0 {
		return nil, fmt.Errorf("timeline: session %s has no checkpoints: %w", id, ctxd.ErrNotFound)
	}
	tl := &Timeline{SessionID: id, Entries: make([]Entry, 0, len(ls.seqs)), Problems: append([]Problem{}, ls.odd...)}
	for _, seq := range ls.seqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cp, n, err := s.load(id, dir, seq)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by retention meanwhile
		}
		if err != nil {
			p := problem(filepath.Join(dir, seqName(seq)), err)
			tl.Problems = append(tl.Problems, p)
			tl.Entries = append(tl.Entries, Entry{Seq: seq, Bytes: n, Problem: p.Reason})
			continue
		}
		if tl.Parent == nil && cp.Parent != nil {
			tl.Parent = cp.Parent
		}
		tl.Entries = append(tl.Entries, Entry{
			Seq: seq, Timestamp: cp.Timestamp, State: cp.State, TaskType: cp.TaskType,
			UserRequest: cp.UserRequest, Note: cp.Note, ContextSummary: cp.ContextSummary,
			Chunks: len(cp.Chunks), HistoryMessages: cp.HistoryLen(), Artifacts: len(cp.Artifacts),
			Parent: cp.Parent, Bytes: n, MigratedFrom: cp.migratedFrom,
		})
	}
	return tl, nil
}
