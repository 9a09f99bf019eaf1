//go:build linux && cgo

package cmem

/*
#include <malloc.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define CTXD_MALLINFO2 1
#endif

// ctxdMallinfo reports glibc's C heap over all arenas: the bytes in use
// (small and mmapped chunks) and the bytes held from the system. 0 where
// there is no mallinfo2 (musl, glibc before 2.33).
static int ctxdMallinfo(size_t *inuse, size_t *held) {
#ifdef CTXD_MALLINFO2
	struct mallinfo2 m = mallinfo2();
	*inuse = m.uordblks + m.hblkhd;
	*held = m.arena + m.hblkhd;
	return 1;
#else
	return 0;
#endif
}

static int ctxdTrim(void) {
#ifdef __GLIBC__
	return malloc_trim(0);
#else
	return 0;
#endif
}
*/
import "C"

// Stats returns the C heap's bytes in use and held from the system, and
// whether the C library reports them (glibc 2.33 and later).
func Stats() (inuse, held uint64, ok bool) {
	var u, h C.size_t
	if C.ctxdMallinfo(&u, &h) == 0 {
		return 0, 0, false
	}
	return uint64(u), uint64(h), true
}

// trims: Trim gives memory back here.
const trims = true

// Trim gives the C heap's free pages back to the system (glibc's
// malloc_trim: every arena's free chunks, not only the top of the heap).
func Trim() {
	C.ctxdTrim()
}
