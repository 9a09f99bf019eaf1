package index

import (
	"bytes"
	"fmt"
	"slices"
)

// SymbolsVersion is the version of the persisted symbol index (a file
// beside the file facts, usually symbols.idx); another version is rebuilt,
// never read.
const SymbolsVersion = 1

// symbolsMagic opens every symbol index file.
const symbolsMagic = "CTXDSYM\n"

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

// maxSymbolsBytes bounds the symbol index file read.
const maxSymbolsBytes = 1 << 30

// symbolsKey is the sealed-file key of a symbol index: its format version
// and what the entries were computed with.
func symbolsKey(key string) string { return fmt.Sprintf("v%d %s", SymbolsVersion, key) }

// SaveSymbols writes the symbol entries to path as a sealed file
// ([WriteSealed]), sorted by hash, under key (what the entries were
// computed with: the parser's version).
func SaveSymbols(path, key string, entries []*Symbols) error {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b *Symbols) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
	var e encoder
	e.u64(uint64(len(entries)))
	for _, s := range entries {
		e.buf.Write(s.Hash[:])
		encodeSymbol(&e, s)
	}
	if err := WriteSealed(path, symbolsMagic, symbolsKey(key), e.buf.Bytes()); err != nil {
		return fmt.Errorf("save symbol index: %w", err)
	}
	return nil
}

// LoadSymbols reads and verifies the symbol index at path. It fails with
// [ErrCorrupt] when the bytes do not verify and [ErrStale] for another key
// or version; the caller rebuilds in both cases.
func LoadSymbols(path, key string) ([]*Symbols, error) {
	body, err := ReadSealed(path, symbolsMagic, symbolsKey(key), maxSymbolsBytes)
	if err != nil {
		return nil, fmt.Errorf("load symbol index: %w", err)
	}
	return decodeSymbolsBody(body)
}

// decodeSymbols decodes a whole symbol index file's bytes.
func decodeSymbols(b []byte, key string) ([]*Symbols, error) {
	body, err := openSealed(b, symbolsMagic, symbolsKey(key))
	if err != nil {
		return nil, fmt.Errorf("load symbol index: %w", err)
	}
	return decodeSymbolsBody(body)
}

func decodeSymbolsBody(body []byte) ([]*Symbols, error) {
	d := decoder{b: body}
	n := d.count(32 + 3)
	out := make([]*Symbols, 0, n)
	for range n {
		s := &Symbols{}
		copy(s.Hash[:], d.bytes(32))
		decodeSymbol(&d, s)
		if d.err != nil {
			break
		}
		out = append(out, s)
	}
	if d.err != nil {
		return nil, fmt.Errorf("load symbol index: %w: %v", ErrCorrupt, d.err)
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("load symbol index: %w: %d trailing bytes", ErrCorrupt, len(d.b))
	}
	return out, nil
}

// encodeSymbol appends s's encoding but its hash.
func encodeSymbol(e *encoder, s *Symbols) {
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
	e.u64(uint64(len(s.Refs)))
	for _, r := range s.Refs {
		e.str(r)
	}
}

// decodeSymbol decodes what encodeSymbol wrote into s.
func decodeSymbol(d *decoder, s *Symbols) {
	s.Language = d.str()
	if nd := d.count(6); nd > 0 {
		s.Defs = make([]Def, nd)
		for i := range s.Defs {
			df := &s.Defs[i]
			df.Name = d.str()
			df.Parent = d.str()
			df.Kind = d.str()
			df.Line = int(d.u64())
			df.End = int(d.u64())
			df.Signature = d.str()
		}
	}
	if nr := d.count(1); nr > 0 {
		s.Refs = make([]string, nr)
		for i := range s.Refs {
			s.Refs[i] = d.str()
		}
	}
}

// EncodeSymbols returns one entry's encoding, without its hash (a
// record's key), for a record file ([Records]).
func EncodeSymbols(s *Symbols) []byte {
	var e encoder
	encodeSymbol(&e, s)
	return e.buf.Bytes()
}

// DecodeSymbols decodes what [EncodeSymbols] wrote, the entry of hash. A
// malformed encoding returns an error wrapping [ErrCorrupt].
func DecodeSymbols(hash [32]byte, b []byte) (*Symbols, error) {
	d := decoder{b: b}
	s := &Symbols{Hash: hash}
	decodeSymbol(&d, s)
	if d.err == nil && len(d.b) != 0 {
		return nil, fmt.Errorf("decode symbols: %w: %d trailing bytes", ErrCorrupt, len(d.b))
	}
	if d.err != nil {
		return nil, fmt.Errorf("decode symbols: %w: %v", ErrCorrupt, d.err)
	}
	return s, nil
}
