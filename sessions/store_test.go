package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxd/ctxd"
)

func TestSaveRestoreListTimeline(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	for seq := 1; seq <= 3; seq++ {
		cp, err := s.Save(ctx, sample("alpha", 0, 10, 4, fmt.Sprint("a", seq)))
		if err != nil {
			t.Fatal(err)
		}
		if cp.Seq != seq || !strings.HasPrefix(cp.Checksum, "sha256:") {
			t.Fatalf("save %d: got seq %d checksum %q", seq, cp.Seq, cp.Checksum)
		}
	}
	later := sample("beta", 0, 4, 2, "b")
	later.Timestamp = base.Add(365 * 24 * 3600e9)
	later.State = StateCompleted
	if _, err := s.Save(ctx, later); err != nil {
		t.Fatal(err)
	}

	r, err := s.Restore(ctx, "alpha", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoint.Seq != 3 || !strings.Contains(r.Checkpoint.UserRequest, "a3") || r.Path != filepath.Join(s.Dir(), "alpha", "000003.json") {
		t.Errorf("latest: seq %d request %q path %s", r.Checkpoint.Seq, r.Checkpoint.UserRequest, r.Path)
	}
	r2, err := s.Restore(ctx, "alpha", 2)
	if err != nil || r2.Checkpoint.Seq != 2 || !strings.Contains(r2.Checkpoint.UserRequest, "a2") {
		t.Fatalf("restore 2: %v %+v", err, r2)
	}
	if !bytes.Equal(mustEncode(t, r2.Checkpoint), mustEncode(t, sampleAs(t, "alpha", 2, "a2"))) {
		t.Error("restored checkpoint 2 differs from what was saved")
	}

	l, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range l.Sessions {
		ids = append(ids, in.SessionID)
	}
	if fmt.Sprint(ids) != "[beta alpha]" || len(l.Problems) != 0 {
		t.Fatalf("list: %v problems %v", ids, l.Problems)
	}
	a := l.Sessions[1]
	if a.LatestSeq != 3 || a.Checkpoints != 3 || a.State != StateRunning || a.HistoryMessages != 10 || a.ContextSummary.ChunksIncluded != 4 || a.Bytes == 0 {
		t.Errorf("alpha info: %+v", a)
	}

	tl, err := s.Timeline(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for _, e := range tl.Entries {
		seqs = append(seqs, e.Seq)
	}
	if fmt.Sprint(seqs) != "[1 2 3]" || len(tl.Problems) != 0 || tl.Entries[0].Chunks != 4 {
		t.Errorf("timeline: %+v", tl)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), gitignoreName)); err != nil {
		t.Errorf("the store has no .gitignore: %v", err)
	}
}

// sampleAs is sample as the store saves it: numbered seq, tagged tag.
func sampleAs(t *testing.T, id string, seq int, tag string) *Checkpoint {
	t.Helper()
	cp := sample(id, 0, 10, 4, tag)
	cp.Seq = seq
	return cp
}

