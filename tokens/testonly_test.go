package tokens

// Functions only the tests use (they were exported or compiled into the
// binary before).

// encode returns the token ids of text (counting never builds them).
// ok is false when c is not an exact counter (estimators have no ids).
func encode(c Counter, text string) (ids []int, ok bool) {
	e, isExact := c.(interface{ encode(string) []int })
	if !isExact {
		return nil, false
	}
	return e.encode(text), true
}

// encoder is a backend that also gives the ids (every backend does; only
// the tests ask).
type encoder interface{ encode(text string) []int }

// testBackend is a backend with its ids.
type testBackend interface {
	backend
	encoder
}

func (c *exactCounter) encode(text string) []int {
	if text == "" {
		return nil
	}
	return c.backend.(encoder).encode(validUTF8(text))
}

func (b *bpeBackend) encode(text string) []int {
	b.load()
	var ids []int
	b.split(text, func(piece string) {
		if r, ok := b.ranks.get(piece); ok {
			ids = append(ids, r)
			return
		}
		bounds := b.merge(piece)
		for i := 0; i+1 < len(bounds); i++ {
			r, _ := b.ranks.get(piece[bounds[i]:bounds[i+1]])
			ids = append(ids, r)
		}
	})
	return ids
}

// bytes returns the memory the cache's table takes.
func (c *blockCache) bytes() int { return len(c.slots) * 24 }

// len returns the number of cached counts.
func (c *blockCache) len() int {
	n := 0
	for p := uint64(0); p <= c.mask; p++ {
		mu := &c.locks[p%blockLocks]
		mu.Lock()
		for _, e := range c.slots[2*p : 2*p+2] {
			if e.n != 0 {
				n++
			}
		}
		mu.Unlock()
	}
	return n
}

// len returns the number of cached counts.
func (c *countCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// truncateMiddle keeps the head and the tail of text and replaces the
// middle with a marker such as "\n... [1234 lines, 56789 chars elided] ...\n"
// so that c.Count(result) <= maxTokens. It is [Middle] with the default
// options; see there.
func truncateMiddle(c Counter, text string, maxTokens int) string {
	return Middle(c, text, maxTokens, MiddleOptions{}).Text
}
