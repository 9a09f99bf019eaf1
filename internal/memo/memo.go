// Package memo is a bounded map of values built once per key, safe for
// concurrent use: the content-hash caches of the compactors, the secret
// scanner and the engine. A full map starts over (clears) rather than
// tracking recency: its keys are content hashes, and a working set that
// outgrows it is rebuilt at the cost of the misses.
package memo

import "sync"

// Map maps keys to values, holding at most max of them.
type Map[K comparable, V any] struct {
	mu  sync.Mutex
	m   map[K]V
	max int
}

// New returns an empty map that holds at most max entries.
func New[K comparable, V any](max int) *Map[K, V] {
	return &Map[K, V]{m: map[K]V{}, max: max}
}

// Lookup returns k's value.
func (m *Map[K, V]) Lookup(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

// Put stores k's value, clearing the map first when it is full.
func (m *Map[K, V]) Put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.m[k]; !ok && len(m.m) >= m.max {
		clear(m.m)
	}
	m.m[k] = v
}

// Get returns k's value, building and storing it when absent. build runs
// without the lock held, so two callers missing one key at once may both
// build it; it must depend on k only.
func (m *Map[K, V]) Get(k K, build func() V) V {
	if v, ok := m.Lookup(k); ok {
		return v
	}
	v := build()
	m.Put(k, v)
	return v
}

// Len returns the number of entries.
func (m *Map[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
