//go:build !(linux && cgo)

package cmem

// Stats reports nothing without glibc.
func Stats() (inuse, held uint64, ok bool) { return 0, 0, false }

const trims = false

// Trim does nothing without glibc.
func Trim() {}
