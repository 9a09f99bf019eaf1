package workspace

import (
	"maps"
	"sync"
)

// Buffers are an editor's unsaved texts of a workspace's files, by
// root-relative path: a request reads them instead of the files on disk.
// The zero value is empty and ready; it is safe for concurrent use.
type Buffers struct {
	// mu guards texts.
	mu    sync.Mutex
	texts map[string]string
}

// Set records the unsaved text of rel.
func (b *Buffers) Set(rel, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.texts == nil {
		b.texts = map[string]string{}
	}
	b.texts[rel] = text
}

// Forget drops the unsaved text of rel (the editor closed or saved it).
func (b *Buffers) Forget(rel string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.texts, rel)
}

// Get returns the unsaved text of rel, if any.
func (b *Buffers) Get(rel string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.texts[rel]
	return t, ok
}

// Snapshot returns a copy of every unsaved text, for one request.
func (b *Buffers) Snapshot() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]string, len(b.texts))
	maps.Copy(out, b.texts)
	return out
}
