package tree

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
)

// The lexical index ranks files against a request with BM25 over three
// fields, the path, the content and the names the file defines, each a bag
// of normalized terms, times the file's role prior (roles.go). A term
// is a piece of an identifier split on snake_case, camelCase and
// digits-to-letters, lowercased and lightly stemmed; an identifier with
// several pieces also adds itself whole ("ParseConfig" gives "pars",
// "config" and "parseconfig"). Terms are kept as 32-bit FNV-1a hashes, so a
// file's entry is three small sorted slices and no strings; a collision costs
// a little precision, never an error. See docs/gathering.md.

// BM25 parameters and field weights.
const (
	bm25K1      = 1.2
	bm25B       = 0.75
	pathWeight  = 2.5 // a term in the path says more than one in the body
	defWeight   = 2.0 // a term in a defined name says more than a use of it
	bm25BDefs   = 0.3 // files that define much are only a little penalized
	testPenalty = 0.5 // test files rank below the code they test unless the request is about tests
)

// terms is a bag of term hashes: sorted unique hashes with their counts.
type terms struct {
	hash []uint32
	tf   []uint16
	n    int // total number of terms (the field's length)
}

// count returns how often term h occurs.
func (t *terms) count(h uint32) int {
	i, ok := slices.BinarySearch(t.hash, h)
	if !ok {
		return 0
	}
	return int(t.tf[i])
}

// next looks h up in rest, the part of t's hashes from offset off on (h
// is not below any hash before it), and returns h's count and the part
// and offset from which a greater hash is to be looked up.
func (t *terms) next(rest []uint32, off int, h uint32) (uint16, []uint32, int) {
	i, ok := slices.BinarySearch(rest, h)
	var n uint16
	if ok {
		n = t.tf[off+i]
	}
	return n, rest[i:], off + i
}

// termCounter accumulates a bag of terms; reuse one per goroutine. It is
// an open-addressing hash table of term hashes (0 marks an empty slot, so
// the hash 0 is stored as 1), several times faster than a Go map here,
// where indexing a large tree is dominated by counting terms.
type termCounter struct {
	keys   []uint32
	counts []uint16
	used   []int32 // occupied slots, for bag and reset
	n      int
	terms  []uint32      // scratch for addIdent
	words  []uint64      // scratch for bag
	spare  []uint64      // scratch for bag
	sub    *termCounter  // see defs
	ids    *identCounter // see newDoc
	// pathDir and pathDirTerms are the directory of the last pathTerms
	// and the terms of its identifiers, in order: a walk gives the files
	// of a directory one after another.
	pathDir      string
	pathDirTerms []uint32
}

// defs returns the companion counter newDoc uses for definitions.
func (c *termCounter) defs() *termCounter {
	if c.sub == nil {
		c.sub = newTermCounter()
	}
	return c.sub
}

// identCounter counts a text's distinct identifiers, before they are split
// into terms. Source repeats its identifiers (err, ctx, return, the names
// of its types), so the terms of each distinct identifier are derived
// and added once, k times, instead of at every occurrence: that was most
// of what indexing a tree cost. (A cache of identifiers' terms across
// files, tried too, cost more in cache misses on GOROOT than splitting
// again saves.) Reuse one per goroutine; the identifiers it counts point
// into the text being counted until reset.
type identCounter struct {
	slots []identSlot // open addressing; h == 0 marks an empty slot
	used  []int32     // occupied slots, in first-seen order
}

type identSlot struct {
	h     uint32
	count int32
	kind  identKind
	id    []byte
	// w is id's bytes packed (packIdent) when it has at most 8: compared
	// in one instruction, not by a call of the runtime's memequal (a third
	// of counting identifiers).
	w uint64
}

// identSlots is an identCounter's first size, enough for most files.
const identSlots = 1 << 11

func newIdentCounter() *identCounter {
	return &identCounter{slots: make([]identSlot, identSlots)}
}

func (ic *identCounter) reset() {
	if len(ic.slots) > 8*identSlots {
		// A very large file grew the table: the next files would spread
		// over all of it, a cache miss a lookup; start small again (not
		// after every file that grew it a little: that would allocate
		// and grow again for every such file).
		ic.slots, ic.used = make([]identSlot, identSlots), ic.used[:0]
		return
	}
	for _, i := range ic.used {
		ic.slots[i] = identSlot{}
	}
	ic.used = ic.used[:0]
}

// add counts one occurrence of id and returns its kind.
func (ic *identCounter) add(id []byte) identKind {
	h := hashIdent(id)
	w, short := packIdent(id)
	mask := uint32(len(ic.slots) - 1)
	for i := (h * 0x9E3779B1) & mask; ; i = (i + 1) & mask {
		s := &ic.slots[i]
		if s.h == h && len(s.id) == len(id) && (short && s.w == w || !short && string(s.id) == string(id)) {
			s.count++
			return s.kind
		}
		if s.h == 0 {
			k := kindOf(id)
			*s = identSlot{h: h, count: 1, kind: k, id: id, w: w}
			ic.used = append(ic.used, int32(i))
			if len(ic.used)*2 > len(ic.slots) {
				ic.grow()
			}
			return k
		}
	}
}

// hashIdent is a quick hash of an identifier for identCounter, never 0:
// its length and its first and last eight bytes (identifiers that share
// those only cost a comparison more).
func hashIdent(id []byte) uint32 {
	n := len(id)
	var x uint64
	switch {
	case n >= 8:
		x = binary.LittleEndian.Uint64(id)*0x9E3779B97F4A7C15 ^ binary.LittleEndian.Uint64(id[n-8:])*0xC2B2AE3D27D4EB4F
	case n >= 4:
		x = uint64(binary.LittleEndian.Uint32(id))*0x9E3779B97F4A7C15 ^ uint64(binary.LittleEndian.Uint32(id[n-4:]))*0xC2B2AE3D27D4EB4F
	default:
		for _, c := range id {
			x = x<<8 | uint64(c)
		}
		x *= 0x9E3779B97F4A7C15
	}
	x ^= uint64(n) * 0x165667B19E3779F9
	return uint32(x>>32) | 1
}

