package secrets

// matcher finds every occurrence of a set of byte strings in a text
// (Aho-Corasick). It is the fast path's first pass over every text, so it
// is built for speed over a general library's: the automaton is a dense
// table of transitions (failure links resolved at build time, so each
// byte costs one load) over classes of bytes (the bytes no pattern holds
// share one class, keeping the table small enough for the cache), and a
// transition says by its sign whether a pattern ends at its target.
// ASCII letters match either case (an uppercase letter is in its
// lowercase's class): the fast path looks for lowercase strings in the
// ASCII-lowercased text.
type matcher struct {
	class  [256]uint8
	nclass int
	// next[s*nclass + class] is the state after s on a byte of class,
	// negated (^t) when a pattern ends at state t; state 0 is the root.
	next []int32
	// ends[s] are the patterns that end at state s: its own and those of
	// its suffixes, by pattern index.
	ends [][]int32
}

// newMatcher builds the automaton of pats (non-empty byte strings).
func newMatcher(pats []string) *matcher {
	m := &matcher{}
	var used [256]bool
	for _, p := range pats {
		for i := 0; i < len(p); i++ {
			used[lowerASCII(p[i])] = true
		}
	}
	m.nclass = 1 // class 0: bytes no pattern holds
	for c := range 256 {
		if used[c] {
			m.class[c] = uint8(m.nclass)
			m.nclass++
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	// The trie: goto[s*nclass+k] is the child of s by class k, -1 for
	// none.
	var trie []int32
	addState := func() int32 {
		for range m.nclass {
			trie = append(trie, -1)
		}
		m.ends = append(m.ends, nil)
		return int32(len(m.ends) - 1)
	}
	addState()
	for k, p := range pats {
		s := int32(0)
		for i := 0; i < len(p); i++ {
			at := int(s)*m.nclass + int(m.class[p[i]])
			if trie[at] < 0 {
				t := addState() // may move trie
				trie[at] = t
			}
			s = trie[at]
		}
		m.ends[s] = append(m.ends[s], int32(k))
	}
	// Breadth first: a state's failure state is shallower, so its
	// transitions and ends are complete when the state is reached.
	n := len(m.ends)
	m.next = make([]int32, n*m.nclass)
	fail := make([]int32, n)
	queue := []int32{0}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s != 0 {
			m.ends[s] = append(m.ends[s], m.ends[fail[s]]...)
		}
		for k := range m.nclass {
			t := trie[int(s)*m.nclass+k]
			if t < 0 {
				if s == 0 {
					m.next[k] = 0
				} else {
					m.next[int(s)*m.nclass+k] = m.next[int(fail[s])*m.nclass+k]
				}
				continue
			}
			if s != 0 {
				fail[t] = m.next[int(fail[s])*m.nclass+k]
			}
			m.next[int(s)*m.nclass+k] = t
			queue = append(queue, t)
		}
	}
	for i, t := range m.next {
		if len(m.ends[t]) > 0 {
			m.next[i] = ^t
		}
	}
	return m
}

// walk calls fn with the index of the last byte and the pattern of every
// occurrence of a pattern in text, in order of their ends.
func (m *matcher) walk(text string, fn func(end int, pat int32)) {
	s := int32(0)
	nclass := int32(m.nclass)
	for i := 0; i < len(text); i++ {
		s = m.next[s*nclass+int32(m.class[text[i]])]
		if s < 0 {
			s = ^s
			for _, k := range m.ends[s] {
				fn(i, k)
			}
		}
	}
}

// lowerASCII lowercases an ASCII letter.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
