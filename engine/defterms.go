package engine

import (
	"context"
	"crypto/sha256"
	"path/filepath"

	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/symbols"
)

// The terms of a large file's definitions (gather.DefTerms, what focus
// lines rank a file's functions by) are read once per content: kept in
// memory for the contents a process used last (maxDefTerms) and in a record
// file beside the symbol index (index/defterms.keys, defterms.*.dat),
// which the daemon's background analysis fills for every large source
// file, so a request on a file it has not seen in this process reads the
// terms instead of scanning the file's definitions again.

const (
	// maxDefTerms bounds the contents whose definitions' terms are kept
	// in memory.
	maxDefTerms = 512
	// defTermsName names the record file.
	defTermsName = "defterms"
	// maxDefTermsBytes bounds the record file (compaction keeps the
	// records this process used first).
	maxDefTermsBytes = 256 << 20
)

// defTermsKey is the record file's key: the encoding, the focus rules
// choosing the definitions and the symbol index they come from.
func defTermsKey() string { return "definition-terms/2 " + symbols.Version() }

// defTermsRecords returns the record file of the definitions' terms,
// opened on first use once index/ exists (nil before, or when it cannot
// be opened: the terms are then computed per process).
func (e *Engine) defTermsRecords() *index.Records {
	e.defTermsMu.Lock()
	defer e.defTermsMu.Unlock()
	if e.defTermsRecs != nil || e.defTermsFailed {
		return e.defTermsRecs
	}
	dir := filepath.Join(e.stateDir, "index")
	if !index.Exists(dir) {
		return nil
	}
	r, err := index.OpenRecords(dir, defTermsName, defTermsKey())
	if err != nil {
		e.log.Debug("definition terms kept in memory", "err", err)
		e.defTermsFailed = true
		return nil
	}
	r.MaxBytes = maxDefTermsBytes
	e.defTermsRecs = r
	return r
}

// closeDefTerms compacts and closes the record file.
func (e *Engine) closeDefTerms() { closeRecords(&e.defTermsMu, &e.defTermsRecs) }

// defTermsRecordKey is the key of the terms of spans in a content whose
// symbol-index key is key, in memory and in the record file: the spans
// are part of it, so a cached value never answers for other definitions
// (a test file's tests come from its analysis, not the symbol index).
func defTermsRecordKey(key [32]byte, spans []gather.DefSpan) [32]byte {
	h := sha256.New()
	h.Write(key[:])
	var b [8]byte
	for _, s := range spans {
		b = [8]byte{byte(s.Start), byte(s.Start >> 8), byte(s.Start >> 16), byte(s.Start >> 24), byte(s.End), byte(s.End >> 8), byte(s.End >> 16), byte(s.End >> 24)}
		h.Write(b[:])
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// defTermsOf returns the terms of spans in content, whose symbol-index key
// is key: from memory, else from the record file, else read from content
// (and recorded).
func (e *Engine) defTermsOf(key [32]byte, content string, spans []gather.DefSpan) *gather.DefTerms {
	rk := defTermsRecordKey(key, spans)
	return e.defTerms.Get(rk, func() *gather.DefTerms {
		r := e.defTermsRecords()
		if r != nil {
			if b, ok := r.Get(rk); ok {
				if dt, err := gather.DecodeDefTerms(b); err == nil && dt.Len() == len(spans) {
					return dt
				}
			}
		}
		e.defTermsScans.Add(1)
		return e.scanDefTerms(r, rk, []byte(content), spans)
	})
}

// scanDefTerms reads the terms of spans from content and records them
// under rk in r (when not nil).
func (e *Engine) scanDefTerms(r *index.Records, rk [32]byte, content []byte, spans []gather.DefSpan) *gather.DefTerms {
	dt := gather.NewDefTerms(content, spans)
	if r != nil {
		if err := r.Put(rk, dt.AppendBinary(nil)); err != nil {
			e.log.Debug("definition terms not recorded", "err", err)
		}
	}
	return dt
}

// recordDefTerms writes the terms of the focus candidates of a large file
// rel, whose symbol-index entry is ent, to the record file unless it has
// them (the background analysis: the memory cache is left to requests).
func (e *Engine) recordDefTerms(ctx context.Context, rel string, content []byte, ent *index.Symbols) {
	r := e.defTermsRecords()
	if r == nil || ent == nil {
		return
	}
	spans, _, _ := e.focusCandidates(ctx, rel, content, ent)
	rk := defTermsRecordKey(ent.Hash, spans)
	if r.Has(rk) || ctx.Err() != nil {
		return
	}
	e.scanDefTerms(r, rk, content, spans)
}