// packIdent returns id's bytes in one word, little-endian, when it has 1
// to 8 (ok): two such ids of one length are equal when their words are.
// From 4 bytes on, two loads of 4 that overlap (the bytes they share are
// the same, at the same places).
func packIdent(id []byte) (w uint64, ok bool) {
	switch n := len(id); {
	case n > 8 || n == 0:
		return 0, false
	case n >= 4:
		return uint64(binary.LittleEndian.Uint32(id)) | uint64(binary.LittleEndian.Uint32(id[n-4:]))<<(8*(n-4)), true
	default:
		for k, c := range id {
			w |= uint64(c) << (8 * k)
		}
		return w, true
	}
}

// grow doubles the table and reinserts every identifier.
func (ic *identCounter) grow() {
	old, used := ic.slots, ic.used
	ic.slots = make([]identSlot, 2*len(old))
	ic.used = make([]int32, 0, 2*len(used))
	mask := uint32(len(ic.slots) - 1)
	for _, j := range used {
		s := old[j]
		i := (s.h * 0x9E3779B1) & mask
		for ic.slots[i].h != 0 {
			i = (i + 1) & mask
		}
		ic.slots[i] = s
		ic.used = append(ic.used, int32(i))
	}
}

// addTo adds the terms of every identifier counted to c, each as often as
// the identifier occurred: the bag c.addIdent at every occurrence makes.
func (ic *identCounter) addTo(c *termCounter) {
	for _, i := range ic.used {
		s := &ic.slots[i]
		c.terms = appendTerms(c.terms[:0], s.id)
		for _, t := range c.terms {
			c.addN(t, int(s.count))
		}
	}
}

// termSlots is a termCounter's first size; queryTermSlots a query's.
const (
	termSlots      = 1 << 12
	queryTermSlots = 1 << 6
)

func newTermCounter() *termCounter {
	return &termCounter{keys: make([]uint32, termSlots), counts: make([]uint16, termSlots)}
}

func (c *termCounter) reset() {
	if len(c.keys) > 8*termSlots {
		// As identCounter.reset: a grown table is slow for the small
		// bags that follow.
		c.keys, c.counts, c.used, c.n = make([]uint32, termSlots), make([]uint16, termSlots), c.used[:0], 0
		return
	}
	for _, i := range c.used {
		c.keys[i] = 0
		c.counts[i] = 0
	}
	c.used = c.used[:0]
	c.n = 0
}

func (c *termCounter) add(h uint32) { c.addN(h, 1) }

// addN adds term h k times: the same bag as k calls of add (counts
// saturate at the same bound).
func (c *termCounter) addN(h uint32, k int) {
	if h == 0 {
		h = 1
	}
	c.n += k
	mask := uint32(len(c.keys) - 1)
	for i := (h * 0x9E3779B1) & mask; ; i = (i + 1) & mask {
		switch c.keys[i] {
		case h:
			c.counts[i] = uint16(min(int(c.counts[i])+k, math.MaxUint16))
			return
		case 0:
			c.keys[i] = h
			c.counts[i] = uint16(min(k, math.MaxUint16))
			c.used = append(c.used, int32(i))
			if len(c.used)*2 > len(c.keys) {
				c.grow()
			}
			return
		}
	}
}

// grow doubles the table and reinserts every term.
func (c *termCounter) grow() {
	keys, counts, used := c.keys, c.counts, c.used
	c.keys = make([]uint32, 2*len(keys))
	c.counts = make([]uint16, 2*len(keys))
	c.used = make([]int32, 0, 2*len(used))
	mask := uint32(len(c.keys) - 1)
	for _, j := range used {
		h := keys[j]
		i := (h * 0x9E3779B1) & mask
		for c.keys[i] != 0 {
			i = (i + 1) & mask
		}
		c.keys[i] = h
		c.counts[i] = counts[j]
		c.used = append(c.used, int32(i))
	}
}

// bag returns the accumulated terms as sorted slices.
func (c *termCounter) bag() terms {
	// Each term with its count in one word, hash above count: sorting the
	// words sorts the (distinct) hashes and carries their counts along.
	ws := c.words[:0]
	for _, i := range c.used {
		ws = append(ws, uint64(c.keys[i])<<16|uint64(c.counts[i]))
	}
	c.words, c.spare = ws, sortWords(ws, c.spare)
	t := terms{hash: make([]uint32, len(ws)), tf: make([]uint16, len(ws)), n: c.n}
	for k, w := range ws {
		t.hash[k], t.tf[k] = uint32(w>>16), uint16(w)
	}
	return t
}

// sortWords sorts ws, words below 1<<48, in place; spare is scratch
// space, returned for reuse. Small slices are sorted by comparison, large
// ones by radix, a byte of the 32 bits above bit 16 a pass.
func sortWords(ws, spare []uint64) []uint64 {
	if len(ws) < 256 {
		slices.Sort(ws)
		return spare
	}
	if cap(spare) < len(ws) {
		spare = make([]uint64, len(ws))
	}
	src, dst := ws, spare[:len(ws)]
	for shift := 16; shift < 48; shift += 8 {
		var count [256]int
		for _, w := range src {
			count[byte(w>>shift)]++
		}
		pos := 0
		for b, n := range count {
			count[b] = pos
			pos += n
		}
		for _, w := range src {
			b := byte(w >> shift)
			dst[count[b]] = w
			count[b]++
		}
		src, dst = dst, src
	}
	// Four passes: the sorted words are back in ws.
	return spare
}

// addIdent adds the terms of one identifier to c: its pieces and, when it
// has more than one, itself whole.
func (c *termCounter) addIdent(id []byte) {
	c.terms = appendTerms(c.terms[:0], id)
	for _, t := range c.terms {
		c.add(t)
	}
}

// AppendTerms appends the terms of identifier id to dst: its pieces split
// at case and underscore boundaries, lowercased and stemmed, as [TermsOf]
// reads them, without a table (one identifier at a time, in a loop).
func AppendTerms(dst []uint32, id []byte) []uint32 { return appendTerms(dst, id) }

