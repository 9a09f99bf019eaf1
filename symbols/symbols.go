// Package symbols is ctxd's symbol index: per source file, the tree-sitter
// definitions (functions, methods, classes, types, constants, with the
// enclosing type of members, so "Server.Shutdown" is a name) and the
// identifiers it references. Entries are keyed by a hash of the language
// and the content, so a file is parsed again only when its bytes change,
// and identical files share one entry. The index persists in the state
// directory as a record file, one entry a record (see [Index.SetRecords];
// the workspace store owns the file; format in package index), and serves two readers:
// symbol lookup (find_symbol) and the matching of a request's identifiers
// against definitions ([Matches]).
//
// Parsing is the cost: the index never parses eagerly. Callers index the
// files they need ([Index.Update] parses the missing ones on GOMAXPROCS
// workers) and the persisted index makes the next process cheap.
package symbols

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/par"
	"github.com/ctxd/ctxd/treesitter"
)

// parserKey names what entries were computed with; an index written by
// another extractor is rebuilt. Bump it when [treesitter.FileTagsStored] changes
// what it returns.
const parserKey = "treesitter-tags/5" // 5: a function assigned to a computed member (app[method] = function) is a definition; 4: a chain of member assignments of one function defines it under every name (res.set = res.header = function header); 3: definitions inside function bodies

// Index is a symbol index. It is safe for concurrent use.
type Index struct {
	// mu guards entries and parsing.
	mu      sync.Mutex
	entries map[[32]byte]*index.Symbols
	// parsing holds the contents being parsed, closed when done: a second
	// file with the same content waits instead of parsing it again.
	parsing map[[32]byte]chan struct{}
	// keys maps a content's SHA-256 and its language to its entry key
	// (see [Index.FileSum]), at most maxSumKeys.
	keys map[sumLang][32]byte

	parses atomic.Int64

	// store, when set, returns the tree-sitter store parses consult and
	// learn (UseStore).
	store atomic.Pointer[func() *treesitter.Store]

	// recs, when not nil, persists the entries one by one (see
	// [Index.SetRecords]): entries is then a bounded cache of them.
	recsMu sync.Mutex
	recs   Records
}

// Records persists entries one at a time, by key, read back when used (the
// workspace store's record file). A record it returns must be the bytes
// put under its key, or nothing.
type Records interface {
	Get(key [32]byte) ([]byte, bool)
	Has(key [32]byte) bool
	Put(key [32]byte, data []byte) error
}

// parserKey and the entry format name the records: another parser's
// entries are rebuilt.
func recordsKey() string { return fmt.Sprintf("symbols/%d %s", index.SymbolsVersion, parserKey) }

// Version names what the index's entries are computed with (the entry
// format and the parser's queries): a record file and a cache derived
// from entries key themselves with it.
func Version() string { return recordsKey() }

// memEntries bounds the entries an index backed by records keeps in
// memory (the others are read again when used). A variable for the tests.
var memEntries = 512

// records returns the record file, nil when there is none.
func (x *Index) records() Records {
	x.recsMu.Lock()
	defer x.recsMu.Unlock()
	return x.recs
}

// HasRecords reports whether records back the index.
func (x *Index) HasRecords() bool { return x.records() != nil }

// SetRecords makes r persist the index's entries, the ones it holds now
// included (an index made before the state directory existed writes them
// there now). It returns the first error of r.Put; r is then not used.
func (x *Index) SetRecords(r Records) error {
	x.mu.Lock()
	es := make([]*index.Symbols, 0, len(x.entries))
	for _, e := range x.entries {
		es = append(es, e)
	}
	x.mu.Unlock()
	x.recsMu.Lock()
	defer x.recsMu.Unlock()
	if x.recs != nil {
		return nil // another call set them
	}
	for _, e := range es {
		if err := r.Put(e.Hash, index.EncodeSymbols(e)); err != nil {
			return err
		}
	}
	x.recs = r
	return nil
}

