package engine

import (
	"path/filepath"
	"strconv"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/treesitter"
)

// The tree-sitter store (treesitter.Store: per content hash, a file's
// analysis; per rendered view, whether it parses) persists beside the file
// index as index/views.bin, so a fresh CLI process or a restarted daemon
// renders the views of unchanged files without parsing them. It is a
// sealed file (index.WriteSealed) keyed by the store's version: a corrupt
// or stale one is rebuilt, never trusted, and each entry is checked again
// against the source it is used for.

const (
	viewsMagic = "CTXDVIEW"
	viewsFile  = "views.bin"
	// maxViewsBytes bounds the entries written (the most recently used
	// first): about 6,000 analyses of average source files, several
	// requests' candidates. The read allows the file's framing on top.
	maxViewsBytes = 24 << 20
	// viewsSaveEvery spaces a daemon's rewrites of the file: each is the
	// whole file, and Close writes what is left.
	viewsSaveEvery = 30 * time.Second
)

// viewsKey is the sealed-file key: what the entries were computed with.
func viewsKey() string { return "treesitter-store/" + strconv.Itoa(treesitter.StoreVersion) }

func (e *Engine) viewsPath() string { return filepath.Join(e.stateDir, "index", viewsFile) }

// viewStore returns the engine's tree-sitter store, loaded from the state
// directory on first use (a corrupt file is logged; it is rebuilt).
func (e *Engine) viewStore() *treesitter.Store {
	e.viewsOnce.Do(func() {
		e.viewsStore.Store(loadViewStore(e))
	})
	return e.viewsStore.Load()
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
	}
	return treesitter.NewStore()
}

// saveViews writes the tree-sitter store in the background when it
// learned something, only where the index directory exists (as the symbol
// index), at most once per viewsSaveEvery; Close waits for it and writes
// what is left.
func (e *Engine) saveViews() {
	e.viewsSaveMu.Lock()
	defer e.viewsSaveMu.Unlock()
	if e.viewsSaving || (!e.viewsSaved.IsZero() && time.Since(e.viewsSaved) < viewsSaveEvery) {
		return
	}
	s := e.viewsStore.Load() // nil until a request loaded it
	if s == nil || !s.Dirty() || !index.Exists(filepath.Dir(e.viewsPath())) {
		return
	}
	e.viewsSaving = true
	e.viewsWG.Go(func() {
		e.writeViews(s)
		e.viewsSaveMu.Lock()
		e.viewsSaving = false
		e.viewsSaved = time.Now()
		e.viewsSaveMu.Unlock()
	})
}

// flushViews waits for a background save and writes what it left.
func (e *Engine) flushViews() {
	e.viewsWG.Wait()
	s := e.viewsStore.Load()
	if s == nil || !s.Dirty() || !index.Exists(filepath.Dir(e.viewsPath())) {
		return
	}
	e.writeViews(s)
}

func (e *Engine) writeViews(s *treesitter.Store) {
	e.viewsWriteMu.Lock()
	defer e.viewsWriteMu.Unlock()
	body := s.AppendBinary(nil, maxViewsBytes)
	if err := index.WriteSealed(e.viewsPath(), viewsMagic, viewsKey(), body); err != nil {
		e.log.Debug("tree-sitter store not saved", "err", err)
	}
}
