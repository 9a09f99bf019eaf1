package symbols

import (
	"slices"

	"github.com/ctxd/ctxd/graph"
	"github.com/ctxd/ctxd/index"
)

// Table is a set of files' definitions and references as the file graph
// reads them (graph.References): per file, the sorted unique FNV-1a hashes
// of the names it defines and of the identifiers it uses, exact (no
// stemming: a use meets only a definition of the same spelling).
type Table struct {
	defs, uses [][]uint32
	groups     []int32
}

var (
	_ graph.SymbolTable = (*Table)(nil)
	_ graph.Grouped     = (*Table)(nil)
)

// NewTable makes the table of entries, one per file (nil for a file
// without an entry). Files link only within a language family (Go to Go,
// JavaScript and TypeScript together, C and C++ together, ...).
func NewTable(entries []*index.Symbols) *Table {
	t := &Table{defs: make([][]uint32, len(entries)), uses: make([][]uint32, len(entries)), groups: make([]int32, len(entries))}
	for i, e := range entries {
		if e == nil {
			t.groups[i] = -1
			continue
		}
		t.groups[i] = family(e.Language)
		ds := make([]uint32, 0, len(e.Defs))
		for _, d := range e.Defs {
			ds = append(ds, hashName(d.Name))
		}
		slices.Sort(ds)
		t.defs[i] = slices.Compact(ds)
		us := make([]uint32, len(e.Refs))
		for j, r := range e.Refs {
			us[j] = hashName(r)
		}
		slices.Sort(us)
		t.uses[i] = slices.Compact(us)
	}
	return t
}

// Len is the number of files.
func (t *Table) Len() int { return len(t.defs) }

// Defines returns the hashes of the names file i defines.
func (t *Table) Defines(i int) []uint32 { return t.defs[i] }

// Uses returns the hashes of the identifiers file i uses.
func (t *Table) Uses(i int) []uint32 { return t.uses[i] }

// Group returns file i's language family (-1 without an entry).
func (t *Table) Group(i int) int32 { return t.groups[i] }

// family numbers the language families whose files reference each other.
func family(lang string) int32 {
	switch lang {
	case "javascript", "typescript", "tsx":
		return 1
	case "c", "cpp":
		return 2
	case "java", "kotlin":
		return 3
	}
	return int32(hashName(lang) & 0x7fffffff)
}

// hashName is 32-bit FNV-1a.
func hashName(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
