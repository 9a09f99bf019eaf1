package tokens

import (
	"fmt"
	"io/fs"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// bpeBackend is ctxd's own implementation of tiktoken's byte-pair
// encoding: the vocabularies of github.com/pkoukk/tiktoken-go-loader,
// embedded in a compact form (vocab.go),
// a hand-written matcher of tiktoken's split patterns (pretokenize.go), and
// a merge loop that takes O(n log n) on long pieces. It exists because neither library
// is both right and fast (see docs/tokens.md): tiktoken-go/tokenizer's
// generated regexp splits whitespace runs holding several newlines
// differently from tiktoken, and pkoukk/tiktoken-go's merge is quadratic
// on long pieces.
//
// The vocabulary is decoded on first use, not when the backend is made:
// a process whose counts all come from a [CountStore] never pays for it.
type bpeBackend struct {
	// pieceAt returns the end of the piece of the encoding's split
	// pattern (pretokenize.go) at a byte offset, for count's loop, which
	// allocates no closure.
	pieceAt func(s scanner, i int) int

	encoding string // its embedded vocabulary is vocabFile(encoding)
	once     sync.Once
	ranks    *rankTable // set by load
	// everyByte: every single byte is a token (true of tiktoken's
	// encodings; checked by load), so a one-byte piece is one token.
	everyByte bool

	// merged remembers the token counts of recent pieces not in the
	// vocabulary (identifiers, mostly, which repeat across a tree), by
	// their hash: a lossy cache of immutable entries, so readers and
	// writers need no lock.
	merged [mergedSlots]atomic.Pointer[mergedCount]
}

// mergedSlots is the size of bpeBackend.merged.
const mergedSlots = 1 << 14

// mergedCount is a piece and its token count.
type mergedCount struct {
	piece string
	n     int
}

func newBPEBackend(encoding string) (*bpeBackend, error) {
	var pieceAt func(scanner, int) int
	switch encoding {
	case Cl100kBase:
		pieceAt = scanner.cl100kAt
	case O200kBase:
		pieceAt = scanner.o200kAt
	default:
		return nil, fmt.Errorf("load %s: unknown encoding", encoding)
	}
	if _, err := fs.Stat(vocabFiles, vocabFile(encoding)); err != nil {
		return nil, fmt.Errorf("load %s vocabulary: %w", encoding, err)
	}
	return &bpeBackend{encoding: encoding, pieceAt: pieceAt}, nil
}

// split calls f with each piece of the encoding's split pattern.
func (b *bpeBackend) split(text string, f func(piece string)) {
	splitBy(b.pieceAt, text, f)
}

// load decodes the vocabulary once. The file is embedded and checked by
// the tests, so a decoding error is a broken build.
func (b *bpeBackend) load() {
	b.once.Do(func() {
		ranks, err := loadVocab(b.encoding)
		if err != nil {
			panic(err.Error())
		}
		b.ranks = ranks
		b.everyByte = true
		for c := range 256 {
			if _, ok := ranks.get(string([]byte{byte(c)})); !ok {
				b.everyByte = false
			}
		}
	})
}

func (b *bpeBackend) count(text string) int {
	b.load()
	n := 0
	s := scanner{text}
	for i := 0; i < len(text); {
		end := b.pieceAt(s, i)
		piece := text[i:end]
		i = end
		if len(piece) == 1 && b.everyByte {
			n++
			continue
		}
		head, h := hashString(piece)
		if _, ok := b.ranks.getHashed(piece, head, h); ok {
			n++
			continue
		}
		slot := &b.merged[h%mergedSlots]
		if m := slot.Load(); m != nil && m.piece == piece {
			n += m.n
			continue
		}
		k := b.countLong(piece)
		// A copy: the piece is a substring of a text the cache must not
		// keep alive.
		slot.Store(&mergedCount{piece: strings.Clone(piece), n: k})
		n += k
	}
	return n
}

// maxMergePiece bounds the piece count merges whole. A longer piece (one
// "word" of 64 KiB: a run of one letter, a minified blob without
// separators) is counted window by window: merging costs about 100 bytes
// of memory per byte of the piece, so a 30 MB run took 3 GB and 20 s. A
// window boundary can split a token the whole piece would have merged,
// so the count may be off by one token per 64 KiB (under 0.01%).
const maxMergePiece = 64 << 10

// countLong counts the tokens of a piece not in the vocabulary: merged
// whole, or by windows of maxMergePiece bytes (each cached like a
// piece, so a repeated run costs one merge).
func (b *bpeBackend) countLong(piece string) int {
	if len(piece) <= maxMergePiece {
		return len(b.merge(piece)) - 1
	}
	n := 0
	for len(piece) > 0 {
		w := min(len(piece), maxMergePiece)
		for w < len(piece) && w > maxMergePiece-4 && !utf8.RuneStart(piece[w]) {
			w-- // never cut a rune
		}
		win := piece[:w]
		piece = piece[w:]
		_, h := hashString(win)
		slot := &b.merged[h%mergedSlots]
		if m := slot.Load(); m != nil && m.piece == win {
			n += m.n
			continue
		}
		k := len(b.merge(win)) - 1
		slot.Store(&mergedCount{piece: strings.Clone(win), n: k})
		n += k
	}
	return n
}

// mergeScanMax is the piece length up to which merge uses tiktoken's
// simple quadratic loop; above it, a heap.
const mergeScanMax = 64

// merge returns the boundaries of the tokens of piece (a piece not in
// the vocabulary): 0, ends of each token..., len(piece). It merges the
// adjacent pair of lowest rank, leftmost first, until no pair is in the
// vocabulary, which is tiktoken's rule.
func (b *bpeBackend) merge(piece string) []int {
	b.load()
	if len(piece) <= mergeScanMax {
		return b.mergeScan(piece)
	}
	return b.mergeHeap(piece)
}

func (b *bpeBackend) rank(s string) int {
	if r, ok := b.ranks.get(s); ok {
		return r
	}
	return math.MaxInt
}

// mergeScan is tiktoken's loop: O(n²), fastest for short pieces.
func (b *bpeBackend) mergeScan(piece string) []int {
	// parts[i] is a token start; ranks[i] the rank of parts[i]..parts[i+2].
	parts := make([]int, len(piece)+1)
	ranks := make([]int, len(piece)+1)
	for i := range parts {
		parts[i] = i
	}
	pairRank := func(i int) int {
		if i+2 < len(parts) {
			return b.rank(piece[parts[i]:parts[i+2]])
		}
		return math.MaxInt
	}
	for i := range ranks {
		ranks[i] = pairRank(i)
	}
	for {
		best, at := math.MaxInt, -1
		for i := 0; i+1 < len(parts); i++ {
			if ranks[i] < best {
				best, at = ranks[i], i
			}
		}
		if at < 0 {
			return parts
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = pairRank(at)
		if at > 0 {
			ranks[at-1] = pairRank(at - 1)
		}
	}
}

// mergeNode is a token of a piece being merged, in a doubly linked list.
type mergeNode struct {
	start      int
	prev, next int // indices into the node slice; -1 at the ends
	rank       int // rank of this token joined with the next
	version    int // bumped when rank changes, to skip stale heap entries
	dead       bool
}

type mergeItem struct {
	rank, start, node, version int
}

func (a mergeItem) less(b mergeItem) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.start < b.start // leftmost first, as tiktoken
}

// mergeQueue is a binary min-heap of mergeItems (typed, so pushing does
// not allocate as container/heap's interface does).
type mergeQueue []mergeItem

func (q *mergeQueue) push(it mergeItem) {
	h := append(*q, it)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	*q = h
}

func (q *mergeQueue) pop() mergeItem {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].less(h[m]) {
			m = l
		}
		if r < len(h) && h[r].less(h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// mergeHeap gives the same result as mergeScan in O(n log n): a heap of
// candidate pairs ordered by (rank, start), with stale entries skipped.
func (b *bpeBackend) mergeHeap(piece string) []int {
	n := len(piece)
	nodes := make([]mergeNode, n)
	for i := range nodes {
		nodes[i] = mergeNode{start: i, prev: i - 1, next: i + 1}
	}
	nodes[n-1].next = -1
	end := func(i int) int {
		if nodes[i].next < 0 {
			return n
		}
		return nodes[nodes[i].next].start
	}
	pairRank := func(i int) int {
		j := nodes[i].next
		if j < 0 {
			return math.MaxInt
		}
		return b.rank(piece[nodes[i].start:end(j)])
	}
	q := make(mergeQueue, 0, n)
	for i := range nodes {
		nodes[i].rank = pairRank(i)
		if nodes[i].rank != math.MaxInt {
			q.push(mergeItem{nodes[i].rank, nodes[i].start, i, 0})
		}
	}
	for len(q) > 0 {
		it := q.pop()
		nd := &nodes[it.node]
		if nd.dead || nd.version != it.version || nd.rank != it.rank {
			continue
		}
		// Merge it.node with its next.
		j := nd.next
		nodes[j].dead = true
		nd.next = nodes[j].next
		if nd.next >= 0 {
			nodes[nd.next].prev = it.node
		}
		for _, k := range [2]int{it.node, nd.prev} {
			if k < 0 {
				continue
			}
			nodes[k].rank = pairRank(k)
			nodes[k].version++
			if nodes[k].rank != math.MaxInt {
				q.push(mergeItem{nodes[k].rank, nodes[k].start, k, nodes[k].version})
			}
		}
	}
	var bounds []int
	for i := 0; i >= 0; i = nodes[i].next {
		bounds = append(bounds, nodes[i].start)
	}
	return append(bounds, n)
}