func TestAppendSeesPrevious(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	var prevs []int
	for i := range 3 {
		_, err := s.Append(ctx, "s", func(prev *Checkpoint, seq int) (*Checkpoint, error) {
			if prev != nil {
				prevs = append(prevs, prev.Seq)
			}
			if seq != i+1 {
				t.Errorf("seq %d, want %d", seq, i+1)
			}
			cp := sample("ignored", 0, 2, 1, "p")
			return cp, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(prevs) != "[1 2]" {
		t.Errorf("prev seqs %v", prevs)
	}
	wantErr := errors.New("refused")
	if _, err := s.Append(ctx, "s", func(*Checkpoint, int) (*Checkpoint, error) { return nil, wantErr }); !errors.Is(err, wantErr) {
		t.Errorf("an update's error: got %v", err)
	}
	if _, err := s.Create(ctx, sample("s", 0, 1, 0, "dup")); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("Create on an existing session: %v", err)
	}
	if _, err := s.Save(ctx, &Checkpoint{SessionID: "s", State: "paused"}); !errors.Is(err, ctxd.ErrInvalidParams) {
		t.Errorf("saving a bad state: %v", err)
	}
	if tl, _ := s.Timeline(ctx, "s"); len(tl.Entries) != 3 {
		t.Errorf("failed saves left files: %d entries", len(tl.Entries))
	}
}

func TestMissingIsNotFound(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	if l, err := s.List(ctx); err != nil || len(l.Sessions) != 0 {
		t.Fatalf("listing a store that does not exist: %v %+v", err, l)
	}
	if _, err := s.Save(ctx, sample("here", 0, 1, 1, "x")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		want error
		says string
	}{
		{"restore missing session", func() error { _, err := s.Restore(ctx, "nope", 0); return err }, ctxd.ErrNotFound, "nope"},
		{"restore missing seq", func() error { _, err := s.Restore(ctx, "here", 9); return err }, ctxd.ErrNotFound, "checkpoints 1..1"},
		{"restore seq of missing session", func() error { _, err := s.Restore(ctx, "nope", 9); return err }, ctxd.ErrNotFound, "does not exist"},
		{"timeline missing", func() error { _, err := s.Timeline(ctx, "nope"); return err }, ctxd.ErrNotFound, "nope"},
		{"delete missing", func() error { _, err := s.Delete(ctx, "nope"); return err }, ctxd.ErrNotFound, "nope"},
		{"restore bad id", func() error { _, err := s.Restore(ctx, "../here", 0); return err }, ctxd.ErrInvalidParams, "session id"},
		{"restore negative", func() error { _, err := s.Restore(ctx, "here", -1); return err }, ctxd.ErrInvalidParams, "negative"},
		{"save bad id", func() error { _, err := s.Save(ctx, sample("a/b", 0, 1, 1, "x")); return err }, ctxd.ErrInvalidParams, "session id"},
		{"timeline bad id", func() error { _, err := s.Timeline(ctx, ""); return err }, ctxd.ErrInvalidParams, "session id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("got %v, want %v saying %q", err, tt.want, tt.says)
			}
		})
	}
}

// damage functions turn a good checkpoint file into a bad one.
var damages = []struct {
	name   string
	damage func([]byte) []byte
	reason string
}{
	{"truncated", func(b []byte) []byte { return b[:len(b)/3] }, "not valid JSON"},
	{"empty", func([]byte) []byte { return nil }, "empty"},
	{"bit flip", func(b []byte) []byte { b = bytes.Clone(b); b[len(b)/2] ^= 0x20; return b }, "checksum mismatch"},
	{"garbage", func([]byte) []byte { return []byte("\x00\x01binary junk") }, "not valid JSON"},
	{"other session", func(b []byte) []byte { return nil }, "holds session"},
}

func TestCorruptFilesAreReportedSkippedAndKept(t *testing.T) {
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			ctx := t.Context()
			s := openStore(t, Options{})
			for range 2 {
				if _, err := s.Save(ctx, sample("broken", 0, 3, 2, "b")); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Save(ctx, sample("fine", 0, 3, 2, "f")); err != nil {
				t.Fatal(err)
			}
			bad := filepath.Join(s.Dir(), "broken", "000002.json")
			data, err := os.ReadFile(bad)
			if err != nil {
				t.Fatal(err)
			}
			damaged := d.damage(data)
			if d.name == "other session" {
				damaged = mustEncode(t, sampleAs(t, "fine", 2, "moved"))
			}
			if err := os.WriteFile(bad, damaged, 0o600); err != nil {
				t.Fatal(err)
			}

			l, err := s.List(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Sessions) != 2 {
				t.Fatalf("sessions listed: %+v", l.Sessions)
			}
			if len(l.Problems) != 1 || l.Problems[0].Path != bad || !strings.Contains(l.Problems[0].Reason, d.reason) {
				t.Fatalf("problems %+v, want %s: %s", l.Problems, bad, d.reason)
			}
			for _, in := range l.Sessions {
				if in.SessionID == "broken" && (in.LatestSeq != 1 || in.Checkpoints != 2) {
					t.Errorf("broken lists seq %d of %d files, want the last good one (1) of 2", in.LatestSeq, in.Checkpoints)
				}
			}

			r, err := s.Restore(ctx, "broken", 0)
			if err != nil || r.Checkpoint.Seq != 1 || len(r.Problems) != 1 {
				t.Fatalf("restore latest: %v %+v", err, r)
			}
			if _, err := s.Restore(ctx, "broken", 2); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), bad) {
				t.Errorf("restore of the bad file: %v", err)
			}
			tl, err := s.Timeline(ctx, "broken")
			if err != nil || len(tl.Entries) != 2 || tl.Entries[1].Problem == "" || len(tl.Problems) != 1 {
				t.Fatalf("timeline: %v %+v", err, tl)
			}

			// The next save takes a new number and leaves the bad file.
			cp, err := s.Save(ctx, sample("broken", 0, 3, 2, "b3"))
			if err != nil || cp.Seq != 3 {
				t.Fatalf("save after damage: %v seq %d", err, cp.Seq)
			}
			res, err := s.Delete(ctx, "broken")
			if err != nil {
				t.Fatal(err)
			}
			if res.Removed != 2 || len(res.Left) != 1 || res.Left[0].Path != bad {
				t.Errorf("delete: %+v", res)
			}
			if got, err := os.ReadFile(bad); err != nil || !bytes.Equal(got, damaged) {
				t.Errorf("the damaged file was changed or removed: %v", err)
			}
		})
	}
}