// New returns an empty index.
func New() *Index {
	return &Index{entries: map[[32]byte]*index.Symbols{}, parsing: map[[32]byte]chan struct{}{}, keys: map[sumLang][32]byte{}}
}

// sumLang is a content, by its SHA-256, in a language.
type sumLang struct {
	sum  [sha256.Size]byte
	lang string
}

// maxSumKeys bounds Index.keys: about 100 bytes an entry, a few
// requests' gathered files. A variable for the tests.
var maxSumKeys = 8192

// Len is the number of entries (distinct contents).
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.entries)
}

// Parses counts the files this index has parsed since it was made (cache
// misses), for tests and logs.
func (x *Index) Parses() int64 { return x.parses.Load() }

// Key returns the entry key of a file's text in language lang.
func Key(lang string, src []byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(lang))
	h.Write([]byte{0})
	h.Write(src)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// File returns the entry of a file (rel names it for language detection),
// parsing it only when no entry has its content. It returns nil and no
// error for a file in no language tree-sitter reads. A file that does not
// parse (too large, timed out) gets no entry and returns the error.
// Under [treesitter.WithoutCaches], an index backed by a record file
// keeps the entry only there, not in memory.
func (x *Index) File(ctx context.Context, rel string, src []byte) (*index.Symbols, error) {
	return x.file(ctx, rel, src, nil)
}

// FileSum is [Index.File] for a text whose SHA-256 the caller holds (sum
// must be sha256.Sum256(src)): the entry key of a content it has seen is
// looked up, not hashed again. The key stays [Key]'s, the persisted
// records' own: a request carries each gathered file's SHA-256 (its
// chunk's hash), which is not the key (that hashes the language too).
func (x *Index) FileSum(ctx context.Context, rel string, src []byte, sum [sha256.Size]byte) (*index.Symbols, error) {
	return x.file(ctx, rel, src, &sum)
}

