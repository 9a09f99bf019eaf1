package tree

import (
	"context"
	"encoding/binary"
	"fmt"
)

// Updated returns a channel closed when a new snapshot of the tree
// replaces the current one: a file was created, edited, removed or
// renamed, as the watcher, a walk or a reconciliation saw it. Take the
// channel before reading what it guards (ContentHashes), so a change in
// between is not missed.
func (w *Tree) Updated() <-chan struct{} {
	w.updMu.Lock()
	defer w.updMu.Unlock()
	if w.upd == nil {
		w.upd = make(chan struct{})
	}
	return w.upd
}

// updated closes the channel of Updated: a new snapshot is in place.
func (w *Tree) updated() {
	w.updMu.Lock()
	defer w.updMu.Unlock()
	if w.upd != nil {
		close(w.upd)
		w.upd = nil
	}
}

// ContentHashes returns a hash of the content of every indexed file of the
// tree (not ignored, not secret, not binary, not over the size cap) by
// root-relative path: the first 8 bytes of its SHA-256, enough to tell a
// changed file and small for a large tree. It refreshes the tree first (a
// followed workspace answers from its events).
func (w *Tree) ContentHashes(ctx context.Context) (map[string]uint64, error) {
	s, err := w.refresh(ctx)
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	m := make(map[string]uint64, len(s.Files))
	for _, f := range s.Files {
		if f.indexed && !f.Secret && !f.binary && !f.tooBig && f.readError() == "" {
			m[f.Rel] = binary.LittleEndian.Uint64(f.hash[:8])
		}
	}
	return m, nil
}
