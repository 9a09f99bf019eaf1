package testutil

import "sync"

// Records is an in-memory store of byte records by 32-byte key, as the
// stores' record backends are on disk (the tree-sitter store's analyses,
// the token counts' block vectors), for tests. It keeps a copy of what
// is put. Safe for concurrent use.
type Records struct {
	mu sync.Mutex
	m  map[[32]byte][]byte
}

// NewRecords returns an empty Records.
func NewRecords() *Records { return &Records{m: map[[32]byte][]byte{}} }

// Get returns the record of k.
func (r *Records) Get(k [32]byte) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.m[k]
	return b, ok
}

// Has reports whether k has a record.
func (r *Records) Has(k [32]byte) bool { _, ok := r.Get(k); return ok }

// Put records a copy of b under k.
func (r *Records) Put(k [32]byte, b []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[k] = append([]byte(nil), b...)
	return nil
}

// Len is the number of records.
func (r *Records) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}
