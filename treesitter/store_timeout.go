package treesitter

import (
	"encoding/binary"
	"time"

	"github.com/ctxd/ctxd/internal/uvarint"
)

// A parse that runs out of time stores nothing, so without a record of it
// every later call parses the content again only to time out again: in
// the Go tree, ssa/opGen.go (3 MB) and ssa/rewriteAMD64.go (1.9 MB) took
// 2-4 s on a shared machine against the 2 s DefaultTimeout, each attempt
// ~35-70 MB of C heap, on every background pass, every restart and every
// request that wanted their views or symbols (stdlib-100k holds 7 copies
// of each). A Store therefore keeps a timeout verdict per content: the
// time the parse had and when it ran out. A later parse of that content
// with no more time than that returns a [*TimeoutError] at once, as the
// parse would have: the caller falls back as it does on any timeout.
//
// The verdict is not forever, since a parse timed on a loaded machine may
// fit on a quiet one: it holds for timeoutRetry, and not for a caller
// that allows more time (timeoutSlack more); the parse is tried again
// then, and a success clears the verdict. One retry a day per content
// costs one parse, against one per pass, restart and request.
//
// A verdict is stored as an analysis entry under its own key (timeoutKey:
// the analyses' key of "timeout/1"), so it persists with them (in the
// record file, or in the store's encoding without one), in their LRU,
// without a change to the encoding: another version of the verdict names
// another key.
const (
	timeoutRetry = 24 * time.Hour
	// timeoutSlack: one caller's limits differ by the time spent before
	// the parse (hashing, a store lookup), a few milliseconds.
	timeoutSlack = 8 // the limit may exceed the verdict's by 1/8
)

// now is the clock of the timeout verdicts, a variable for the tests.
var now = time.Now

// timeoutVerdict is a parse that ran out of time: the time it had (zero:
// a verdict cleared by a later parse that finished) and when.
type timeoutVerdict struct {
	limit time.Duration
	at    time.Time
}

// holds reports whether a parse allowed limit would time out by v.
func (v timeoutVerdict) holds(limit time.Duration, t time.Time) bool {
	if v.limit <= 0 || limit > v.limit+v.limit/timeoutSlack {
		return false
	}
	age := t.Sub(v.at)
	return age >= 0 && age < timeoutRetry
}

// timeoutKey is the store key of the timeout verdict of a source.
func timeoutKey(lang string, src sourceSum) [32]byte {
	return keyOf("timeout/1", lang, src, Options{})
}

// Encoding: uvarints, the limit in microseconds and the Unix time in
// seconds.
func (v timeoutVerdict) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(v.limit.Microseconds()))
	return binary.AppendUvarint(b, uint64(max(v.at.Unix(), 0)))
}

func decodeTimeout(b []byte) (timeoutVerdict, bool) {
	r := uvarint.NewReader(b)
	us, sec := r.Uvarint(), r.Uvarint()
	if r.Err() != nil || r.Len() != 0 || us > 1<<40 || sec > 1<<40 {
		return timeoutVerdict{}, false
	}
	return timeoutVerdict{limit: time.Duration(us) * time.Microsecond, at: time.Unix(int64(sec), 0)}, true
}

// timeout returns the timeout verdict of key, if the store has one.
func (s *Store) timeout(key [32]byte) (timeoutVerdict, bool) {
	data, ok := s.lookup(key, false)
	if !ok {
		return timeoutVerdict{}, false
	}
	return decodeTimeout(data)
}

// putTimeout records that the parse of key's content ran out of limit
// (zero: that it finished, clearing a verdict).
func (s *Store) putTimeout(key [32]byte, limit time.Duration) {
	s.putAnalysis(key, timeoutVerdict{limit: limit, at: now()}.encode())
}
