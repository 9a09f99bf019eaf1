// Package workspace owns what ctxd keeps about one workspace between
// requests and processes. Its Store is the one writer of <state>/index/:
// the walk's files go through its directory (workspace/disk, handed to
// gather as tree.Options.State: files.idx, the file index; links.bin,
// the file graph; commits.bin and cochange.bin, the git facts of a HEAD),
// and it reads and writes the per-content facts the analyzers compute:
//
//   - views.bin and analyses.keys/.dat: the tree-sitter store (per content,
//     a file's analysis; per rendered view, whether it parses);
//   - counts.bin and blockcounts.keys/.dat: token counts per encoding and
//     text, and per content the counts of its blocks;
//   - symbols.keys/.dat: the symbol index's definitions and references per
//     content;
//   - defterms.keys/.dat: the terms of a large file's definitions;
//   - secrets-clean.bin: the contents the secret scan found clean;
//   - pack-counts.bin: the token and secret counts of packed files.
//
// The analyzers (treesitter, tokens, symbols, secrets, pack) hold these
// facts in memory and encode or decode them; the Store opens, loads, saves
// and closes them with one lifecycle ([Open], [Store.Save] after work,
// [Store.Flush], [Store.Close]), one save timing (a daemon rewrites the
// whole-file stores at most every [SaveEvery], in the background; Flush
// and Close write what is left) and one failure policy: a file that does
// not verify, or was written by another version, is rebuilt from what the
// process learns (a warning for a corrupt whole file, nothing for a stale
// one); a record file that cannot be opened leaves its facts in memory for
// the process, said once at debug level; a failed save is said at debug
// level.
//
// Nothing is written until <state>/index/ exists: the file index creates it
// for trees large enough to gain from persisted state (a smaller tree is
// analysed faster than its state loads).
package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/internal/memo"
	"github.com/ctxd/ctxd/pack"
	"github.com/ctxd/ctxd/secrets"
	"github.com/ctxd/ctxd/symbols"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/disk"
	"github.com/ctxd/ctxd/workspace/tree"
)

// SaveEvery spaces a daemon's rewrites of the whole-file stores (views.bin,
// counts.bin, the clean set, the pack counts): each is a whole file, and
// Flush and Close write what is left.
const SaveEvery = 30 * time.Second

// The whole files of the Store, each sealed (index.WriteSealed: a magic, a
// key naming what it was computed with, a checksum) except the clean set
// and the pack counts, which seal themselves.
const (
	ViewsMagic = "CTXDVIEW"
	ViewsFile  = "views.bin"
	// MaxViewsBytes bounds the entries written (the most recently used
	// first): about 6,000 analyses of average source files, several
	// requests' candidates. The read allows the file's framing on top.
	MaxViewsBytes = 24 << 20

	CountsMagic = "CTXDCNT1"
	CountsFile  = "counts.bin"
	CountsKey   = "token-counts/1"
	// maxCounts bounds the counts written (the most recently used
	// first): about 22 bytes each, 6.6 MB at most. Three quarters of
	// what tokens keeps in memory (400,000, where it trims to three
	// quarters): a restarted daemon on a 100k-file tree loads as many
	// counts as it may hold after a trim, instead of recounting the
	// sections past 200,000.
	maxCounts = 300_000

	cleanFile = "secrets-clean.bin"
	packFile  = "pack-counts.bin"
)

// The record files of the Store (NAME.keys and NAME.*.dat in index/): read
// one record at a time, so a store holding a whole tree costs a fresh
// process only what it uses.
const (
	// AnalysesName holds the tree-sitter analyses.
	AnalysesName = "analyses"
	// VectorsName holds per file content the token count of each of its
	// blocks (tokens.CountBase), recorded by the background analysis, so a
	// restarted daemon counts a view of a file it never counted with BPE
	// over the few blocks the view does not share with the file only
	// (tokens.Prime).
	VectorsName = "blockcounts"
	// SymbolsName holds the symbol index's entries.
	SymbolsName = "symbols"
	// DefTermsName holds the terms of large files' definitions.
	DefTermsName = "defterms"
)

