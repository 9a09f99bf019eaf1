//go:build linux && cgo

package main

/*
#include <malloc.h>
#include <stdlib.h>

// ctxdCapArenas caps glibc's malloc arenas (the C heap of the tree-sitter
// parsers) at 2 unless MALLOC_ARENA_MAX is set (glibc's own setting). It
// runs as the program loads: glibc fixes its arena limit the first time a
// thread contends, which cgo's thread starts do before main. Nothing where
// mallopt has no such setting (musl).
__attribute__((constructor)) static void ctxdCapArenas(void) {
#ifdef M_ARENA_MAX
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		mallopt(M_ARENA_MAX, 2);
	}
#endif
}
*/
import "C"

// The cap on glibc malloc arenas (above) is for the daemon: by default
// glibc makes up to eight per core as threads contend, and the C
// allocations of parses on whichever threads cgo calls run spread over
// them, each keeping its freed memory. On stdlib-100k from scratch under
// load, RSS grew ~240 MB above what Go held (peak 597-615 MB); with
// MALLOC_ARENA_MAX=2, ~60 MB (451 MB). The CLI, short-lived, is as well
// served by two.
