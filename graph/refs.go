package graph

import (
	"math"
	"slices"
)

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

// Grouped is implemented by symbol tables whose files fall in groups that
// never reference each other (languages): [References] links only files
// of one group.
type Grouped interface {
	Group(i int) int32
}

// RefOptions tune [References].
type RefOptions struct {
	// MaxDefiners: a name defined in more files than this says nothing
	// about which one a use means (0: 3; at most 4).
	MaxDefiners int
	// MaxUsers: a name used by more files than this is too common to link
	// them (0: 50).
	MaxUsers int
	// PerFile caps the definers one file is linked to, strongest first
	// (0: 16).
	PerFile int
	// Reverse is the weight of the definer→user edge relative to the
	// user→definer one (0: none).
	Reverse float32
}

// refName is one name's definers and its number of users.
type refName struct {
	defs  [4]int32
	nd    int8 // definers; -1 when too many
	users int32
}

// References returns the edges from each file to the files that define a
// rare name it uses: a name defined in at most MaxDefiners files and used
// in at most MaxUsers. One use of a name weighs 1/definers, less the more
// files use it (1/log2(1+users)), so a file that uses a name only it and
// one other file know is linked strongly to the definer. A file's edges
// to one definer add up, and only its PerFile strongest are kept.
func References(t SymbolTable, opts RefOptions) Source {
	return SourceFunc(func(add func(from, to int32, w float32)) {
		n := t.Len()
		if opts.MaxDefiners <= 0 {
			opts.MaxDefiners = 3
		}
		opts.MaxDefiners = min(opts.MaxDefiners, 4)
		if opts.MaxUsers <= 0 {
			opts.MaxUsers = 50
		}
		if opts.PerFile <= 0 {
			opts.PerFile = 16
		}
		// Who defines each name.
		index := map[uint32]int32{}
		var names []refName
		for i := range n {
			for _, h := range t.Defines(i) {
				k, ok := index[h]
				if !ok {
					k = int32(len(names))
					index[h] = k
					names = append(names, refName{})
				}
				nm := &names[k]
				switch {
				case nm.nd < 0:
				case int(nm.nd) >= opts.MaxDefiners:
					nm.nd = -1
				default:
					nm.defs[nm.nd] = int32(i)
					nm.nd++
				}
			}
		}
		if len(names) == 0 {
			return
		}
		// A filter in front of the map: most used names are defined
		// nowhere in the tree (keywords, library names).
		const bits = 1 << 22
		filter := make([]uint64, bits/64)
		slot := func(h uint32) uint32 { return (h * 0x9E3779B1) >> 10 }
		for h, k := range index {
			if names[k].nd > 0 {
				s := slot(h)
				filter[s/64] |= 1 << (s % 64)
			}
		}
		lookup := func(h uint32) *refName {
			s := slot(h)
			if filter[s/64]&(1<<(s%64)) == 0 {
				return nil
			}
			k, ok := index[h]
			if !ok || names[k].nd <= 0 {
				return nil
			}
			return &names[k]
		}
		for i := range n {
			for _, h := range t.Uses(i) {
				if nm := lookup(h); nm != nil {
					nm.users++
				}
			}
		}
		group := func(int) int32 { return 0 }
		if gt, ok := t.(Grouped); ok {
			group = gt.Group
		}
		acc := make([]float32, n)
		var touched []int32
		for i := range n {
			gi := group(i)
			for _, h := range t.Uses(i) {
				nm := lookup(h)
				if nm == nil || int(nm.users) > opts.MaxUsers {
					continue
				}
				w := float32(1 / (float64(nm.nd) * math.Log2(1+float64(nm.users))))
				for _, d := range nm.defs[:nm.nd] {
					if d != int32(i) && group(int(d)) == gi {
						if acc[d] == 0 {
							touched = append(touched, d)
						}
						acc[d] += w
					}
				}
			}
			if len(touched) > opts.PerFile {
				slices.SortFunc(touched, func(a, b int32) int {
					switch {
					case acc[a] > acc[b]:
						return -1
					case acc[a] < acc[b]:
						return 1
					}
					return int(a - b)
				})
				for _, d := range touched[opts.PerFile:] {
					acc[d] = 0
				}
				touched = touched[:opts.PerFile]
			}
			for _, d := range touched {
				add(int32(i), d, acc[d])
				if opts.Reverse > 0 {
					add(d, int32(i), acc[d]*opts.Reverse)
				}
				acc[d] = 0
			}
			touched = touched[:0]
		}
	})
}
