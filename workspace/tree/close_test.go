package tree

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/disk"
)

// closeState is a state directory whose index write waits until Close
// begins and whose file graph write takes a while, and which counts the
// graph writes still running.
type closeState struct {
	*disk.Dir
	closing  chan struct{}
	inflight atomic.Int32
	written  atomic.Int32
}

func (s *closeState) SaveIndex(x *index.Snapshot) error {
	<-s.closing
	return s.Dir.SaveIndex(x)
}

func (s *closeState) WriteSealed(name, magic, key string, body []byte) error {
	if name != linksFile {
		return s.Dir.WriteSealed(name, magic, key, body)
	}
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	// A slow disk: the write outlasts Close's own return path.
	time.Sleep(100 * time.Millisecond)
	err := s.Dir.WriteSealed(name, magic, key, body)
	s.written.Add(1)
	return err
}

// TestCloseWaitsForGraphWrites: a file graph still building when Close
// starts (SnapshotAndGit builds one beside a request) is written to the
// state directory before Close returns. Close used to wait for the pending
// writes before the graphs, so a graph finished after that point wrote
// on, and logged, after Close had returned: once after the test that
// closed the workspace had ended (TestIndexInsideRoot under -race).
// Before the fix this test failed 5 runs of 5: "WaitGroup is reused before
// previous Wait has returned", or the graph's write still running.
func TestCloseWaitsForGraphWrites(t *testing.T) {
	root := t.TempDir()
	for i := range 200 {
		writeFile(t, root, fmt.Sprintf("p%d/f%d.go", i%20, i), fmt.Sprintf("package p%d\n\nfunc F%d() int { return G%d() }\n\nfunc G%d() int { return %d }\n", i%20, i, (i+1)%200, i, i))
	}
	state := &closeState{Dir: disk.New(filepath.Join(t.TempDir(), "state")), closing: make(chan struct{})}
	w, err := Open(root, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := w.refresh(t.Context())
	if err != nil {
		close(state.closing)
		w.Close()
		t.Fatal(err)
	}
	// Close's first step stops a prefetch: this one lets the index write
	// (which the walk started) go.
	done := make(chan struct{})
	close(done)
	w.pre = &prefetch{cancel: func() { close(state.closing) }, walked: done, gitDone: done}
	// A file graph as SnapshotAndGit starts one, built once the index
	// write ended: still building when Close has waited for the writes
	// pending as it began.
	w.graphs.Go(func() {
		w.follow.saveWG.Wait()
		snap.Links(context.Background(), w)
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n, m := state.inflight.Load(), state.written.Load(); n != 0 || m != 1 {
		t.Errorf("when Close returned: %d file graph writes running, %d done; want 0 and 1", n, m)
	}
}
