//go:build cgo && !notreesitter

package treesitter

// The walk over a parsed tree runs in C: one cgo call hands back up to
// walkChunk nodes in preorder, where the binding's cursor took six calls and
// a cached Go node each. The declarations below are the tree-sitter API the
// smacker binding compiles and links (its api.h, v0.22); TSNode and
// TSTreeCursor are copied from it, and TestWalkMatchesCursor checks the
// result against the binding's own cursor.

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
extern TSTreeCursor ts_tree_cursor_new(TSNode);
extern void ts_tree_cursor_delete(TSTreeCursor *);
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
extern uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern uint16_t ts_node_symbol(TSNode);
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern bool ts_node_is_missing(TSNode);

// A walk's entry: symbol | field << 16, start, end, depth | parent << 30 | missing << 31.
typedef struct { uint32_t sym, start, end, depth; } ctxd_ent;
typedef struct { TSTreeCursor c; uint32_t depth; int done; } ctxd_walk;

static ctxd_walk *ctxd_walk_new(TSNode root) {
	ctxd_walk *w = calloc(1, sizeof *w);
	if (w) w->c = ts_tree_cursor_new(root);
	return w;
}

static void ctxd_walk_free(ctxd_walk *w) {
	ts_tree_cursor_delete(&w->c);
	free(w);
}

// ctxd_walk_next writes up to n entries in preorder and returns how many.
static int ctxd_walk_next(ctxd_walk *w, ctxd_ent *out, int n) {
	int i = 0;
	while (i < n && !w->done) {
		TSNode sn = ts_tree_cursor_current_node(&w->c);
		ctxd_ent *e = &out[i++];
		e->sym = ts_node_symbol(sn) | (uint32_t)ts_tree_cursor_current_field_id(&w->c) << 16;
		e->start = ts_node_start_byte(sn);
		e->end = ts_node_end_byte(sn);
		e->depth = w->depth | (uint32_t)ts_node_is_missing(sn) << 31;
		if (ts_tree_cursor_goto_first_child(&w->c)) {
			e->depth |= 1u << 30;
			w->depth++;
			continue;
		}
		for (;;) {
			if (w->depth > 0 && ts_tree_cursor_goto_next_sibling(&w->c)) break;
			if (w->depth == 0 || !ts_tree_cursor_goto_parent(&w->c)) { w->done = 1; break; }
			w->depth--;
		}
	}
	return i;
}
*/
import "C"

import (
	"runtime"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// walkChunk is how many nodes one cgo call of walk returns (a variable
// for the tests).
var walkChunk = 4096

// walkEntry is one node of a walk, in preorder.
type walkEntry struct {
	sym    uint16 // the grammar's symbol; 0xFFFF for ERROR
	field  uint16 // field id in the parent, 0 for none
	start  int
	end    int
	depth  int
	parent bool // the node has children
	miss   bool // a MISSING node
}

// walk calls f with every node of root's tree in preorder. root's tree must
// stay open until walk returns.
func walk(t *sitter.Tree, root *sitter.Node, f func(e walkEntry)) {
	// sitter.Node's first field is its C TSNode, copied by value: the Go
	// node also holds a Go pointer, which C must not see.
	w := C.ctxd_walk_new(*(*C.TSNode)(unsafe.Pointer(root)))
	if w == nil {
		panic("treesitter: out of memory")
	}
	defer C.ctxd_walk_free(w)
	p := C.malloc(C.size_t(uintptr(walkChunk) * unsafe.Sizeof(C.ctxd_ent{})))
	if p == nil {
		panic("treesitter: out of memory")
	}
	defer C.free(p)
	buf := unsafe.Slice((*C.ctxd_ent)(p), walkChunk)
	for {
		n := int(C.ctxd_walk_next(w, &buf[0], C.int(walkChunk)))
		for _, ce := range buf[:n] {
			f(walkEntry{
				sym:    uint16(ce.sym),
				field:  uint16(ce.sym >> 16),
				start:  int(ce.start),
				end:    int(ce.end),
				depth:  int(ce.depth & (1<<30 - 1)),
				parent: ce.depth&(1<<30) != 0,
				miss:   ce.depth&(1<<31) != 0,
			})
		}
		if n < walkChunk {
			break
		}
	}
	runtime.KeepAlive(t)
	runtime.KeepAlive(root)
}