// appendTerms appends the terms of identifier id to dst (see addIdent).
func appendTerms(dst []uint32, id []byte) []uint32 {
	if len(id) > 64 {
		// Long runs are hashes, base64 or generated names: one opaque term.
		id = id[:64]
	}
	// Most identifiers have no capital and no underscore: one piece.
	simple := true
	for _, c := range id {
		if c == '_' || c >= 'A' && c <= 'Z' {
			simple = false
			break
		}
	}
	if simple {
		if len(id) >= 2 {
			dst = append(dst, pieceTerm(id))
		}
		return dst
	}
	pieces := 0
	start := -1
	for i := 0; i <= len(id); i++ {
		if i < len(id) && id[i] != '_' {
			if start < 0 {
				start = i
				continue
			}
			if query.CamelBreak(id, i) {
				if i-start >= 2 {
					dst = append(dst, pieceTerm(id[start:i]))
				}
				pieces++
				start = i
			}
			continue
		}
		if start >= 0 {
			if i-start >= 2 {
				dst = append(dst, pieceTerm(id[start:i]))
			}
			pieces++
			start = -1
		}
	}
	if pieces > 1 && len(id) >= 3 {
		dst = append(dst, fnvLower(id))
	}
	return dst
}

// pieceTerm returns the term of one identifier piece of two bytes or more:
// the piece lowercased, stemmed and hashed, in one pass without a copy.
func pieceTerm(p []byte) uint32 {
	n, y := stemmed(p)
	h := fnvLower(p[:n])
	if y {
		h = (h ^ 'y') * 16777619
	}
	return h
}

// stemmed is a light suffix stripper: plurals, "-ing", "-ed" and a final
// "e", so "parse", "parses", "parsed", "parsing" and "parser" meet at
// "pars" and "parser"; "caches", "cached", "caching" at "cach". It is
// applied the same way to requests and files, so its mistakes cancel out.
// It returns how w, lowercased, is stemmed: the length of w kept and
// whether a 'y' follows ("entries" keeps "entr" and adds 'y').
func stemmed(w []byte) (n int, y bool) {
	n = len(w)
	// suffix reports lowercased w[:n] ending in s.
	suffix := func(n int, s string) bool {
		if n < len(s) {
			return false
		}
		for k := range len(s) {
			if lower(w[n-len(s)+k]) != s[k] {
				return false
			}
		}
		return true
	}
	switch {
	case n > 4 && suffix(n, "ies"):
		return n - 3, true // ends in 'y': no rule below applies
	case n > 4 && suffix(n, "sses"):
		n -= 2
	case n > 3 && lower(w[n-1]) == 's' && lower(w[n-2]) != 's' && lower(w[n-2]) != 'u' && lower(w[n-2]) != 'i':
		n--
	}
	switch {
	case n > 5 && suffix(n, "ing"):
		n -= 3
	case n > 4 && suffix(n, "ed"):
		n -= 2
	}
	if n > 4 && lower(w[n-1]) == 'e' {
		n--
	}
	return n, false
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

// fnvLower is fnv32 of b lowercased.
func fnvLower(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(lower(c))
		h *= 16777619
	}
	return h
}

