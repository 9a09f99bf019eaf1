//go:build linux && cgo

package main

/*
#include <malloc.h>

// capArenas caps glibc's malloc arenas (the C heap of the tree-sitter
// parsers); it does nothing where mallopt has no such setting (musl).
static void capArenas(int n) {
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, n);
#endif
}
*/
import "C"

import "os"

// serveMallocArenas is the daemon's cap on glibc malloc arenas. By default
// glibc makes up to eight per core as threads contend; the C allocations
// of parses on whichever threads cgo calls run spread over them, each
// keeping its freed memory: on stdlib-100k from scratch under load, RSS
// grew ~240 MB above what Go held (peak 597-615 MB), with 2 arenas ~60 MB
// (451 MB). MALLOC_ARENA_MAX, when set, is glibc's own setting and wins.
const serveMallocArenas = 2

// capMallocArenas applies serveMallocArenas unless MALLOC_ARENA_MAX is set.
func capMallocArenas() {
	if os.Getenv("MALLOC_ARENA_MAX") == "" {
		C.capArenas(serveMallocArenas)
	}
}
