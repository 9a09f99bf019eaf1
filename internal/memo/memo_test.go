package memo

import "testing"

func TestMap(t *testing.T) {
	m := New[int, string](3)
	builds := 0
	get := func(k int) string {
		return m.Get(k, func() string { builds++; return string(rune('a' + k)) })
	}
	for _, k := range []int{0, 1, 0, 2, 1} {
		if got := get(k); got != string(rune('a'+k)) {
			t.Fatalf("Get(%d) = %q", k, got)
		}
	}
	if builds != 3 || m.Len() != 3 {
		t.Fatalf("%d builds, %d entries; want 3, 3", builds, m.Len())
	}
	m.Put(2, "z") // an existing key replaces, no clearing
	if v, _ := m.Lookup(2); v != "z" || m.Len() != 3 {
		t.Fatalf("replace: %q, %d entries", v, m.Len())
	}
	m.Put(9, "j") // full: starts over
	if _, ok := m.Lookup(0); ok || m.Len() != 1 {
		t.Fatalf("a full map did not start over: %d entries", m.Len())
	}
}
