package sessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSaveReportsRetention: a save past the keep-N retention says which
// checkpoints it removed.
func TestSaveReportsRetention(t *testing.T) {
	st := openStore(t, Options{Keep: 2})
	ctx := context.Background()
	var last *Checkpoint
	var err error
	for i := 0; i < 4; i++ {
		if last, err = st.Save(ctx, crashCheckpoint("keep", 0)); err != nil {
			t.Fatal(err)
		}
	}
	if got := last.RemovedByRetention(); len(got) != 1 || got[0] != 2 {
		t.Errorf("fourth save removed %v, want [2]", got)
	}
}

// TestLegacyFutureTimestamp: a legacy (no checksum) checkpoint claiming a
// timestamp in the future is not the newest: its time is clamped to its
// file's modification time, so a session saved now lists before it.
func TestLegacyFutureTimestamp(t *testing.T) {
	dir := t.TempDir()
	st := openStoreIn(t, dir, Options{})
	data, err := os.ReadFile(filepath.Join("testdata", "v1_seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(data), `"session_id": "session_abc123"`, `"session_id": "forged"`, 1)
	forged = strings.Replace(forged, "2024-01-15T10:30:00Z", "2099-01-01T00:00:00Z", 1)
	if err := os.MkdirAll(filepath.Join(dir, "forged"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "forged", seqName(1))
	if err := os.WriteFile(p, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	saveMineNewest(t, st)
}

// saveMineNewest saves a checkpoint of session "mine" now and checks that
// it lists first, before the one forged session, which claims no time
// after now.
func saveMineNewest(t *testing.T, st *Store) {
	t.Helper()
	ctx := context.Background()
	cp := crashCheckpoint("mine", 0)
	cp.State, cp.Timestamp = StateRunning, time.Time{}
	if _, err := st.Save(ctx, cp); err != nil {
		t.Fatal(err)
	}
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Sessions) != 2 || l.Sessions[0].SessionID != "mine" {
		t.Fatalf("newest first: %+v", l.Sessions)
	}
	if l.Sessions[1].Updated.After(time.Now()) {
		t.Errorf("the forged session claims %v", l.Sessions[1].Updated)
	}
}

// TestFutureTimestampClamped: a checkpoint with a valid checksum (anyone
// can compute one: it is a plain SHA-256, not a signature) claiming a
// timestamp in the future is not the newest either: every checkpoint's
// time is clamped to its file's modification time and to now.
func TestFutureTimestampClamped(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	forger := openStoreIn(t, dir, Options{Now: func() time.Time { return future }})
	cp := crashCheckpoint("forged", 0)
	cp.State, cp.Timestamp = StateRunning, time.Time{}
	saved, err := forger.Save(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !saved.Timestamp.Equal(future) || saved.Checksum == "" {
		t.Fatalf("the forged checkpoint claims %v with checksum %q", saved.Timestamp, saved.Checksum)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "forged", seqName(saved.Seq)), old, old); err != nil {
		t.Fatal(err)
	}
	st := openStoreIn(t, dir, Options{})
	saveMineNewest(t, st)
	r, err := st.Restore(ctx, "forged", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoint.Timestamp.After(time.Now()) {
		t.Errorf("restored forged checkpoint claims %v", r.Checkpoint.Timestamp)
	}
}
