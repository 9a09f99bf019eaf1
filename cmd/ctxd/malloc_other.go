//go:build !linux || !cgo

package main

// capMallocArenas does nothing but on Linux with cgo (see malloc_linux.go).
func capMallocArenas() {}