// recordFiles is each record file's key (what its records were computed
// with: another key's file is replaced by an empty one) and size bound
// (over it, compaction keeps the records this process used first).
var recordFiles = map[string]struct {
	key      func() string
	maxBytes int64
}{
	AnalysesName: {ViewsKey, 512 << 20},  // several copies of GOROOT's
	VectorsName:  {vectorsKey, 96 << 20}, // one byte per 40-60 bytes of source
	SymbolsName:  {symbols.Version, 512 << 20},
	DefTermsName: {defTermsKey, 256 << 20},
}

// ViewsKey is the key of views.bin and the analyses: what the entries were
// computed with.
func ViewsKey() string { return "treesitter-store/" + strconv.Itoa(treesitter.StoreVersion) }

func vectorsKey() string { return tokens.VectorsKey }

// defTermsKey is the key of the definitions' terms: the encoding, the focus
// rules choosing the definitions and the symbol index they come from.
func defTermsKey() string { return "definition-terms/2 " + symbols.Version() }

// maxDefTerms bounds the contents whose definitions' terms are kept in
// memory.
const maxDefTerms = 512

// Options configure a Store.
type Options struct {
	// StateDir is the workspace's state directory; the Store reads and
	// writes its index/.
	StateDir string
	Logger   *slog.Logger
}

// Store is the persisted per-content facts of one workspace. It is safe for
// concurrent use. Each fact is loaded on first use.
type Store struct {
	dir   string    // <state>/index
	files *disk.Dir // dir's layout: the sealed files and the file index
	log   *slog.Logger

	// recsMu guards recs and recsFailed: the record files opened, and the
	// ones that could not be (their facts stay in memory).
	recsMu     sync.Mutex
	recs       map[string]*index.Records
	recsFailed map[string]bool

	viewsOnce sync.Once
	views     atomic.Pointer[treesitter.Store]

	countsOnce sync.Once
	counts     atomic.Pointer[tokens.CountStore]

	symsOnce sync.Once
	syms     atomic.Pointer[symbols.Index]

	cleanOnce sync.Once
	clean     atomic.Pointer[secrets.Scanner]

	packOnce sync.Once
	pack     atomic.Pointer[pack.Cache]

	// defTerms caches the definitions' terms of large files by content.
	defTerms *memo.Map[[32]byte, *tree.DefTerms]
	// defTermsScans counts the contents whose definitions' terms were read
	// from the text (neither in memory nor recorded).
	defTermsScans atomic.Int64
	// lineTerms caches the terms of a content's module-level lines
	// (LineTerms), in memory only; lineTermsBuilds counts those built.
	lineTerms       *memo.Map[LineTermsKey, *LineTerms]
	lineTermsBuilds atomic.Int64
	// lineHist caches a file's line history (tree.LineHistory) by its
	// path, content and HEAD, in memory only; nil values are kept too (no
	// history).
	lineHist *memo.Map[LineHistoryKey, *tree.LineHistory]

	// saveMu guards saving and saved; saveWG waits for the background
	// save; writeMu orders the writes.
	saveMu  sync.Mutex
	saving  bool
	saved   time.Time
	saveWG  sync.WaitGroup
	writeMu sync.Mutex
}

// Open returns the store of opts.StateDir. It reads nothing yet.
func Open(opts Options) *Store {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := filepath.Join(opts.StateDir, "index")
	return &Store{
		dir:        dir,
		files:      disk.New(dir),
		log:        log,
		recs:       map[string]*index.Records{},
		recsFailed: map[string]bool{},
		defTerms:   memo.New[[32]byte, *tree.DefTerms](maxDefTerms),
		lineTerms:  memo.New[LineTermsKey, *LineTerms](maxLineTerms),
		lineHist:   memo.New[LineHistoryKey, *tree.LineHistory](maxLineHistories),
	}
}

// Dir is the store's directory, <state>/index.
func (s *Store) Dir() string { return s.dir }

// Files is the store's directory for the walk (tree.Options.State): the
// file index, the file graph and the git caches.
func (s *Store) Files() *disk.Dir { return s.files }

// persisted reports whether the store's directory exists: nothing is
// written before.
func (s *Store) persisted() bool { return s.files.Exists() }

