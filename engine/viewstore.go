package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
)

// Two stores persist beside the file index so a fresh CLI process or a
// restarted daemon does no work for what has not changed:
//
//   - index/views.bin, the tree-sitter store (treesitter.Store: per
//     content hash, a file's analysis; per rendered view, whether it
//     parses): views of unchanged files render without parsing;
//   - index/counts.bin, the token counts (tokens.CountStore, per hash of
//     encoding and text): unchanged files, views and sections are counted
//     without decoding a vocabulary or running BPE.
//
// Each is a sealed file (index.WriteSealed) keyed by its version: a
// corrupt or stale one is rebuilt, never trusted, and each tree-sitter
// entry is checked again against the source it is used for.

const (
	viewsMagic = "CTXDVIEW"
	viewsFile  = "views.bin"
	// maxViewsBytes bounds the entries written (the most recently used
	// first): about 6,000 analyses of average source files, several
	// requests' candidates. The read allows the file's framing on top.
	maxViewsBytes = 24 << 20
	// viewsSaveEvery spaces a daemon's rewrites of the files: each is a
	// whole file, and Close writes what is left.
	viewsSaveEvery = 30 * time.Second

	countsMagic = "CTXDCNT1"
	countsFile  = "counts.bin"
	countsKey   = "token-counts/1"
	// maxCounts bounds the counts written (the most recently used
	// first): about 22 bytes each, 6.6 MB at most. Three quarters of
	// what tokens keeps in memory (400,000, where it trims to three
	// quarters): a restarted daemon on a 100k-file tree loads as many
	// counts as it may hold after a trim, instead of recounting the
	// sections past 200,000.
	maxCounts = 300_000
)

// viewsKey is the sealed-file key: what the entries were computed with.
func viewsKey() string { return "treesitter-store/" + strconv.Itoa(treesitter.StoreVersion) }

func (e *Engine) viewsPath() string  { return filepath.Join(e.stateDir, "index", viewsFile) }
func (e *Engine) countsPath() string { return filepath.Join(e.stateDir, "index", countsFile) }

// countStore returns the engine's token count store, loaded from the
// state directory on first use (a corrupt file is logged; it is rebuilt).
func (e *Engine) countStore() *tokens.CountStore {
	e.countsOnce.Do(func() {
		s := tokens.NewCountStore()
		body, err := index.ReadSealed(e.countsPath(), countsMagic, countsKey, 64<<20)
		if err == nil {
			var d *tokens.CountStore
			if d, err = tokens.DecodeCountStore(body); err == nil {
				s = d
			}
		}
		if err != nil && !index.IsRebuild(err) {
			e.log.Warn("persisted token counts not used: rebuilding them", "err", err)
		}
		e.countsStore.Store(s)
	})
	s := e.countsStore.Load()
	e.attachVectors(s)
	return s
}

// vectorsName names the record file of the token counts' block vectors
// (blockcounts.keys, blockcounts.*.dat in index/): per file content, the
// token count of each of its blocks (tokens.CountBase), recorded by the
// background analysis, so a restarted daemon counts a view of a file it
// never counted with BPE over the few blocks the view does not share
// with the file only (tokens.Prime).
const vectorsName = "blockcounts"

// maxVectorsBytes bounds the vectors' record file (about one byte per
// 40-60 bytes of source: 4 MB for a 10k-file tree).
const maxVectorsBytes = 96 << 20

// attachVectors backs s's block vectors with their record file in index/,
// once index/ exists.
func (e *Engine) attachVectors(s *tokens.CountStore) {
	e.vectorsMu.Lock()
	defer e.vectorsMu.Unlock()
	if e.vectors != nil || e.vectorsFailed {
		return
	}
	dir := filepath.Dir(e.countsPath())
	if !index.Exists(dir) {
		return
	}
	r, err := index.OpenRecords(dir, vectorsName, tokens.VectorsKey)
	if err != nil {
		e.vectorsFailed = true
		e.log.Debug("token block vectors not used", "err", err)
		return
	}
	r.MaxBytes = maxVectorsBytes
	e.vectors = r
	s.SetVectors(r)
}

// closeVectors detaches the block vectors from the count store, then
// compacts and closes their record file.
func (e *Engine) closeVectors() {
	if s := e.countsStore.Load(); s != nil {
		s.SetVectors(nil)
	}
	closeRecords(&e.vectorsMu, &e.vectors)
}

// viewStore returns the engine's tree-sitter store, loaded from the state
// directory on first use (a corrupt file is logged; it is rebuilt).
func (e *Engine) viewStore() *treesitter.Store {
	e.viewsOnce.Do(func() {
		s := loadViewStore(e)
		e.attachAnalyses(s)
		e.viewsStore.Store(s)
	})
	return e.viewsStore.Load()
}

