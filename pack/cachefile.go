package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// maxCacheEntries bounds the cache: counts of files no longer packed are
// kept up to this many.
const maxCacheEntries = 1 << 20

// MaxCacheBytes bounds an encoded cache read back: maxCacheEntries counts
// of up to 64 bytes each with their encoding name.
const MaxCacheBytes = maxCacheEntries * 128

// cacheMagic and cacheVersion open a persisted count cache.
const (
	cacheMagic   = "CTXDPCK\n"
	cacheVersion = 2 // 2: secrets count
)

// errBadCache reports a cache file that does not verify; the caller starts
// empty.
var errBadCache = errors.New("token count cache is corrupt")

// Decode reads counts encoded by [Cache.AppendBinary] into the cache
// (adding to what it holds). Compressed views are not persisted, only plain counts. A file
// that does not verify (magic, version, SHA-256 trailer) is an error and
// nothing is loaded.
func (c *Cache) Decode(b []byte) error {
	if len(b) < len(cacheMagic)+sha256.Size || string(b[:len(cacheMagic)]) != cacheMagic {
		return errBadCache
	}
	body := b[:len(b)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], b[len(body):]) {
		return errBadCache
	}
	r := bytes.NewReader(body[len(cacheMagic):])
	next := func() uint64 {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			return ^uint64(0)
		}
		return v
	}
	if next() != cacheVersion {
		return errBadCache
	}
	n := next()
	if n > uint64(r.Len())/20 {
		return errBadCache
	}
	loaded := make(map[countKey]countVal, n)
	for range n {
		var k countKey
		if _, err := r.Read(k.hash[:]); err != nil {
			return errBadCache
		}
		size, el := next(), next()
		if el > 64 || el > uint64(r.Len()) {
			return errBadCache
		}
		enc := make([]byte, el)
		r.Read(enc)
		tokens, secrets := next(), next()
		if size > 1<<40 || tokens > 1<<40 || secrets > 1<<40 {
			return errBadCache
		}
		k.size, k.encoding = int(size), string(enc)
		loaded[k] = countVal{tokens: int(tokens), secrets: int(secrets)}
	}
	if r.Len() != 0 {
		return errBadCache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[countKey]countVal{}
	}
	for k, v := range loaded {
		if _, ok := c.last[k]; !ok {
			c.last[k] = v
		}
	}
	return nil
}

// Dirty reports whether the cache holds counts the last encoding did not.
func (c *Cache) Dirty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.added > 0
}

// AppendBinary appends the cache's plain counts to dst, for [Cache.Decode],
// when it learned counts since the last encoding (false, and dst,
// otherwise). The workspace store (package workspace) writes the file.
func (c *Cache) AppendBinary(dst []byte) ([]byte, bool) {
	c.mu.Lock()
	if c.added == 0 {
		c.mu.Unlock()
		return dst, false
	}
	buf := bytes.NewBuffer(dst)
	start := buf.Len()
	buf.WriteString(cacheMagic)
	var tmp [binary.MaxVarintLen64]byte
	put := func(v uint64) { buf.Write(binary.AppendUvarint(tmp[:0], v)) }
	put(cacheVersion)
	n := 0
	for k := range c.last {
		if !k.compress {
			n++
		}
	}
	put(uint64(n))
	for k, v := range c.last {
		if k.compress {
			continue
		}
		buf.Write(k.hash[:])
		put(uint64(k.size))
		put(uint64(len(k.encoding)))
		buf.WriteString(k.encoding)
		put(uint64(v.tokens))
		put(uint64(v.secrets))
	}
	c.added = 0
	c.mu.Unlock()
	sum := sha256.Sum256(buf.Bytes()[start:])
	buf.Write(sum[:])
	return buf.Bytes(), true
}
