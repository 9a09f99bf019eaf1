package tokens

import (
	"fmt"
	"math/bits"
)

// rankTable maps a vocabulary's tokens (byte strings) to their ranks. It
// is the hot lookup of counting: every piece of the split pattern is
// looked up once, and merging a piece not in the vocabulary looks up
// each candidate pair. A Go map spends most of that time probing groups
// and comparing strings in memory far from the slot; this table is open
// addressing with linear probing, and a slot holds the token's first
// eight bytes and its length, so a token of up to eight bytes (most
// pieces of code) is found or refused by the slot alone, and a longer one
// compares its remaining bytes only when its head matches. Immutable once
// built; safe for concurrent reads.
type rankTable struct {
	data  string // every token, back to back
	slots []rankSlot
	mask  uint64
	n     int
}

type rankSlot struct {
	head uint64 // the token's first 8 bytes, little-endian, zero-padded
	off  uint32 // the token is data[off:off+len]
	// lenRank is the token's length << 24 | its rank; 0 is an empty slot
	// (tokens are never empty).
	lenRank uint32
}

// Tokens are at most maxTokenLen bytes and ranks below 1<<24 (128 and
// 200,000 in tiktoken's encodings).
const (
	maxTokenLen = 255
	maxRank     = 1<<24 - 1
)

// newRankTable returns a table for n tokens of data.
func newRankTable(data string, n int) *rankTable {
	size := 1 << bits.Len(uint(2*n)) // load factor at most 1/2
	return &rankTable{data: data, slots: make([]rankSlot, size), mask: uint64(size - 1)}
}

// put adds the token data[off:off+n] with its rank; a token already
// present keeps its first rank.
func (t *rankTable) put(off, n, rank int) error {
	if n < 1 || n > maxTokenLen || rank < 0 || rank > maxRank || off+n > 1<<32-1 {
		return fmt.Errorf("token of %d bytes, rank %d: out of the table's range", n, rank)
	}
	s := t.data[off : off+n]
	head, h := hashString(s)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.lenRank == 0 {
			*sl = rankSlot{head: head, off: uint32(off), lenRank: uint32(n)<<24 | uint32(rank)}
			t.n++
			return nil
		}
		if sl.head == head && int(sl.lenRank>>24) == n && t.data[sl.off:sl.off+uint32(n)] == s {
			return nil
		}
	}
}

// get returns the rank of token s.
func (t *rankTable) get(s string) (int, bool) {
	head, h := hashString(s)
	return t.getHashed(s, head, h)
}

// getHashed is get with s's hashString already computed.
func (t *rankTable) getHashed(s string, head, h uint64) (int, bool) {
	if len(s) > maxTokenLen {
		return 0, false
	}
	want := uint32(len(s)) << 24
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.lenRank == 0 {
			return 0, false
		}
		if sl.head == head && sl.lenRank&^maxRank == want && (len(s) <= 8 || t.data[sl.off+8:sl.off+uint32(len(s))] == s[8:]) {
			return int(sl.lenRank & maxRank), true
		}
	}
}

// Len returns the number of tokens.
func (t *rankTable) Len() int { return t.n }

// hashString returns a short byte string's (a token's or a candidate's)
// first eight bytes as a little-endian word, zero-padded, and its hash:
// eight bytes at a time, multiplied and folded, then mixed so that the
// low bits (the slot) depend on every byte.
func hashString(s string) (head, h uint64) {
	const m = 0x9E3779B97F4A7C15
	h = uint64(len(s)) * m
	first := true
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if first {
			head, first = w, false
		}
		h = bits.RotateLeft64((h^w)*m, 31)
		s = s[8:]
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	if first {
		head = w
	}
	h = (h ^ w) * m
	h ^= h >> 32
	h *= 0xD6E8FEB86659FD93
	h ^= h >> 32
	return head, h
}
