package secrets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ctxd/ctxd/internal/uvarint"
	"github.com/ctxd/ctxd/internal/vsort"
)

// The clean set: the SHA-256 of every text a scan found no secret in,
// persisted so that a fresh process (ctxd prompt, a restarted daemon)
// does not scan an unchanged file again. Only clean texts are persisted:
// a text with findings is scanned again (rare, and then the findings are
// never written to disk). Listing a hash only spares the scan of the text
// with exactly that content, so a hostile file in the state directory can
// at worst skip the scan of texts its author already knows byte for byte.
//
// Format: cleanMagic, the rules key (length-prefixed), the count, that many
// 32-byte hashes in ascending order, and a SHA-256 trailer over all of it.
// A file that does not verify, or that was written for other rules, is
// ignored (and rewritten by the next save).

const cleanMagic = "CTXDSEC1"

// cleanSetVersion: bump it when ctxd's own filtering of findings changes.
// 2: keyed by the module's build information, not the compiled rules; 3:
// the password-assignment rule; 4: the rules generated from the module
// (rulesModule) and run by ctxd's own loop.
const cleanSetVersion = "4"

// MaxCleanBytes bounds the file read: 1<<20 hashes.
const MaxCleanBytes = 32<<20 + 4096

// ErrCleanSet reports a clean-set file that does not verify.
var ErrCleanSet = errors.New("secrets: clean set does not verify")

// rulesKey names the rule set without compiling it: the gitleaks module
// the generated rules come from (TestRulesGenerated keeps them equal to
// that version's), ctxd's own rules and how ctxd uses the findings, so
// other rules invalidate the set.
func (s *Scanner) rulesKey() string {
	s.keyOnce.Do(func() {
		mod := rulesModule
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00min=8 decode=0", mod, cleanSetVersion, URLPasswordRule, urlPassword.String())
		fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%q", PasswordRule, passwordQuoted.String(), passwordBare.String(), passwordKeyWords)
		fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%d", AWSSecretRule, awsKeyID.String(), awsSecret.String(), awsPairLines)
		s.key = fmt.Sprintf("%x", h.Sum(nil))
	})
	return s.key
}

// DecodeClean loads a clean set (what [Scanner.AppendClean] wrote) into
// the scanner's cache: a set written for other rules is ignored (nil
// error), a set that does not verify returns [ErrCleanSet]. The store of
// the workspace (package workspace) reads and writes the file.
func (s *Scanner) DecodeClean(b []byte) error {
	if len(b) < len(cleanMagic)+sha256.Size || string(b[:len(cleanMagic)]) != cleanMagic {
		return ErrCleanSet
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return ErrCleanSet
	}
	r := uvarint.NewReader(body[len(cleanMagic):])
	key := r.Str()
	n := r.Uvarint()
	if r.Err() != nil || n*32 != uint64(r.Len()) {
		return ErrCleanSet
	}
	if key != s.rulesKey() {
		return nil // other rules: scan again
	}
	rest := r.Bytes(r.Len())
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cache) == 0 {
		s.cache = make(map[[32]byte][]finding, min(int(n), maxCached)) // sized once, not grown
	}
	// The set fills the newer generation first, then the older (a set
	// saved from both is up to twice maxCached; the file keeps no age
	// order).
	for i := 0; i+32 <= len(rest); i += 32 {
		var h [32]byte
		copy(h[:], rest[i:i+32])
		if _, ok := s.cache[h]; ok {
			continue
		}
		if _, ok := s.old[h]; ok {
			continue
		}
		switch {
		case len(s.cache) < maxCached:
			s.cache[h] = nil
		case len(s.old) < maxCached:
			if s.old == nil {
				s.old = make(map[[32]byte][]finding)
			}
			s.old[h] = nil
		}
	}
	s.persisted = s.cleanCountLocked()
	return nil
}

// eachCleanLocked calls f with the hash of each clean text of both
// generations.
func (s *Scanner) eachCleanLocked(f func(h [32]byte)) {
	for _, m := range []map[[32]byte][]finding{s.cache, s.old} {
		for h, fs := range m {
			if len(fs) == 0 {
				f(h)
			}
		}
	}
}

// cleanCountLocked counts the clean entries of the cache.
func (s *Scanner) cleanCountLocked() int {
	n := 0
	s.eachCleanLocked(func([32]byte) { n++ })
	return n
}

// CleanDirty reports whether the cache holds clean texts the last decode
// or encode of the clean set did not.
func (s *Scanner) CleanDirty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cleanCountLocked() > s.persisted
}

// AppendClean appends the cache's clean set to dst when it holds texts the
// last decode or encode did not (false, and dst, otherwise).
func (s *Scanner) AppendClean(dst []byte) ([]byte, bool) {
	s.mu.Lock()
	hs := make([][32]byte, 0, len(s.cache)+len(s.old))
	s.eachCleanLocked(func(h [32]byte) { hs = append(hs, h) })
	if len(hs) <= s.persisted {
		s.mu.Unlock()
		return dst, false
	}
	s.persisted = len(hs)
	s.mu.Unlock()
	vsort.Func(hs, func(a, b [32]byte) int { return bytes.Compare(a[:], b[:]) })
	buf := bytes.NewBuffer(dst)
	start := buf.Len()
	buf.WriteString(cleanMagic)
	key := s.rulesKey()
	buf.Write(binary.AppendUvarint(nil, uint64(len(key))))
	buf.WriteString(key)
	buf.Write(binary.AppendUvarint(nil, uint64(len(hs))))
	for _, h := range hs {
		buf.Write(h[:])
	}
	sum := sha256.Sum256(buf.Bytes()[start:])
	buf.Write(sum[:])
	return buf.Bytes(), true
}
