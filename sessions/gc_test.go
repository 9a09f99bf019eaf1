package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const day = 24 * time.Hour

// gcFixture builds a store whose sessions were last saved at the given
// ages before now, each with two checkpoints.
func gcFixture(t *testing.T, now time.Time, ages map[string]time.Duration, states map[string]State) *Store {
	t.Helper()
	s := openStore(t, Options{})
	for id, age := range ages {
		for i := range 2 {
			cp := sample(id, 0, 30, 5, fmt.Sprint(id, i))
			cp.Timestamp = now.Add(-age - time.Duration(1-i)*time.Minute)
			if st, ok := states[id]; ok {
				cp.State = st
			}
			if _, err := s.Save(t.Context(), cp); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func removedIDs(rep *GCReport) []string {
	var ids []string
	for _, r := range rep.Removed {
		ids = append(ids, r.SessionID)
	}
	sort.Strings(ids)
	return ids
}

func listedIDs(t *testing.T, s *Store) []string {
	t.Helper()
	l, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range l.Sessions {
		ids = append(ids, in.SessionID)
	}
	sort.Strings(ids)
	return ids
}

func TestGCByAge(t *testing.T) {
	now := base.Add(90 * day)
	ages := map[string]time.Duration{"old-done": 40 * day, "old-running": 31 * day, "young-running": 2 * day, "young-done": 29 * day}
	states := map[string]State{"old-done": StateCompleted, "young-done": StateCompleted}
	s := gcFixture(t, now, ages, states)
	// An old session with a corrupt checkpoint: its good files go, the bad
	// one stays with the directory.
	for i := range 2 {
		cp := sample("old-damaged", 0, 3, 1, fmt.Sprint(i))
		cp.Timestamp = now.Add(-50*day + time.Duration(i)*time.Minute)
		if _, err := s.Save(t.Context(), cp); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(s.Dir(), "old-damaged", "000001.json")
	if err := os.WriteFile(bad, []byte(`{"schema_version":2`), 0o600); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(s.Dir(), "young-running", tempPrefix+"9-1")
	if err := os.WriteFile(orphan, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}

	opts := GCOptions{MaxAge: 30 * day, Now: now, DryRun: true}
	dry, err := s.GC(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"old-damaged", "old-done", "old-running"}
	if got := removedIDs(dry); !cmp.Equal(got, want) {
		t.Errorf("dry run would remove %v, want %v", got, want)
	}
	if got := listedIDs(t, s); len(got) != 5 {
		t.Fatalf("a dry run removed sessions: %v", got)
	}
	if dry.TempFiles != 1 {
		t.Errorf("dry run found %d temp files, want 1", dry.TempFiles)
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Errorf("a dry run removed a temp file: %v", err)
	}

	opts.DryRun = false
	rep, err := s.GC(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(dry.Removed, rep.Removed); d != "" {
		t.Errorf("the dry run differs from the run (-dry +run):\n%s", d)
	}
	if got := listedIDs(t, s); !cmp.Equal(got, []string{"young-done", "young-running"}) {
		t.Errorf("left %v", got)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("gc removed a corrupt file: %v", err)
	}
	if len(rep.Problems) == 0 || !strings.Contains(fmt.Sprint(rep.Problems), bad) {
		t.Errorf("gc did not report the corrupt file: %+v", rep.Problems)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("gc left the orphaned temp file: %v", err)
	}
	for _, r := range rep.Removed {
		if (r.SessionID == "old-damaged") != (r.Left == 1) {
			t.Errorf("%s: %d files left", r.SessionID, r.Left)
		}
	}
	if rep.Kept != 2 || rep.BytesAfter >= rep.BytesBefore {
		t.Errorf("kept %d, bytes %d -> %d", rep.Kept, rep.BytesBefore, rep.BytesAfter)
	}
}

func TestGCBySize(t *testing.T) {
	now := base.Add(90 * day)
	ages := map[string]time.Duration{"a-running": 20 * day, "b-failed": 10 * day, "c-done": 5 * day, "d-running": 1 * day, "e-done": 1 * time.Hour}
	states := map[string]State{"b-failed": StateFailed, "c-done": StateCompleted, "e-done": StateCompleted}
	s := gcFixture(t, now, ages, states)
	l, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var total, one int64
	for _, in := range l.Sessions {
		total += in.Bytes
		one = max(one, in.Bytes)
	}
	// Room for three sessions: two must go, oldest first, and the running
	// ones are young enough to be protected.
	opts := GCOptions{MaxAge: 30 * day, MaxBytes: total - 2*one + one/2, Now: now}
	dry := opts
	dry.DryRun = true
	d, err := s.GC(t.Context(), dry)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.GC(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b-failed", "c-done"}
	if got := removedIDs(rep); !cmp.Equal(got, want) {
		t.Errorf("removed %v, want %v (oldest non-running first)", got, want)
	}
	if !cmp.Equal(removedIDs(d), want) {
		t.Errorf("dry run: %v", removedIDs(d))
	}
	if rep.BytesAfter > opts.MaxBytes {
		t.Errorf("bytes after %d over the cap %d", rep.BytesAfter, opts.MaxBytes)
	}
	// A cap nothing can meet removes every session that is not protected,
	// and never a running one younger than the age.
	rep, err = s.GC(t.Context(), GCOptions{MaxAge: 30 * day, MaxBytes: 1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := listedIDs(t, s); !cmp.Equal(got, []string{"a-running", "d-running"}) {
		t.Errorf("left %v", got)
	}
	if rep.Kept != 2 {
		t.Errorf("kept %d", rep.Kept)
	}
}

func TestGCKeep(t *testing.T) {
	s := openStore(t, Options{Keep: -1})
	for i := range 8 {
		if _, err := s.Save(t.Context(), sample("long", 0, 2, 1, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	dry, err := s.GC(t.Context(), GCOptions{Keep: 3, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Trimmed) != 1 || dry.Trimmed[0].Checkpoints != 5 {
		t.Fatalf("dry trim: %+v", dry.Trimmed)
	}
	if tl, _ := s.Timeline(t.Context(), "long"); len(tl.Entries) != 8 {
		t.Fatalf("a dry run trimmed: %d entries", len(tl.Entries))
	}
	rep, err := s.GC(t.Context(), GCOptions{Keep: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(dry.Trimmed, rep.Trimmed); d != "" {
		t.Errorf("trim differs from the dry run:\n%s", d)
	}
	tl, err := s.Timeline(t.Context(), "long")
	if err != nil || len(tl.Entries) != 3 || tl.Entries[0].Seq != 6 {
		t.Errorf("after trim: %v %+v", err, tl)
	}
	if _, err := s.GC(t.Context(), GCOptions{Keep: -1}); err == nil {
		t.Error("negative keep accepted")
	}
}