// analysesName names the record file of the tree-sitter analyses
// (analyses.keys, analyses.*.dat in index/): read one analysis at a time,
// so a store holding a whole tree costs a fresh process only what it uses.
const analysesName = "analyses"

// maxAnalysesBytes bounds the analyses' record file (compaction keeps the
// ones this process used first): several copies of GOROOT's.
const maxAnalysesBytes = 512 << 20

// attachAnalyses backs s's analyses with the record file in index/, once
// index/ exists (a tree too small for a persisted index keeps them in
// views.bin). It reports whether s has its records.
func (e *Engine) attachAnalyses(s *treesitter.Store) bool {
	if s.HasRecords() {
		return true
	}
	dir := filepath.Dir(e.viewsPath())
	if !index.Exists(dir) {
		return false
	}
	r, err := index.OpenRecords(dir, analysesName, viewsKey())
	if err != nil {
		e.log.Debug("tree-sitter analyses kept in memory", "err", err)
		return false
	}
	r.MaxBytes = maxAnalysesBytes
	e.analysesMu.Lock()
	e.analyses = r
	e.analysesMu.Unlock()
	if err := s.SetRecords(r); err != nil {
		e.log.Debug("tree-sitter analyses not saved", "err", err)
	}
	return true
}

// closeAnalyses compacts and closes the analyses' record file.
func (e *Engine) closeAnalyses() { closeRecords(&e.analysesMu, &e.analyses) }

// closeRecords compacts and closes the record file *r, guarded by mu, and
// forgets it.
func closeRecords(mu *sync.Mutex, r **index.Records) {
	mu.Lock()
	defer mu.Unlock()
	if *r != nil {
		(*r).Compact()
		(*r).Close()
		*r = nil
	}
}

func loadViewStore(e *Engine) *treesitter.Store {
	t0 := time.Now()
	body, err := index.ReadSealed(e.viewsPath(), viewsMagic, viewsKey(), maxViewsBytes+(maxViewsBytes>>2))
	if err == nil {
		var s *treesitter.Store
		if s, err = treesitter.DecodeStore(body); err == nil {
			st := s.Stats()
			e.log.Debug("tree-sitter store loaded", "analyses", st.Analyses, "verdicts", st.Verdicts, "took", time.Since(t0))
			return s
		}
	}
	if !index.IsRebuild(err) {
		e.log.Warn("persisted tree-sitter store not used: rebuilding it", "err", err)
		os.Remove(e.viewsPath()) // rebuilt from what this process learns
	}
	return treesitter.NewStore()
}

// saveStores writes the stores that learned something in the background,
// only where the index directory exists (as the symbol index), at most
// once per viewsSaveEvery; Close waits for it and writes what is left.
func (e *Engine) saveStores() {
	e.viewsSaveMu.Lock()
	defer e.viewsSaveMu.Unlock()
	if e.viewsSaving || (!e.viewsSaved.IsZero() && time.Since(e.viewsSaved) < viewsSaveEvery) {
		return
	}
	if !e.storesDirty() || !index.Exists(filepath.Dir(e.viewsPath())) {
		return
	}
	e.viewsSaving = true
	e.viewsWG.Go(func() {
		e.writeStores()
		e.viewsSaveMu.Lock()
		e.viewsSaving = false
		e.viewsSaved = time.Now()
		e.viewsSaveMu.Unlock()
	})
}

// flushStores waits for a background save and writes what it left.
func (e *Engine) flushStores() {
	e.viewsWG.Wait()
	if !e.storesDirty() || !index.Exists(filepath.Dir(e.viewsPath())) {
		return
	}
	e.writeStores()
}

// storesDirty reports a loaded store (nil until a request loads it) that
// learned something.
func (e *Engine) storesDirty() bool {
	vs, cs := e.viewsStore.Load(), e.countsStore.Load()
	return vs != nil && vs.Dirty() || cs != nil && cs.Dirty()
}

func (e *Engine) writeStores() {
	e.viewsWriteMu.Lock()
	defer e.viewsWriteMu.Unlock()
	if s := e.viewsStore.Load(); s != nil && s.Dirty() {
		if e.attachAnalyses(s) {
			e.analysesMu.Lock()
			if e.analyses != nil {
				e.analyses.Compact()
			}
			e.analysesMu.Unlock()
		}
		body := s.AppendBinary(nil, maxViewsBytes)
		if err := index.WriteSealed(e.viewsPath(), viewsMagic, viewsKey(), body); err != nil {
			e.log.Debug("tree-sitter store not saved", "err", err)
		}
	}
	if s := e.countsStore.Load(); s != nil && s.Dirty() {
		body := s.AppendBinary(nil, maxCounts)
		if err := index.WriteSealed(e.countsPath(), countsMagic, countsKey, body); err != nil {
			e.log.Debug("token counts not saved", "err", err)
		}
	}
}