func (x *Index) file(ctx context.Context, rel string, src []byte, sum *[sha256.Size]byte) (*index.Symbols, error) {
	lang := treesitter.Detect(rel, src)
	if lang == "" {
		return nil, nil
	}
	k := x.key(lang, src, sum)
	keep := !treesitter.CachesOff(ctx)
	for {
		x.mu.Lock()
		if e, ok := x.entries[k]; ok {
			x.mu.Unlock()
			return e, nil
		}
		if e := x.stored(k); e != nil {
			if keep {
				x.remember(k, e)
			}
			x.mu.Unlock()
			return e, nil
		}
		wait, busy := x.parsing[k]
		if !busy {
			x.parsing[k] = make(chan struct{})
			x.mu.Unlock()
			break
		}
		x.mu.Unlock()
		select {
		case <-wait: // parsed (or failed): look again
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e, err := x.parse(ctx, rel, lang, k, src)
	x.mu.Lock()
	close(x.parsing[k])
	delete(x.parsing, k)
	if err == nil && (keep || x.records() == nil) {
		x.remember(k, e)
	}
	x.mu.Unlock()
	if r := x.records(); err == nil && r != nil {
		_ = r.Put(k, index.EncodeSymbols(e)) // a cache: a failed write parses again
	}
	return e, err
}

// key returns Key(lang, src), looked up by src's SHA-256 sum when the
// caller gives it and the index saw the content before.
func (x *Index) key(lang string, src []byte, sum *[sha256.Size]byte) [32]byte {
	if sum == nil {
		return Key(lang, src)
	}
	sl := sumLang{*sum, lang}
	x.mu.Lock()
	k, ok := x.keys[sl]
	x.mu.Unlock()
	if ok {
		return k
	}
	k = Key(lang, src)
	x.mu.Lock()
	if len(x.keys) >= maxSumKeys {
		clear(x.keys)
	}
	x.keys[sl] = k
	x.mu.Unlock()
	return k
}

// stored returns the entry of k from the record file, nil when it has
// none that verifies. x.mu must be held (the read is short: one pread).
func (x *Index) stored(k [32]byte) *index.Symbols {
	r := x.records()
	if r == nil {
		return nil
	}
	b, ok := r.Get(k)
	if !ok {
		return nil
	}
	e, err := index.DecodeSymbols(k, b)
	if err != nil {
		return nil
	}
	return e
}

// remember caches e, dropping others when a record file backs the index
// and the cache is full. x.mu must be held.
func (x *Index) remember(k [32]byte, e *index.Symbols) {
	x.entries[k] = e
	if len(x.entries) <= memEntries || x.records() == nil {
		return
	}
	for k2 := range x.entries {
		if len(x.entries) <= memEntries*3/4 {
			break
		}
		if k2 != k {
			delete(x.entries, k2)
		}
	}
}

// UseStore makes the index's parses go through the tree-sitter store that
// store returns (called on the first parse; nil: none): they store their
// analyses there, and a content whose parse timed out before is not
// parsed again ([treesitter.FileTagsStored]).
func (x *Index) UseStore(store func() *treesitter.Store) { x.store.Store(&store) }

// parse extracts the entry of src, which has key k in language lang.
func (x *Index) parse(ctx context.Context, rel, lang string, k [32]byte, src []byte) (*index.Symbols, error) {
	x.parses.Add(1)
	var store *treesitter.Store
	if f := x.store.Load(); f != nil && *f != nil {
		store = (*f)()
	}
	tags, err := treesitter.FileTagsStored(ctx, lang, src, store)
	if err != nil {
		return nil, fmt.Errorf("index symbols of %s: %w", rel, err)
	}
	return entryOf(k, tags), nil
}

func entryOf(k [32]byte, tags *treesitter.Tags) *index.Symbols {
	e := &index.Symbols{Hash: k, Language: tags.Language, Defs: make([]index.Def, len(tags.Defs)), Refs: tags.Refs}
	for i, s := range tags.Defs {
		e.Defs[i] = index.Def{Name: s.Name, Parent: s.Parent, Kind: s.Kind, Line: s.Start, End: s.End, Signature: s.Signature}
	}
	return e
}

// Has reports whether the index has an entry for src in language lang
// (in memory or in its record file), without parsing.
func (x *Index) Has(lang string, src []byte) bool {
	k := Key(lang, src)
	x.mu.Lock()
	_, ok := x.entries[k]
	x.mu.Unlock()
	if ok {
		return true
	}
	r := x.records()
	return r != nil && r.Has(k)
}

// Add records tags, what [treesitter.FileTagsStored] (or [treesitter.Prepare])
// returned for src in language lang, as its entry: the background
// analysis parses once for the index and the views. It does not keep the
// entry in memory when a record file holds it.
func (x *Index) Add(lang string, src []byte, tags *treesitter.Tags) {
	k := Key(lang, src)
	e := entryOf(k, tags)
	if r := x.records(); r != nil {
		_ = r.Put(k, index.EncodeSymbols(e)) // a cache: a failed write parses again
		return
	}
	x.mu.Lock()
	x.remember(k, e)
	x.mu.Unlock()
}

// Update returns the entries of paths (nil for a file that is not source
// or cannot be read or parsed), reading each with read and parsing the new
// contents on GOMAXPROCS workers. It stops early, with ctx's error, when
// ctx ends.
func (x *Index) Update(ctx context.Context, paths []string, read func(rel string) ([]byte, error)) ([]*index.Symbols, error) {
	out := make([]*index.Symbols, len(paths))
	err := par.Each(ctx, len(paths), func(i int) {
		if treesitter.Detect(paths[i], nil) == "" {
			return
		}
		if src, err := read(paths[i]); err == nil {
			out[i], _ = x.File(ctx, paths[i], src)
		}
	})
	return out, err
}

// Fold is the spelling-free form of an identifier that its camelCase,
// snake_case and kebab-case variants share: lowercase, without '_' and '-'
// ("merge_environment_settings" and "mergeEnvironmentSettings" fold alike).
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-':
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
