package index

import (
	"fmt"

	"github.com/ctxd/ctxd/internal/uvarint"
)

// SymbolsVersion is the version of a symbol entry's encoding
// ([EncodeSymbols]), part of the key of the record file that persists
// them: another version is rebuilt, never read.
const SymbolsVersion = 1

// Def is one definition of a file, as a symbol index keeps it.
type Def struct {
	Name   string
	Parent string // enclosing type ("Server" for Server.Shutdown), or ""
	Kind   string // function, method, class, type, const, ...
	Line   int    // 1-based first line
	End    int    // 1-based last line
	// Signature is the declaration up to its body, on one line.
	Signature string
}

// Symbols is what a file's bytes yield for the symbol index: its
// definitions and the identifiers it uses. It depends on the content only
// (and the parser), so it is stored once per content hash.
type Symbols struct {
	Hash     [32]byte // SHA-256 of the bytes
	Language string
	Defs     []Def
	Refs     []string // sorted, unique
}

// EncodeSymbols returns one entry's encoding, without its hash (a
// record's key), for a record file ([Records]).
func EncodeSymbols(s *Symbols) []byte {
	var e encoder
	e.str(s.Language)
	e.u64(uint64(len(s.Defs)))
	for _, d := range s.Defs {
		e.str(d.Name)
		e.str(d.Parent)
		e.str(d.Kind)
		e.u64(uint64(d.Line))
		e.u64(uint64(d.End))
		e.str(d.Signature)
	}
	e.strs(s.Refs)
	return e.buf.Bytes()
}

// DecodeSymbols decodes what [EncodeSymbols] wrote, the entry of hash. A
// malformed encoding returns an error wrapping [ErrCorrupt]: the bytes
// come from a file anyone who can write the state directory can change.
func DecodeSymbols(hash [32]byte, b []byte) (*Symbols, error) {
	d := uvarint.NewReader(b)
	s := &Symbols{Hash: hash}
	s.Language = d.Str()
	if nd := d.Count(6); nd > 0 {
		s.Defs = make([]Def, nd)
		for i := range s.Defs {
			df := &s.Defs[i]
			df.Name = d.Str()
			df.Parent = d.Str()
			df.Kind = d.Str()
			df.Line = int(d.Uvarint())
			df.End = int(d.Uvarint())
			df.Signature = d.Str()
		}
	}
	s.Refs = d.Strs()
	if d.Err() != nil {
		return nil, fmt.Errorf("decode symbols: %w: %v", ErrCorrupt, d.Err())
	}
	if d.Len() != 0 {
		return nil, fmt.Errorf("decode symbols: %w: %d trailing bytes", ErrCorrupt, d.Len())
	}
	return s, nil
}