func fnv32(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// newDoc indexes one file: its content, its path, the names it defines and
// its role. c and d are reusable counters (d for the definitions).
func newDoc(c, d *termCounter, rel string, b []byte) *indexDoc {
	gen := lang.GeneratedHead(b)
	doc := &indexDoc{path: rel, test: lang.IsTest(rel), role: lang.RoleOf(rel, gen), generated: gen}
	c.reset()
	d.reset()
	if c.ids == nil {
		c.ids = newIdentCounter()
	}
	ids := c.ids
	ids.reset()
	scanDefs(b, ids, d.addIdent)
	ids.addTo(c)
	ids.reset() // drop the references into b
	doc.docBags = &docBags{content: c.bag(), defs: d.bag()}
	doc.name = c.pathTerms(rel)
	return doc
}

// sharedDoc indexes a file whose content equals same's: the content-derived
// bags and marker are same's (bags are immutable, so they are shared, not
// copied); the path's terms and the role are its own.
func sharedDoc(c *termCounter, rel string, same *indexDoc) *indexDoc {
	return &indexDoc{path: rel, test: lang.IsTest(rel), role: lang.RoleOf(rel, same.generated), generated: same.generated,
		docBags: same.docBags, name: c.pathTerms(rel)}
}

// identKind classifies an identifier for scanDefs: a word that introduces
// a definition's name or not.
type identKind uint8

const (
	kindPlain    identKind = iota
	kindFunc               // Go's func: a name, or a receiver then a name
	kindKeyword            // def, class, type, ...: the next name
	kindFunction           // JavaScript's function, also "function* name"
)

// kindOf classifies w: the words that introduce a definition's name in
// the languages ctxd reads (the next identifier, after blanks only, is
// defined). It runs once per distinct identifier of a file.
func kindOf(w []byte) identKind {
	if len(w) < 2 || len(w) > 9 {
		return kindPlain
	}
	switch string(w) {
	case "func":
		return kindFunc
	case "function":
		return kindFunction
	case "def", "class", "type", "interface", "struct", "enum", "trait", "fn",
		"module", "object", "record", "union", "impl", "protocol", "extension":
		return kindKeyword
	}
	return kindPlain
}

// scanDefs counts every identifier of b in ids (identifier-like runs that
// do not start with a digit, as scanIdents finds) and calls def for the
// names b defines: the identifier after a definition keyword (def, class,
// function, type, ...) and a Go method's name after its receiver ("func
// (s *Server) Shutdown" defines Shutdown), and a member a function is
// assigned to (JavaScript's "res.cookie = function (…)", "exports.parse =
// function", "Foo.prototype.bar = function": cookie, parse, bar). It is a
// lexical approximation of a symbol table that costs one pass over the
// text.
func scanDefs(b []byte, ids *identCounter, def func(id []byte)) {
	prev := kindPlain
	prevEnd := 0
	recv := 0 // > 0 while inside a Go receiver, counting down identifiers
	// member is the previous identifier when a '.' came right before it;
	// assigned is the member just defined by "member = function".
	var member, assigned []byte
	for i := 0; i < len(b); {
		if !query.IsIdentByte(b[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(b) && query.IsIdentByte(b[j]) {
			j++
		}
		if c := b[i]; c >= '0' && c <= '9' {
			i = j
			continue
		}
		id := b[i:j]
		kind := ids.add(id)
		if recv > 0 || prev != kindPlain {
			gap := b[prevEnd:i]
			switch {
			case recv > 0:
				recv--
				if k := bytes.LastIndexByte(gap, ')'); k >= 0 {
					// "func (s *Server) Shutdown" but not "func(a int) {}".
					if blank(gap[k+1:]) {
						def(id)
					}
					recv = 0
				}
			case prev == kindFunc:
				if bytes.IndexByte(gap, '(') >= 0 {
					recv = 4
					break
				}
				if blank(gap) {
					def(id)
				}
			case blank(gap) || prev == kindFunction && blank(bytes.Trim(gap, "*")):
				// "res.send = function send": send is defined once.
				if !(prev == kindFunction && bytes.Equal(id, assigned)) {
					def(id)
				}
			}
		}
		assigned = nil
		if kind == kindFunction && member != nil && assignGap(b[prevEnd:i]) {
			def(member)
			assigned = member
		}
		member = nil
		if i > 0 && b[i-1] == '.' {
			member = id
		}
		prev = kind
		prevEnd = j
		i = j
	}
}

// assignGap reports the text between a member and "function" in an
// assignment: "=" with optional spaces and tabs around it.
func assignGap(b []byte) bool {
	b = bytes.Trim(b, " \t")
	return len(b) == 1 && b[0] == '='
}

// blank reports a non-empty run of spaces and tabs.
func blank(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// pathTerms returns the bag of terms of a root-relative slash path: its
// directory names and its base name without the extension.
func (c *termCounter) pathTerms(rel string) terms {
	c.reset()
	name := rel
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	dir := strings.TrimSuffix(rel, name)
	if i := strings.IndexByte(name[min(1, len(name)):], '.'); i >= 0 {
		name = name[:i+1] // drop every extension: "x.test.ts" keeps "x"
	}
	if dir != c.pathDir {
		c.pathDirTerms = c.pathDirTerms[:0]
		query.ScanIdents([]byte(dir), func(id []byte) { c.pathDirTerms = appendTerms(c.pathDirTerms, id) })
		c.pathDir = dir
	}
	for _, h := range c.pathDirTerms { // as addIdent of each
		c.add(h)
	}
	query.ScanIdents([]byte(name), c.addIdent)
	return c.bag()
}

// Hit is one file ranked against a request.
type Hit struct {
	// Path is the root-relative slash path.
	Path string
	// Score is the BM25 score (path and content fields, weighted); only the
	// order and ratios between hits of one query mean anything.
	Score float64
	// Relevance is Score against a reference: the score of a file of
	// average length that has every query term once in its content, capped
	// at 1 (path matches count on top). Unlike a ratio to the best hit, it stays
	// low when even the best file matches the request weakly (one common
	// word of several), so a weak lexical match cannot outrank a file the
	// user pointed at.
	Relevance float64
	// Match splits Score by field and names the role prior applied.
	Match ctxd.LexicalMatch
}

// indexDoc is one file in an [Index].
//
// One is kept per indexed file: the small fields go last, together, for
// 96 bytes (104, in the allocator's 112-byte class, when they were apart).
type indexDoc struct {
	path string
	// docBags are the content-derived bags, shared by the documents of
	// equal files (one pointer a file, not two bags).
	*docBags
	name terms // path terms
	// filter is the Bloom filter of the terms of every field, made on
	// first use (termFilter).
	filter atomic.Pointer[termFilter]
	test   bool
	role   lang.Role
	// generated marks a generated-code header (persisted: role depends on it).
	generated bool
}

// docBags are a document's bags of its content's terms and of the names
// it defines. Immutable once made.
type docBags struct {
	content terms
	defs    terms // terms of the names the file defines
}

// termFilter is a Bloom filter of a document's terms (two bits a term,
// about four bits a term up to 1,024 bits), so a pass that looks for terms
// in every document (postingsOf) searches the bags of a document only for
// the terms it may hold: most documents answer "not here" for a rare word
// from one or two cache lines instead of three binary searches. It only
// skips work: a term the filter lets through is looked up in the bags.
type termFilter struct {
	words []uint64 // 1<<k bits
	k     uint32   // log2 of the bits, minFilterLog..maxFilterLog
}

// Filter sizes: at least a word, at most 16 (two cache lines).
const (
	minFilterLog = 6
	maxFilterLog = 10
)

func newTermFilter(terms int) *termFilter {
	k := uint32(minFilterLog)
	for k < maxFilterLog && 1<<k < 4*terms {
		k++
	}
	return &termFilter{words: make([]uint64, 1<<k/64), k: k}
}

// bits are the two bits of term h.
func (f *termFilter) bits(h uint32) (uint32, uint32) {
	x := h * 0x9e3779b1 // spread FNV's bits; a fixed function, so filters agree
	return x >> (32 - f.k), (x >> (32 - 2*f.k)) & (1<<f.k - 1)
}

func (f *termFilter) set(h uint32) {
	a, b := f.bits(h)
	f.words[a>>6] |= 1 << (a & 63)
	f.words[b>>6] |= 1 << (b & 63)
}

func (f *termFilter) has(h uint32) bool {
	a, b := f.bits(h)
	return f.words[a>>6]&(1<<(a&63)) != 0 && f.words[b>>6]&(1<<(b&63)) != 0
}

// termFilter returns d's filter, made on first use (documents outlive
// snapshots, so a filter is made once per document, not per index).
func (d *indexDoc) termFilter() *termFilter {
	if f := d.filter.Load(); f != nil {
		return f
	}
	f := newTermFilter(len(d.name.hash) + len(d.content.hash) + len(d.defs.hash))
	for _, t := range []*terms{&d.name, &d.content, &d.defs} {
		for _, h := range t.hash {
			f.set(h)
		}
	}
	d.filter.Store(f) // a racing maker stores an equal filter
	return f
}

// Index is a lexical index of files' paths and contents, ranked with BM25.
// An Index is immutable once built and safe for concurrent use.
type Index struct {
	docs                      []*indexDoc
	avgPath, avgBody, avgDefs float64
	// norms are what ranking reads of each document, by document, in one
	// array (not through the documents: a cache miss each at 100k files).
	norms []docNorm
	// pages are the documentation pages in several languages, which a
	// ranking counts once (docNorm.page; groupVersions).
	pages []pageVersions

	// postings caches, per query term met, the documents that hold it (in
	// any field) with the term's count in each field: built by one pass
	// over the documents the first time a term is asked for, then scoring
	// reads only the postings of the query's terms, no document's bags. A
	// daemon's index lives as long as its snapshot, so repeated words of
	// requests cost their postings only. postingsLen is the number of
	// entries cached, bounded by maxPostingEntries.
	postingsMu  sync.Mutex
	postings    map[uint32]*posting
	postingsLen int

	// base, when set, is the index this one was made from by replacing
	// or adding a few documents (an editor's unsaved buffers, a new index
	// every request): a term's postings are base's, cached there,
	// renumbered through fromBase (base document -> document here, -1
	// when replaced), plus those of the added documents.
	base     *Index
	fromBase []int32
	added    []int32

	// full, once built, holds every term's postings (fullPostings): a
	// daemon's snapshot index builds them in the background when it is
	// made (indexFrom). fullDone, when not nil, is closed when that build
	// ends; postingsOf waits for it rather than pass over the documents.
	full     atomic.Pointer[fullPostings]
	fullDone chan struct{}

	// passes counts scanPostings' passes over every document: the first
	// searches the bags for the terms directly, later ones through each
	// document's term filter, made then (see addDocTerms).
	passes atomic.Int32
}

// docNorm is a document's BM25 length normalization of each field,
// k1*(1-b+b*len/avg), its role and whether it is a test.
type docNorm struct {
	path, body, defs float64
	role             lang.Role
	test             bool
	// catalogue: a gettext catalogue (Index.role); beside role and test,
	// the struct stays 32 bytes.
	catalogue bool
	// page is 1 + the index of the document's translated page in
	// Index.pages, 0 when it has one version.
	page int32
}

// posting is one term's documents (ascending, but for an index made from a
// base, whose added documents come last) and the term's count in each
// of their fields; dfPath, dfBody and dfDefs count the documents that hold
// it in each field.
type posting struct {
	docs                   []postingDoc
	dfPath, dfBody, dfDefs int
}

type postingDoc struct {
	doc              int32
	path, body, defs uint16
}

// maxPostingEntries bounds the postings cache of one index (12 bytes an
// entry: 24 MiB; half that with full postings). A term that does not fit is computed for the request
// and not kept. A variable for tests.
var maxPostingEntries = 2 << 20

func (p *posting) add(e postingDoc) {
	p.docs = append(p.docs, e)
	p.count(e)
}

// count counts e, one of p.docs, in p's document frequencies.
func (p *posting) count(e postingDoc) {
	if e.path > 0 {
		p.dfPath++
	}
	if e.body > 0 {
		p.dfBody++
	}
	if e.defs > 0 {
		p.dfDefs++
	}
}

// withDocs returns an index of ix's documents but those replace reports,
// plus add (whose paths must not be ix's unless replaced). Its postings
// are derived from ix's (see Index.base), so a term ix has met costs its
// postings, not a pass over every document.
func (ix *Index) withDocs(replace func(path string) bool, add []*indexDoc) *Index {
	docs := make([]*indexDoc, 0, len(ix.docs)+len(add))
	for _, d := range ix.docs {
		if !replace(d.path) {
			docs = append(docs, d)
		}
	}
	docs = append(docs, add...)
	out := newIndex(docs)
	// Both orders are by path: one merge renumbers ix's documents.
	out.base = ix
	out.fromBase = make([]int32, len(ix.docs))
	i := 0
	for j, d := range out.docs {
		for i < len(ix.docs) && ix.docs[i] != d && replace(ix.docs[i].path) {
			out.fromBase[i] = -1
			i++
		}
		if i < len(ix.docs) && ix.docs[i] == d {
			out.fromBase[i] = int32(j)
			i++
		} else {
			out.added = append(out.added, int32(j))
		}
	}
	for ; i < len(ix.docs); i++ {
		out.fromBase[i] = -1
	}
	return out
}

// indexFrom returns the index of a snapshot's documents, docs, that
// follows a snapshot indexed by prev (nil: none). When few documents
// changed, it is made from prev's base (prev itself when prev has none) as
// withDocs makes one (see Index.base): the postings met so far are
// carried over, renumbered, and the changed documents scanned, instead of
// every term costing a pass over the tree again after each change.
// Otherwise it is a new index and, with full (a daemon), builds its full
// postings in the background.
func indexFrom(prev *Index, docs []*indexDoc, full bool) *Index {
	ix := newIndex(docs)
	if prev == nil || len(ix.docs) == 0 {
		if full {
			ix.buildFull()
		}
		return ix
	}
	root, toPrev := prev, []int32(nil)
	if prev.base != nil {
		root, toPrev = prev.base, prev.fromBase
	}
	toIx := docMap(prev.docs, ix.docs)
	fromRoot := toIx
	if toPrev != nil {
		fromRoot = make([]int32, len(root.docs))
		for i, m := range toPrev {
			fromRoot[i] = -1
			if m >= 0 {
				fromRoot[i] = toIx[m]
			}
		}
	}
	from := make([]bool, len(ix.docs))
	gone := 0
	for _, m := range fromRoot {
		if m >= 0 {
			from[m] = true
		} else {
			gone++
		}
	}
	var added []int32
	for j, ok := range from {
		if !ok {
			added = append(added, int32(j))
		}
	}
	// Past a few changes (their documents scanned per new term; the
	// replaced ones kept alive by the base), a new index is cheaper.
	if bound := max(maxDerivedDocs, len(ix.docs)/64); len(added) > bound || gone > bound {
		if full {
			ix.buildFull()
		}
		return ix
	}
	ix.base, ix.fromBase, ix.added = root, fromRoot, added
	return ix
}

// maxDerivedDocs is the least number of changed documents past which
// indexFrom makes a new index (a variable for tests).
var maxDerivedDocs = 256

// docMap maps the documents of from to their index in to (both sorted
// by path), -1 for those to does not hold (the same document, not one of
// the same path).
func docMap(from, to []*indexDoc) []int32 {
	m := make([]int32, len(from))
	j := 0
	for i, d := range from {
		for j < len(to) && to[j].path < d.path {
			j++
		}
		m[i] = -1
		if j < len(to) && to[j] == d {
			m[i] = int32(j)
		}
	}
	return m
}

// postingsOf returns the postings of the terms hs, in hs's order. The terms
// not cached are worked out together, in one pass over the documents that
// looks each document's bags up for all of them (a request's new terms
// cost one pass, not one each, and each bag is read from memory once):
// the postings are the same as one pass per term would find.
func (ix *Index) postingsOf(hs []uint32) []*posting {
	out := make([]*posting, len(hs))
	var missing []uint32
	ix.postingsMu.Lock()
	for i, h := range hs {
		if p, ok := ix.postings[h]; ok {
			out[i] = p
		} else if !slices.Contains(missing, h) {
			missing = append(missing, h)
		}
	}
	ix.postingsMu.Unlock()
	if len(missing) == 0 {
		return out
	}
	slices.Sort(missing)
	ps := make([]*posting, len(missing))
	bound := maxPostingEntries
	// A build still running is not waited for: the first request after a
	// daemon (re)starts would wait for every term's postings (about a
	// second at 10k files) to read a few of them; scanning costs it
	// milliseconds.
	if full := ix.full.Load(); full != nil {
		// Expanding a term's postings costs its entries: a smaller cache
		// keeps the most of it.
		bound /= 2
		for k, h := range missing {
			ps[k] = full.posting(h)
		}
	} else {
		ix.scanPostings(ps, missing)
	}
	ix.postingsMu.Lock()
	if ix.postings == nil {
		ix.postings = map[uint32]*posting{}
	}
	for k, h := range missing {
		p := ps[k]
		p.docs = slices.Clip(p.docs)
		if _, ok := ix.postings[h]; !ok && ix.postingsLen+len(p.docs) <= bound {
			ix.postings[h] = p
			ix.postingsLen += len(p.docs)
		}
	}
	ix.postingsMu.Unlock()
	for i, h := range hs {
		if out[i] == nil {
			k, _ := slices.BinarySearch(missing, h)
			out[i] = ps[k]
		}
	}
	return out
}

// scanPostings works out the postings ps of the terms hs (ascending)
// without full postings: from the base's, renumbered, plus the added
// documents', or by one pass over the documents.
func (ix *Index) scanPostings(ps []*posting, hs []uint32) {
	for k := range ps {
		ps[k] = &posting{}
	}
	if ix.base != nil {
		for k, bp := range ix.base.postingsOf(hs) {
			for _, e := range bp.docs {
				if m := ix.fromBase[e.doc]; m >= 0 {
					e.doc = m
					ps[k].add(e)
				}
			}
		}
		for _, i := range ix.added {
			addDocTerms(ps, i, ix.docs[i], hs, true)
		}
		return
	}
	filter := ix.passes.Add(1) > 1
	for i, d := range ix.docs {
		addDocTerms(ps, int32(i), d, hs, filter)
	}
}

// buildFull builds ix's full postings in the background; ix must not be
// in use yet.
func (ix *Index) buildFull() {
	done := make(chan struct{})
	ix.fullDone = done
	go func() {
		defer close(done)
		ix.full.Store(buildFullPostings(ix.docs))
	}()
}

// addDocTerms adds document i, d, to the postings ps of the terms hs
// (ascending) it holds: the terms its filter lets through are looked up
// in its bags, each search of a bag starting where the last one ended.
// Without filter, a document that has no filter yet is searched for every
// term: making a filter reads all its terms, which pays for itself only
// when the document is searched again (a one-shot CLI run's index is
// searched once).
func addDocTerms(ps []*posting, i int32, d *indexDoc, hs []uint32, filter bool) {
	var f *termFilter
	if filter {
		f = d.termFilter()
	} else {
		f = d.filter.Load()
	}
	name, content, defs := d.name.hash, d.content.hash, d.defs.hash
	var on, oc, od int // offsets of name, content, defs in their bags
	for k, h := range hs {
		if f != nil && !f.has(h) {
			continue
		}
		var e postingDoc
		e.path, name, on = d.name.next(name, on, h)
		e.body, content, oc = d.content.next(content, oc, h)
		e.defs, defs, od = d.defs.next(defs, od, h)
		if e.path != 0 || e.body != 0 || e.defs != 0 {
			e.doc = i
			ps[k].add(e)
		}
	}
}

func newIndex(docs []*indexDoc) *Index {
	sort.Slice(docs, func(i, j int) bool { return docs[i].path < docs[j].path })
	ix := &Index{docs: docs}
	var sp, sb, sd float64
	for _, d := range docs {
		sp += float64(d.name.n)
		sb += float64(d.content.n)
		sd += float64(d.defs.n)
	}
	if len(docs) > 0 {
		ix.avgPath = math.Max(sp/float64(len(docs)), 1)
		ix.avgBody = math.Max(sb/float64(len(docs)), 1)
		ix.avgDefs = math.Max(sd/float64(len(docs)), 1)
	}
	ix.norms = make([]docNorm, len(docs))
	pageOf, pages, catalogues := groupVersions(docs)
	copies := declarationCopies(docs)
	ix.pages = pages
	for i, d := range docs {
		lp := float64(d.name.n) / ix.avgPath
		lb := float64(d.content.n) / ix.avgBody
		ld := float64(d.defs.n) / ix.avgDefs
		ix.norms[i] = docNorm{
			path: bm25K1 * (1 - bm25B + bm25B*lp),
			body: bm25K1 * (1 - bm25B + bm25B*lb),
			defs: bm25K1 * (1 - bm25BDefs + bm25BDefs*ld),
			role: d.role, test: d.test,
		}
		if pageOf != nil {
			ix.norms[i].page = pageOf[i]
		}
		if catalogues != nil {
			ix.norms[i].catalogue = catalogues[i]
		}
		if copies != nil && copies[i] {
			ix.norms[i].role = lang.RoleDeclaration
		}
	}
	return ix
}

// Len returns the number of indexed files.
func (ix *Index) Len() int { return len(ix.docs) }

// Rank scores every file against query and returns the best limit hits
// (all that match when limit <= 0), best first, ties by path. Files that
// share no term with the query are left out.
func (ix *Index) Rank(q *query.Query, limit int) []Hit {
	return ix.RankBy(NewRankQuery(q, q.AboutTests), limit, nil)
}

// rankQuery is a request split for ranking.
type RankQuery struct {
	terms []uint32
	// aboutTests keeps test files from being ranked down; explain lets
	// docs rise (still below code), for a question about how something
	// works or how to use it (query.Query.Explain, HowTo).
	aboutTests, explain bool
	// lang is the request's language (query.Query.Lang): of a page in
	// several languages, the version kept (otherVersion); every version
	// is ranked when allVersions (a request about translations).
	lang        string
	allVersions bool
}

func NewRankQuery(q *query.Query, aboutTests bool) RankQuery {
	return RankQuery{terms: TermsOf(q.Words), aboutTests: aboutTests, explain: q.Explain || q.HowTo, lang: q.Lang, allVersions: q.Translations}
}

// termsOf returns the distinct term hashes of a query's words.
func TermsOf(words []string) []uint32 {
	// A table for a few words (it grows as needed; the bag is sorted, so
	// its size changes nothing): a file's 4,096 slots, 24 KB, were most of
	// what a request allocated (focus ranking asks once per word).
	c := &termCounter{keys: make([]uint32, queryTermSlots), counts: make([]uint16, queryTermSlots)}
	for _, w := range words {
		c.addIdent([]byte(w))
	}
	return c.bag().hash
}

// rank is Rank with the query already split; keep, when not nil, limits the
// candidates. A file's score is BM25 over three fields (path, content and
// the names it defines), times its role's prior (docs, changelogs, meta,
// generated and vendored files below code) and the test penalty.
func (ix *Index) RankBy(q RankQuery, limit int, keep func(path string) bool) []Hit {
	r := ix.Ranking(q, limit, keep)
	for i := range r.Hits {
		r.Hits[i].Match = r.Match(i)
	}
	return r.Hits
}

// ranking is a request's ranking: hits best first, looked up by path
// through the index's order (no map of every hit), with each hit's
// per-field split kept for [ranking.match], worked out only for the hits
// a caller shows.
type Ranking struct {
	ix      *Index
	explain bool
	// lang and allVersions are the request's language and whether it is
	// about translations (Index.otherVersion, Index.role).
	lang        string
	allVersions bool
	Hits        []Hit        // Match left zero
	parts       [][3]float64 // path, content, definitions score of hits[i]
	docs        []int32      // the document of hits[i]
	place       []int32      // by document: 1 + index in hits, 0 when none
}

// hit returns rel's hit and its 1-based place, or nil and 0.
func (r *Ranking) Hit(rel string) (*Hit, int) {
	if r == nil || len(r.Hits) == 0 {
		return nil, 0
	}
	d, ok := r.ix.find(rel)
	if !ok || r.place[d] == 0 {
		return nil, 0
	}
	i := int(r.place[d]) - 1
	return &r.Hits[i], i + 1
}

// score returns rel's lexical score, 0 when it did not match.
func (r *Ranking) Score(rel string) float64 {
	if h, _ := r.Hit(rel); h != nil {
		return h.Score
	}
	return 0
}

// match splits hits[i]'s score by field and names its role's prior.
func (r *Ranking) Match(i int) ctxd.LexicalMatch {
	p := &r.parts[i]
	s := p[0] + p[1] + p[2]
	share := func(v float64) float64 { return math.Round(v/s*1000) / 1000 }
	priors := &codePriors
	if r.explain {
		priors = &explainPriors
	}
	role := r.ix.role(r.docs[i], r.allVersions)
	return ctxd.LexicalMatch{Path: share(p[0]), Content: share(p[1]), Definitions: share(p[2]), Role: role.String(), Prior: priors[role]}
}

// IsDoc reports whether Hits[i] is documentation, a changelog or
// repository meta: text about the code, not code (a gettext catalogue
// too, unless the request is about translations).
func (r *Ranking) IsDoc(i int) bool { return isDocRole(r.ix.role(r.docs[i], r.allVersions)) }

// LeftOut reports whether rel is a version of a page, or a copy of a
// file, in several languages that the request does not keep (the ranking
// leaves it out: Index.otherVersion); gathering adds it beside the
// request's files by no other way (imports, links, recent commits): seven
// copies of django's formats.py had come in as imported by admin/utils.py.
func (r *Ranking) LeftOut(rel string) bool {
	if r == nil || r.allVersions || len(r.ix.pages) == 0 {
		return false
	}
	d, ok := r.ix.find(rel)
	return ok && r.ix.norms[d].page != 0 && r.ix.otherVersion(int32(d), r.lang)
}

// find returns the index of the document of path (docs are sorted by
// path).
func (ix *Index) find(path string) (int, bool) {
	return slices.BinarySearchFunc(ix.docs, path, func(d *indexDoc, p string) int { return strings.Compare(d.path, p) })
}

// ranking ranks without the per-field split (see rank).
func (ix *Index) Ranking(q RankQuery, limit int, keep func(path string) bool) *Ranking {
	qt := q.terms
	r := &Ranking{ix: ix, explain: q.explain, lang: q.lang, allVersions: q.allVersions}
	if len(qt) == 0 || len(ix.docs) == 0 {
		return r
	}
	n := float64(len(ix.docs))
	ps := ix.postingsOf(qt)
	var ref float64
	for _, p := range ps {
		ref += bm25IDF(n, p.dfBody)
	}
	// Scores accumulate term by term over the postings, each document's
	// fields summed in query-term order as a document-at-a-time loop would
	// (the same sums, so the same scores): the work is the postings of the
	// query's terms, not the tree.
	most := 0
	for _, p := range ps {
		most += len(p.docs)
	}
	w := rankScratchFor(len(ix.docs))
	defer w.release()
	cand := slices.Grow(w.cand[:0], min(most, len(ix.docs)))
	slot := w.slot // 1 + index in cand; 0: not a candidate
	for _, p := range ps {
		idfP, idfB, idfD := fieldIDF(n, p.dfPath, p.dfBody), bm25IDF(n, p.dfBody), fieldIDF(n, p.dfDefs, p.dfBody)
		for _, e := range p.docs {
			k := slot[e.doc]
			if k == 0 {
				cand = append(cand, acc{doc: e.doc})
				k = int32(len(cand))
				slot[e.doc] = k
			}
			a := &cand[k-1]
			nd := &ix.norms[e.doc]
			if tf := float64(e.path); tf > 0 {
				a.sp += pathWeight * idfP * tf * (bm25K1 + 1) / (tf + nd.path)
			}
			if tf := float64(e.body); tf > 0 {
				a.sc += idfB * tf * (bm25K1 + 1) / (tf + nd.body)
			}
			if tf := float64(e.defs); tf > 0 {
				a.sd += defWeight * idfD * tf * (bm25K1 + 1) / (tf + nd.defs)
			}
		}
	}
	priors := &codePriors
	if q.explain {
		priors = &explainPriors
	}
	w.cand = cand // released (its docs' slots cleared) with w
	// Sorted as (score, doc) pairs, small and without reflection; a
	// document's index orders it by path (docs are sorted by path).
	order := slices.Grow(w.order[:0], len(cand))
	consider := func(j int) {
		a := &cand[j]
		if keep != nil && !keep(ix.docs[a.doc].path) {
			return
		}
		if !q.allVersions && ix.norms[a.doc].page != 0 && ix.otherVersion(a.doc, q.lang) {
			return
		}
		s := a.sp + a.sc + a.sd
		if s <= 0 {
			return
		}
		d := &ix.norms[a.doc]
		s *= priors[ix.role(a.doc, q.allVersions)]
		if d.test && !q.aboutTests {
			s *= testPenalty
		}
		order = append(order, scored{s: s, doc: a.doc, a: int32(j)})
	}
	if len(cand) >= radixScored {
		// By document (the slots, in order): sortScored's radix sort
		// is stable, so equal scores stay by document.
		for _, k := range slot {
			if k > 0 {
				consider(int(k - 1))
			}
		}
	} else {
		for j := range cand {
			consider(j)
		}
	}
	sortScored(order)
	w.order = order
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	if len(order) == 0 {
		return r
	}
	r.Hits = make([]Hit, len(order))
	r.parts = make([][3]float64, len(order))
	r.docs = make([]int32, len(order))
	r.place = make([]int32, len(ix.docs))
	for j, o := range order {
		a := &cand[o.a]
		r.Hits[j] = Hit{Path: ix.docs[o.doc].path, Score: o.s, Relevance: math.Min(1, o.s/ref)}
		r.parts[j] = [3]float64{a.sp, a.sc, a.sd}
		r.docs[j] = o.doc
		r.place[o.doc] = int32(j + 1)
	}
	return r
}

// acc is a candidate document of Ranking: its index and field scores.
type acc struct {
	doc        int32
	sp, sc, sd float64
}

// rankScratch is Ranking's working memory, kept between rankings: a slot
// a document of the tree and the candidates (allocated and zeroed anew,
// they were a twentieth of a warm request's gathering on 10k files).
type rankScratch struct {
	slot  []int32 // all zero between rankings
	cand  []acc
	order []scored
}

var rankScratches sync.Pool

// rankScratchFor returns working memory for a ranking of n documents,
// its slots zero.
func rankScratchFor(n int) *rankScratch {
	w, _ := rankScratches.Get().(*rankScratch)
	if w == nil {
		w = &rankScratch{}
	}
	if cap(w.slot) < n {
		w.slot = make([]int32, n)
	}
	w.slot = w.slot[:n]
	return w
}

// release zeroes the slots the candidates took and keeps w for another
// ranking.
func (w *rankScratch) release() {
	for _, a := range w.cand {
		w.slot[a.doc] = 0
	}
	w.cand, w.order = w.cand[:0], w.order[:0]
	rankScratches.Put(w)
}

// scored is a candidate of a ranking: its score, document and index in
// the ranking's candidates.
type scored struct {
	s   float64
	doc int32
	a   int32
}

// radixScored is the number of candidates from which sortScored sorts by
// radix (pdqsort below: ~100k candidates, common terms at 100k files,
// took a tenth of a request).
const radixScored = 1024

// sortScored sorts order by score, highest first, ties by document. From
// radixScored entries on, order must be by document: it is sorted by
// score with a stable LSD radix sort of the scores' bits (positive
// floats order as their bits), a byte a pass, passes where every score
// has the same byte skipped.
func sortScored(order []scored) {
	if len(order) < radixScored {
		slices.SortFunc(order, func(x, y scored) int {
			if x.s != y.s {
				if x.s > y.s {
					return -1
				}
				return 1
			}
			return cmp.Compare(x.doc, y.doc)
		})
		return
	}
	key := func(o *scored) uint64 { return ^math.Float64bits(o.s) } // ascending: score descending
	src, dst := order, make([]scored, len(order))
	for shift := 0; shift < 64; shift += 8 {
		var count [256]int
		for i := range src {
			count[byte(key(&src[i])>>shift)]++
		}
		if count[byte(key(&src[0])>>shift)] == len(src) {
			continue
		}
		pos := 0
		for b, n := range count {
			count[b] = pos
			pos += n
		}
		for i := range src {
			b := byte(key(&src[i]) >> shift)
			dst[count[b]] = src[i]
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &order[0] {
		copy(order, src)
	}
}

// bm25IDF is BM25's inverse document frequency of a term df of n documents
// hold.
func bm25IDF(n float64, df int) float64 {
	f := float64(df)
	return math.Log(1 + (n-f+0.5)/(f+0.5))
}

// fieldIDF is the inverse document frequency of a term in a small field
// (paths, defined names): the geometric mean of its IDF over that field
// (df of n) and over whole files (at least max(df, dfBody) hold it), as
// BM25F counts one document frequency per term across its fields. A word
// few paths hold but most files use says little about a file whose path
// holds it: "request" in express, in lib/request.js and nearly every
// file's text, had ranked lib/request.js first for "the router dispatches
// a request", its path worth 93% of its score. The same holds for names:
// "error" is in most of httpx's files but defined in few (_exceptions.py
// defines its ...Error classes, _status_codes.py is_error), so with the
// definitions' own IDF those files ranked first for any request that said
// "error" ("Error on verify as str": _config.py 10th).
func fieldIDF(n float64, df, dfBody int) float64 {
	return math.Sqrt(bm25IDF(n, df) * bm25IDF(n, max(df, dfBody)))
}

// Role priors for code tasks and for explanation requests ("how does X
// work", "explain"), where docs may rise, though never to code's level.
var (
	codePriors    = [...]float64{lang.RoleCode: 1, lang.RoleDoc: 0.35, lang.RoleChangelog: 0.1, lang.RoleMeta: 0.15, lang.RoleConfig: 0.5, lang.RoleExample: 0.5, lang.RoleGenerated: 0.3, lang.RoleVendored: 0.3, lang.RoleFixture: 0.4, lang.RoleDeclaration: 0.35}
	explainPriors = [...]float64{lang.RoleCode: 1, lang.RoleDoc: 0.8, lang.RoleChangelog: 0.15, lang.RoleMeta: 0.2, lang.RoleConfig: 0.5, lang.RoleExample: 0.7, lang.RoleGenerated: 0.3, lang.RoleVendored: 0.3, lang.RoleFixture: 0.4, lang.RoleDeclaration: 0.5}
)