// records returns the record file name, opened on first use once the
// directory exists (nil before, or when it cannot be opened).
func (s *Store) records(name string) *index.Records {
	s.recsMu.Lock()
	defer s.recsMu.Unlock()
	if r := s.recs[name]; r != nil || s.recsFailed[name] {
		return r
	}
	if !s.persisted() {
		return nil
	}
	f := recordFiles[name]
	r, err := index.OpenRecords(s.dir, name, f.key())
	if err != nil {
		s.recsFailed[name] = true
		s.log.Debug("record file not used: its facts stay in memory", "file", name, "err", err)
		return nil
	}
	r.MaxBytes = f.maxBytes
	s.recs[name] = r
	return r
}

// Views returns the tree-sitter store, loaded on first use (a corrupt file
// is logged and rebuilt), its analyses backed by their record file.
func (s *Store) Views() *treesitter.Store {
	s.viewsOnce.Do(func() {
		v := s.loadViews()
		s.attachAnalyses(v)
		s.views.Store(v)
	})
	return s.views.Load()
}

func (s *Store) viewsPath() string { return filepath.Join(s.dir, ViewsFile) }

func (s *Store) loadViews() *treesitter.Store {
	t0 := time.Now()
	body, err := s.files.ReadSealed(ViewsFile, ViewsMagic, ViewsKey(), MaxViewsBytes+(MaxViewsBytes>>2))
	if err == nil {
		var v *treesitter.Store
		if v, err = treesitter.DecodeStore(body); err == nil {
			st := v.Stats()
			s.log.Debug("tree-sitter store loaded", "analyses", st.Analyses, "verdicts", st.Verdicts, "took", time.Since(t0))
			return v
		}
	}
	if !index.IsRebuild(err) {
		s.log.Warn("persisted tree-sitter store not used: rebuilding it", "err", err)
		os.Remove(s.viewsPath()) // rebuilt from what this process learns
	}
	return treesitter.NewStore()
}

// attachAnalyses backs v's analyses with their record file, once the
// directory exists (a tree too small for a persisted index keeps them in
// views.bin). It reports whether v has its records.
func (s *Store) attachAnalyses(v *treesitter.Store) bool {
	if v.HasRecords() {
		return true
	}
	r := s.records(AnalysesName)
	if r == nil {
		return false
	}
	if err := v.SetRecords(r); err != nil {
		s.log.Debug("tree-sitter analyses not saved", "err", err)
	}
	return true
}

// Counts returns the token count store, loaded on first use (a corrupt
// file is logged and rebuilt), its block vectors backed by their record
// file once the directory exists.
func (s *Store) Counts() *tokens.CountStore {
	s.countsOnce.Do(func() {
		c := tokens.NewCountStore()
		body, err := s.files.ReadSealed(CountsFile, CountsMagic, CountsKey, 64<<20)
		if err == nil {
			var d *tokens.CountStore
			if d, err = tokens.DecodeCountStore(body); err == nil {
				c = d
			}
		}
		if err != nil && !index.IsRebuild(err) {
			s.log.Warn("persisted token counts not used: rebuilding them", "err", err)
		}
		s.counts.Store(c)
	})
	c := s.counts.Load()
	s.attachVectors(c)
	return c
}

// attachVectors backs c's block vectors with their record file, once the
// directory exists.
func (s *Store) attachVectors(c *tokens.CountStore) {
	s.recsMu.Lock()
	attached := s.recs[VectorsName] != nil || s.recsFailed[VectorsName]
	s.recsMu.Unlock()
	if attached {
		return
	}
	if r := s.records(VectorsName); r != nil {
		c.SetVectors(r)
	}
}

// Symbols returns the symbol index, its entries backed by their record
// file once the directory exists; its parses learn the analyses and
// timeouts the views use.
func (s *Store) Symbols() *symbols.Index {
	s.symsOnce.Do(func() {
		x := symbols.New()
		s.attachSymbols(x)
		// The sealed file of earlier versions, read whole on load.
		os.Remove(filepath.Join(s.dir, "symbols.idx"))
		x.UseStore(s.Views)
		s.syms.Store(x)
	})
	return s.syms.Load()
}

// attachSymbols backs x's entries with their record file once the
// directory exists (an index made before it writes its entries there).
func (s *Store) attachSymbols(x *symbols.Index) {
	if x.HasRecords() {
		return
	}
	if r := s.records(SymbolsName); r != nil {
		if err := x.SetRecords(r); err != nil {
			s.log.Debug("symbol index not saved", "err", err)
		}
	}
}

