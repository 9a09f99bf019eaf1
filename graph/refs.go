package graph

import "math"

// SymbolTable is what [References] reads: per file, the names it defines
// and the names it uses, each as sorted unique 32-bit name hashes (how a
// name is hashed is the table's business, as long as a definition and a use
// of one name hash alike). gather's lexical index implements it with its
// defined-name and content terms; a tree-sitter symbol index can too.
type SymbolTable interface {
	// Len is the number of files.
	Len() int
	// Defines and Uses return file i's hashes; nil when it has none.
	Defines(i int) []uint32
	Uses(i int) []uint32
}

// RefOptions tune [References].
type RefOptions struct {
	// MaxDefiners: a name defined in more files than this says nothing
	// about which one a use means (0: 3).
	MaxDefiners int
	// MaxUsers: a name used by more files than this is too common to link
	// them (0: max(30, files/100)).
	MaxUsers int
}

// References returns the edges from each file to the files that define a
// rare name it uses: a name defined in at most MaxDefiners files and used
// in at most MaxUsers. One use of a name weighs 1/definers, less the more
// files use it (1/log2(1+users)), so a file that uses a name only it and
// one other file know is linked strongly to the definer.
func References(t SymbolTable, opts RefOptions) Source {
	return SourceFunc(func(add func(from, to int32, w float32)) {
		n := t.Len()
		if opts.MaxDefiners <= 0 {
			opts.MaxDefiners = 3
		}
		if opts.MaxUsers <= 0 {
			opts.MaxUsers = max(30, n/100)
		}
		// Who defines each name (too many definers: dropped).
		type name struct {
			defs  []int32
			users int32
		}
		names := map[uint32]*name{}
		var many []uint32
		for i := range n {
			for _, h := range t.Defines(i) {
				nm := names[h]
				if nm == nil {
					nm = &name{}
					names[h] = nm
				}
				if len(nm.defs) <= opts.MaxDefiners {
					nm.defs = append(nm.defs, int32(i))
					if len(nm.defs) > opts.MaxDefiners {
						many = append(many, h)
					}
				}
			}
		}
		for _, h := range many {
			delete(names, h)
		}
		if len(names) == 0 {
			return
		}
		// A filter in front of the map: most used names are defined
		// nowhere in the tree (keywords, library names).
		const bits = 1 << 20
		filter := make([]uint64, bits/64)
		slot := func(h uint32) uint32 { return (h * 0x9E3779B1) >> 12 }
		for h := range names {
			s := slot(h)
			filter[s/64] |= 1 << (s % 64)
		}
		lookup := func(h uint32) *name {
			s := slot(h)
			if filter[s/64]&(1<<(s%64)) == 0 {
				return nil
			}
			return names[h]
		}
		for i := range n {
			for _, h := range t.Uses(i) {
				if nm := lookup(h); nm != nil {
					nm.users++
				}
			}
		}
		for i := range n {
			for _, h := range t.Uses(i) {
				nm := lookup(h)
				if nm == nil || int(nm.users) > opts.MaxUsers {
					continue
				}
				w := float32(1 / (float64(len(nm.defs)) * math.Log2(1+float64(nm.users))))
				for _, d := range nm.defs {
					if d != int32(i) {
						add(int32(i), d, w)
					}
				}
			}
		}
	})
}
