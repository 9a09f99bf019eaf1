package workspace

import "github.com/ctxd/ctxd/workspace/tree"

// LineHistoryKey names a file's line history: its root-relative path, its
// content (sha256) and the commit HEAD was at. The history is that of the
// file at this content (the uncommitted diff against HEAD included), so a
// moved HEAD or an edit reads it again.
type LineHistoryKey struct {
	Rel     string
	Content [32]byte
	Head    string
}

// maxLineHistories bounds the line histories kept in memory: a request
// reads at most a few files' (engine's focusLadderFiles), each a few
// hundred bytes.
const maxLineHistories = 2048

// LineHistories returns the line histories of keys, those not in memory
// read by read (one call for all of them, which returns an entry for the
// keys it found a history for; the others are kept as none). A read that
// failed (ok false: git stopped, the request was cancelled) is not kept.
func (s *Store) LineHistories(keys []LineHistoryKey, read func(missing []LineHistoryKey) (map[LineHistoryKey]*tree.LineHistory, bool)) map[LineHistoryKey]*tree.LineHistory {
	out := make(map[LineHistoryKey]*tree.LineHistory, len(keys))
	var missing []LineHistoryKey
	for _, k := range keys {
		if h, ok := s.lineHist.Lookup(k); ok {
			out[k] = h
		} else {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return out
	}
	got, ok := read(missing)
	for _, k := range missing {
		h := got[k]
		if ok {
			s.lineHist.Put(k, h)
		}
		out[k] = h
	}
	return out
}
