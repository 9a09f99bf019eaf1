package pack

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxd/ctxd/index"
)

// maxCacheEntries bounds the cache: counts of files no longer packed are
// kept up to this many.
const maxCacheEntries = 1 << 20

// cacheMagic and cacheVersion open a persisted count cache.
const (
	cacheMagic   = "CTXDPCK\n"
	cacheVersion = 2 // 2: secrets count
)

// errBadCache reports a cache file that does not verify; the caller starts
// empty.
var errBadCache = errors.New("token count cache is corrupt")

// Load reads counts persisted by Save into the cache (adding to what it
// holds). Compressed views are not persisted, only plain counts. A file
// that does not verify (magic, version, SHA-256 trailer) is an error and
// nothing is loaded.
func (c *Cache) Load(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
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

// Save writes the cache's plain counts to path atomically when it counted
// anything since it was loaded or last saved.
func (c *Cache) Save(path string) error {
	c.mu.Lock()
	if c.added == 0 {
		c.mu.Unlock()
		return nil
	}
	var buf bytes.Buffer
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
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	if err := index.MakeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("save token counts: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".counts-*.tmp")
	if err != nil {
		return fmt.Errorf("save token counts: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("save token counts: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("save token counts: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("save token counts: %w", err)
	}
	return nil
}