// DefTerms returns the terms of spans in content, whose symbol-index key is
// key: from memory, else from their record file, else read from content
// (and recorded).
func (s *Store) DefTerms(key [32]byte, content string, spans []tree.DefSpan) *tree.DefTerms {
	rk := defTermsRecordKey(key, spans)
	return s.defTerms.Get(rk, func() *tree.DefTerms {
		r := s.records(DefTermsName)
		if r != nil {
			if b, ok := r.Get(rk); ok {
				if dt, err := tree.DecodeDefTerms(b); err == nil && dt.Len() == len(spans) {
					return dt
				}
			}
		}
		s.defTermsScans.Add(1)
		return s.scanDefTerms(r, rk, []byte(content), spans)
	})
}

// DefTermsScans counts the contents whose definitions' terms were read from
// the text (neither in memory nor recorded).
func (s *Store) DefTermsScans() int64 { return s.defTermsScans.Load() }

// RecordDefTerms records the terms of the definitions spans returns in
// content, whose symbol-index key is key, unless they are recorded (the
// background analysis: the memory cache is left to requests). It does
// nothing, and does not call definitions, before the directory exists.
func (s *Store) RecordDefTerms(ctx context.Context, key [32]byte, content []byte, definitions func() []tree.DefSpan) {
	r := s.records(DefTermsName)
	if r == nil {
		return
	}
	spans := definitions()
	rk := defTermsRecordKey(key, spans)
	if r.Has(rk) || ctx.Err() != nil {
		return
	}
	s.scanDefTerms(r, rk, content, spans)
}

// scanDefTerms reads the terms of spans from content and records them
// under rk in r (when not nil).
func (s *Store) scanDefTerms(r *index.Records, rk [32]byte, content []byte, spans []tree.DefSpan) *tree.DefTerms {
	dt := tree.NewDefTerms(content, spans)
	if r != nil {
		if err := r.Put(rk, dt.AppendBinary(nil)); err != nil {
			s.log.Debug("definition terms not recorded", "err", err)
		}
	}
	return dt
}