func TestAllCorruptSessionListsOnlyAsProblem(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	if _, err := s.Save(ctx, sample("gone", 0, 1, 1, "g")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, sample("ok", 0, 1, 1, "o")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), "gone", "000001.json"), []byte(`{"schema_version":2,"session_id":"go`), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx)
	if err != nil || len(l.Sessions) != 1 || l.Sessions[0].SessionID != "ok" || len(l.Problems) != 1 {
		t.Fatalf("list: %v %+v", err, l)
	}
	if _, err := s.Restore(ctx, "gone", 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("restore: %v", err)
	}
}

func TestTempFilesAreNeverLoaded(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	for range 2 {
		if _, err := s.Save(ctx, sample("t", 0, 2, 1, "t")); err != nil {
			t.Fatal(err)
		}
	}
	// A complete, valid checkpoint 3 that a writer wrote but did not
	// publish before it died.
	orphan := filepath.Join(s.Dir(), "t", tempPrefix+"3-12345")
	if err := os.WriteFile(orphan, mustEncode(t, sampleAs(t, "t", 3, "unpublished")), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := s.Restore(ctx, "t", 0)
	if err != nil || r.Checkpoint.Seq != 2 {
		t.Fatalf("restore: %v %+v", err, r)
	}
	if l, _ := s.List(ctx); l.Sessions[0].LatestSeq != 2 || l.Sessions[0].Checkpoints != 2 {
		t.Errorf("list: %+v", l.Sessions[0])
	}
	if tl, _ := s.Timeline(ctx, "t"); len(tl.Entries) != 2 {
		t.Errorf("timeline has %d entries", len(tl.Entries))
	}
	cp, err := s.Save(ctx, sample("t", 0, 2, 1, "next"))
	if err != nil || cp.Seq != 3 || strings.Contains(cp.UserRequest, "unpublished") {
		t.Fatalf("save: %v %+v", err, cp)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphan is still there after a save under the lock: %v", err)
	}
}

func TestRetentionKeepsNewestAndCorrupt(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{Keep: 3})
	for i := range 4 {
		if _, err := s.Save(ctx, sample("r", 0, 1, 1, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(s.Dir(), "r")
	if got := files(t, dir); fmt.Sprint(got) != "[000002.json 000003.json 000004.json lock]" {
		t.Fatalf("after 4 saves with keep 3: %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "000002.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Save(ctx, sample("r", 0, 1, 1, fmt.Sprint("more", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := files(t, dir); fmt.Sprint(got) != "[000002.json 000005.json 000006.json 000007.json lock]" {
		t.Errorf("retention removed a corrupt file or kept too many: %v", got)
	}

	all := openStore(t, Options{Keep: -1})
	for range 60 {
		if _, err := all.Save(ctx, sample("k", 0, 1, 0, "k")); err != nil {
			t.Fatal(err)
		}
	}
	if tl, _ := all.Timeline(ctx, "k"); len(tl.Entries) != 60 {
		t.Errorf("keep -1 kept %d of 60", len(tl.Entries))
	}
	def := openStore(t, Options{})
	for range DefaultKeep + 2 {
		if _, err := def.Save(ctx, sample("d", 0, 1, 0, "d")); err != nil {
			t.Fatal(err)
		}
	}
	if tl, _ := def.Timeline(ctx, "d"); len(tl.Entries) != DefaultKeep || tl.Entries[0].Seq != 3 {
		t.Errorf("default keep: %d entries from %d", len(tl.Entries), tl.Entries[0].Seq)
	}
}

func TestV1FileInStore(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	data, err := os.ReadFile(filepath.Join("testdata", "v1_seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir(), "session_abc123")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "000001.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := s.List(ctx)
	if err != nil || len(l.Sessions) != 1 || l.Sessions[0].UserRequest != "add user authentication" || len(l.Problems) != 0 {
		t.Fatalf("list: %v %+v", err, l)
	}
	r, err := s.Restore(ctx, "session_abc123", 0)
	if err != nil || r.MigratedFrom != 1 || r.Checkpoint.Seq != 1 || len(r.Checkpoint.Chunks) != 2 {
		t.Fatalf("restore: %v %+v", err, r)
	}
	cp, err := s.Append(ctx, "session_abc123", func(prev *Checkpoint, _ int) (*Checkpoint, error) {
		next := *prev
		next.Timestamp = base
		next.State = StateCompleted
		return &next, nil
	})
	if err != nil || cp.Seq != 2 || cp.HistoryLen() != 2 {
		t.Fatalf("append on a v1 session: %v %+v", err, cp)
	}
	tl, err := s.Timeline(ctx, "session_abc123")
	if err != nil || len(tl.Entries) != 2 || tl.Entries[0].MigratedFrom != 1 || tl.Entries[1].MigratedFrom != 0 {
		t.Fatalf("timeline: %v %+v", err, tl)
	}
}

// TestConcurrentWritersInProcess saves from several goroutines through
// several Store values on one directory: every save gets its own number.
func TestConcurrentWritersInProcess(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "sessions")
	const writers, each = 4, 12
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		s, err := Open(dir, Options{Keep: -1})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			for i := range each {
				if _, err := s.Save(ctx, sample("shared", 0, 3, 1, fmt.Sprintf("w%d-%d", w, i))); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, _ := Open(dir, Options{})
	tl, err := s.Timeline(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, e := range tl.Entries {
		if e.Seq != i+1 || e.Problem != "" {
			t.Errorf("entry %d: seq %d problem %q", i, e.Seq, e.Problem)
		}
		seen[e.UserRequest] = true
	}
	if len(tl.Entries) != writers*each || len(seen) != writers*each {
		t.Errorf("%d entries, %d distinct, want %d", len(tl.Entries), len(seen), writers*each)
	}
}

// TestDeleteWhileSaving deletes a session repeatedly while others save to
// it: a writer that waited on a deleted session's lock starts over, so
// every save succeeds and every file left verifies.
func TestDeleteWhileSaving(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{Keep: -1})
	var wg sync.WaitGroup
	saved := make(chan int, 100)
	for w := range 2 {
		wg.Go(func() {
			for i := range 25 {
				cp, err := s.Save(ctx, sample("churn", 0, 2, 1, fmt.Sprint(w, i)))
				if err != nil {
					t.Errorf("save: %v", err)
					return
				}
				saved <- cp.Seq
			}
		})
	}
	wg.Go(func() {
		for range 15 {
			if _, err := s.Delete(ctx, "churn"); err != nil && !errors.Is(err, ctxd.ErrNotFound) {
				t.Errorf("delete: %v", err)
			}
		}
	})
	wg.Wait()
	close(saved)
	if n := len(saved); n != 50 {
		t.Errorf("%d saves reported, want 50", n)
	}
	if tl, err := s.Timeline(ctx, "churn"); err == nil {
		for _, e := range tl.Entries {
			if e.Problem != "" {
				t.Errorf("checkpoint %d: %s", e.Seq, e.Problem)
			}
		}
	} else if !errors.Is(err, ctxd.ErrNotFound) {
		t.Fatal(err)
	}
	if got := files(t, s.Dir()); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, tempPrefix) }) {
		t.Errorf("temporary files left in the store: %v", got)
	}
}

func TestRestoreRoundTripsHistoryBytes(t *testing.T) {
	ctx := t.Context()
	s := openStore(t, Options{})
	hist := json.RawMessage(`[{"role":"user","content":"<script> & \"x\" é"},{"role":"assistant","content":"ok"}]`)
	cp := sample("h", 0, 0, 0, "h")
	cp.ConversationHistory = hist
	if _, err := s.Save(ctx, cp); err != nil {
		t.Fatal(err)
	}
	r, err := s.Restore(ctx, "h", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Checkpoint.ConversationHistory, hist) {
		t.Errorf("history changed:\n%s\n%s", hist, r.Checkpoint.ConversationHistory)
	}
}

func TestCancelledContext(t *testing.T) {
	s := openStore(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Save(ctx, sample("c", 0, 1, 1, "c")); !errors.Is(err, context.Canceled) {
		t.Errorf("save: %v", err)
	}
	if _, err := s.Restore(ctx, "c", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("restore: %v", err)
	}
}