// defTermsRecordKey is the key of the terms of spans in a content whose
// symbol-index key is key, in memory and in the record file: the spans
// are part of it, so a cached value never answers for other definitions
// (a test file's tests come from its analysis, not the symbol index).
func defTermsRecordKey(key [32]byte, spans []tree.DefSpan) [32]byte {
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

// Secrets returns the process's secret scanner with the workspace's clean
// set loaded into it (once per store), so a fresh process does not scan
// unchanged files again. A set that does not verify is logged and ignored
// (the next save rewrites it).
func (s *Store) Secrets() (*secrets.Scanner, error) {
	sc, err := secrets.Default()
	if err != nil {
		return nil, err
	}
	s.cleanOnce.Do(func() {
		s.loadFile(cleanFile, secrets.MaxCleanBytes, sc.DecodeClean, "secret scan cache ignored")
		s.clean.Store(sc)
	})
	return sc, nil
}

// PackCounts returns the token and secret counts of packed files, loaded on
// first use.
func (s *Store) PackCounts() *pack.Cache {
	s.packOnce.Do(func() {
		c := pack.NewCache()
		s.loadFile(packFile, pack.MaxCacheBytes, c.Decode, "persisted token counts not used")
		s.pack.Store(c)
	})
	return s.pack.Load()
}

// loadFile decodes the whole file name (a store that seals itself) of at
// most maxBytes; a missing one is no error, one that does not decode is
// logged with warning (the next save rewrites it).
func (s *Store) loadFile(name string, maxBytes int64, decode func([]byte) error, warning string) {
	b, err := s.files.ReadFile(name, maxBytes)
	if err == nil {
		err = decode(b)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn(warning, "err", err)
	}
}

// Create makes the store's directory, so that what the process learns is
// persisted: the file index makes it for a large enough tree, and a pack of
// one (which needs no file index) makes it here.
func (s *Store) Create() error { return s.files.Create() }

// Save writes what the stores learned, in the background, at most once per
// SaveEvery, only once the directory exists; Flush waits for it and writes
// what is left. The record files are written as records are put: Save
// rewrites the whole-file stores.
func (s *Store) Save() {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	if s.saving || (!s.saved.IsZero() && time.Since(s.saved) < SaveEvery) {
		return
	}
	if !s.dirty() || !s.persisted() {
		return
	}
	s.saving = true
	s.saveWG.Go(func() {
		s.write()
		s.saveMu.Lock()
		s.saving = false
		s.saved = time.Now()
		s.saveMu.Unlock()
	})
}

// Flush waits for a background save and writes what is left, once the
// directory exists.
func (s *Store) Flush() {
	s.saveWG.Wait()
	if !s.persisted() {
		return
	}
	s.write()
}

// dirty reports a loaded whole-file store (nil until a request loads it)
// that learned something.
func (s *Store) dirty() bool {
	v, c, sc, p := s.views.Load(), s.counts.Load(), s.clean.Load(), s.pack.Load()
	return v != nil && v.Dirty() || c != nil && c.Dirty() || sc != nil && sc.CleanDirty() || p != nil && p.Dirty()
}

// write writes every loaded store that learned something: the analyses
// and symbols an earlier process could not persist go to their record
// files, the whole files are rewritten.
func (s *Store) write() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if x := s.syms.Load(); x != nil {
		s.attachSymbols(x)
	}
	if v := s.views.Load(); v != nil && v.Dirty() {
		if s.attachAnalyses(v) {
			s.compact(AnalysesName)
		}
		body := v.AppendBinary(nil, MaxViewsBytes)
		if err := s.files.WriteSealed(ViewsFile, ViewsMagic, ViewsKey(), body); err != nil {
			s.log.Debug("tree-sitter store not saved", "err", err)
		}
	}
	if c := s.counts.Load(); c != nil && c.Dirty() {
		body := c.AppendBinary(nil, maxCounts)
		if err := s.files.WriteSealed(CountsFile, CountsMagic, CountsKey, body); err != nil {
			s.log.Debug("token counts not saved", "err", err)
		}
	}
	if sc := s.clean.Load(); sc != nil {
		if body, ok := sc.AppendClean(nil); ok {
			if err := s.files.WriteFile(cleanFile, body); err != nil {
				s.log.Debug("secret scan cache not saved", "err", err)
			}
		}
	}
	s.writePackCounts()
}

// SavePackCounts writes the pack counts now, once the directory exists: a
// pack counts the whole tree, and its counts are what the next pack (often
// another process: `ctxd pack`, `ctxd tokens`) reads first.
func (s *Store) SavePackCounts() {
	if !s.persisted() {
		return
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.writePackCounts()
}

// writePackCounts writes the pack counts when they learned something.
// s.writeMu must be held.
func (s *Store) writePackCounts() {
	if p := s.pack.Load(); p != nil {
		if body, ok := p.AppendBinary(nil); ok {
			if err := s.files.WriteFile(packFile, body); err != nil {
				s.log.Debug("pack token counts not saved", "err", err)
			}
		}
	}
}

// Compact compacts the symbols' and definition terms' record files when
// superseded records dominate them (the background analysis, after a
// pass).
func (s *Store) Compact() {
	s.compact(SymbolsName)
	s.compact(DefTermsName)
}

func (s *Store) compact(name string) {
	s.recsMu.Lock()
	r := s.recs[name]
	s.recsMu.Unlock()
	if r != nil {
		if _, err := r.Compact(); err != nil {
			s.log.Debug("record file not compacted", "file", name, "err", err)
		}
	}
}

// Close writes what is left, then compacts and closes the record files.
// The store must not be used afterwards.
func (s *Store) Close() {
	s.Flush()
	if c := s.counts.Load(); c != nil {
		c.SetVectors(nil)
	}
	s.recsMu.Lock()
	defer s.recsMu.Unlock()
	for name, r := range s.recs {
		r.Compact()
		r.Close()
		delete(s.recs, name)
	}
}

// RecordCounts returns the number of records in each open record file, by
// name (for logs and tests).
func (s *Store) RecordCounts() map[string]int {
	s.recsMu.Lock()
	defer s.recsMu.Unlock()
	out := make(map[string]int, len(s.recs))
	for name, r := range s.recs {
		out[name] = r.Len()
	}
	return out
}
