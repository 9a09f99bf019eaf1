package tree

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/safefs"
)

// fileInfo is what the walk and the indexer learned about one file. An
// entry is immutable once indexed; a changed file gets a new entry.
//
// One is kept per file of the tree (100k at the scale benchmarks' largest),
// so it is laid out small (128 bytes): the modification time as Unix
// nanoseconds, the language as an index into langNames, the facts few
// files have out of line (rare), the flags together.
type File struct {
	Rel     string
	size    int64
	modTime int64 // Unix nanoseconds
	// Filled by index():
	Imports []string // see Imports
	hash    [32]byte // SHA-256 of the content, when indexed
	doc     *indexDoc
	rare    *rareFacts // nil: none
	lines   int
	langID  uint8 // langNames[langID] is the language, "" when unknown
	Secret  bool
	// tooBig: over the size cap; not read.
	tooBig bool
	// binary: a binary extension, a NUL byte in the first 8 KiB or mostly
	// invalid UTF-8; not indexed.
	binary bool
	// Filled by index():
	indexed     bool
	InlineTests bool // Rust #[cfg(test)]
	// minified: minified or very-long-line text (see Minified); indexed
	// from its head only, gathered as a stub.
	minified bool
}

// rareFacts are the facts of a file that few files have.
type rareFacts struct {
	readErr  string // why the file could not be read
	goModule string // module path, for go.mod files
}

// readError is why the file could not be read, "" when it was.
func (f *File) readError() string {
	if f.rare == nil {
		return ""
	}
	return f.rare.readErr
}

// goModule is the module path of a go.mod file, "" for other files.
func (f *File) goModule() string {
	if f.rare == nil {
		return ""
	}
	return f.rare.goModule
}

// HasTerms reports that the file's terms are in the lexical index.
func (f *File) HasTerms() bool { return f.doc != nil }

// CodeRole reports a file in the lexical index whose role is code
// (lang.RoleCode).
func (f *File) CodeRole() bool { return f.doc != nil && f.doc.role == lang.RoleCode }

// TestDoc reports a file in the lexical index that is a test file.
func (f *File) TestDoc() bool { return f.doc != nil && f.doc.test }

// lang is the file's language (Language), "" when unknown.
func (f *File) Lang() string { return langNames[f.langID] }

// sameStat reports that info (a later lstat of f's file) has f's size and
// modification time: the file is taken as unchanged.
func (f *File) sameStat(info fs.FileInfo) bool {
	return f.size == info.Size() && f.modTime == info.ModTime().UnixNano()
}

// langNames are the languages Language names, "" first; langIDs indexes
// them.
var langNames, langIDs = func() ([]string, map[string]uint8) {
	names := []string{""}
	for _, m := range []map[string]string{lang.Extensions(), lang.Names()} {
		for _, l := range m {
			names = append(names, l)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > math.MaxUint8+1 {
		panic("gather: over 256 languages do not fit fileInfo.langID")
	}
	ids := make(map[string]uint8, len(names))
	for i, l := range names {
		ids[l] = uint8(i)
	}
	return names, ids
}()

// snapshot is one consistent view of the workspace: the files the walk
// kept (ignored ones are not here), sorted by path, with the lexical index.
// Immutable; Gather works on the snapshot current when it started.
type Snapshot struct {
	Files   []*File
	ByRel   map[string]*File
	ByBase  map[string][]string
	Index   *Index
	Scanned int
	// dirs are the directories the walk entered (root-relative, "." for
	// the root): what the watcher watches. warnings are the walk's.
	dirs     []string
	warnings []string
	// gitBlocked names an ignore file git would read that is not a
	// regular file (ignoreRules.notRegular): with it, no git runs for
	// this snapshot, since git would block on the file until its timeout.
	gitBlocked string
	// stateRel is the tree's (Tree.InStateDir): buffers under it are
	// not kept (overlayKept).
	stateRel string

	// Derived texts, computed once per snapshot (a snapshot is reused while
	// nothing changes).
	derivedMu  sync.Mutex
	structures map[int]string // by depth
	depsDone   bool
	depsText   string
	depsWarn   []string
	// npm is the name in the root's package.json (npmName), once npmRead.
	npmRead bool
	npm     string

	// linkG is the file graph (links.go), built on first use.
	linksMu sync.Mutex
	linkG   *LinkGraph

	// py resolves Python imports (PyModules), built on first use.
	pyOnce sync.Once
	py     *lang.PyModules
}

// Structure returns the structure tree to depth (cached), with the
// files only open in the editor among overlay's buffers (Tree.OverlayKept):
// gathering reads them, so the tree shows them beside the files on disk.
func (s *Snapshot) Structure(depth int, overlay map[string]string) string {
	for rel := range overlay {
		if _, listed := s.FileIndex(rel); !listed && overlayKept(rel, s.stateRel) {
			// Rare (a new file not saved yet): not cached.
			return Structure(withOverlayPaths(s.paths(), overlay, s.stateRel), depth)
		}
	}
	s.derivedMu.Lock()
	defer s.derivedMu.Unlock()
	if t, ok := s.structures[depth]; ok {
		return t
	}
	if s.structures == nil {
		s.structures = map[int]string{}
	}
	t := Structure(s.paths(), depth)
	s.structures[depth] = t
	return t
}

// deps returns the dependency summary, cached: manifests are files of the
// snapshot, so an unchanged snapshot has unchanged manifests.
func (s *Snapshot) deps(root string, maxBytes int64) (string, []string) {
	s.derivedMu.Lock()
	defer s.derivedMu.Unlock()
	if !s.depsDone {
		s.depsText, s.depsWarn = Dependencies(s.paths(), func(rel string) ([]byte, error) {
			return readCapped(filepath.Join(root, filepath.FromSlash(rel)), maxBytes, nil)
		})
		s.depsDone = true
	}
	return s.depsText, s.depsWarn
}

// binarySniff is how much of a file is checked for binary content.
const binarySniff = 8 << 10

// walk lists the files under the root that no ignore rule excludes,
// pruning ignored directories, never following symlinks and never entering
// .git or .ctxd. Entries whose size and mtime match prev are reused.
//
// The directories are listed in one goroutine while the persisted index
// loads in another; the files listed are stated (lstat) on GOMAXPROCS
// workers as the listing goes, and matched with their facts once the
// index is loaded (see stater).
func (w *Tree) walk(ctx context.Context, rules *ignoreRules, prev map[string]*File) ([]*File, []string, []string, error) {
	st := newStater(ctx, w, prev)
	go func() { st.rs = w.persisted(); close(st.loaded) }()
	var warnings []string
	dirs := []string{"."}
	segs := append([]string(nil), rules.prefix...)
	// visit walks dir with the patterns of its parents, ps; a directory
	// below the root adds its own ignore files, read only when its
	// listing names one (most directories have none: no failed opens).
	var visit func(dir string, ps []gitignore.Pattern) error
	visit = func(dir string, ps []gitignore.Pattern) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		absDir := filepath.Join(w.root, filepath.FromSlash(dir))
		// Watched before it is listed, so no change in it goes unseen.
		w.follow.watchDir(absDir)
		entries, err := os.ReadDir(absDir)
		if err != nil {
			if dir == "." {
				return fmt.Errorf("read root %s: %w", w.root, err)
			}
			warnings = append(warnings, fmt.Sprintf("skipped directory %s: %v", dir, errors.Unwrap(err)))
			return nil
		}
		if dir != "." && slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
			return e.Name() == ".gitignore" || e.Name() == IgnoreFile
		}) {
			sub, warns := rules.readDirPatterns(absDir, segs)
			warnings = append(warnings, warns...)
			if len(sub) > 0 {
				ps = append(append(make([]gitignore.Pattern, 0, len(ps)+len(sub)), ps...), sub...)
			}
		}
		for _, e := range entries {
			name := e.Name()
			rel := RelSlash(dir, name)
			if name == ".git" || rel == ".ctxd" || rel == w.stateRel {
				continue
			}
			t := e.Type()
			if t&fs.ModeSymlink != 0 || !(t.IsDir() || t.IsRegular()) {
				// Symlinks are not followed (no cycles, never out of the
				// root); explicit paths through them go through Resolve.
				continue
			}
			isDir := t.IsDir()
			segs = append(segs, name)
			ignored := matchIgnore(ps, segs, isDir) || rules.excluded(rel, isDir)
			if !ignored && isDir {
				dirs = append(dirs, rel)
				if err := visit(rel, ps); err != nil {
					return err
				}
			}
			segs = segs[:len(segs)-1]
			if ignored || isDir {
				continue
			}
			if len(w.opts.Include) > 0 && !matchAny(w.opts.Include, rel) {
				continue
			}
			st.add(walked{rel, e})
		}
		return nil
	}
	rootPs, warns := rules.readDirPatterns(w.root, rules.prefix)
	warnings = append(warnings, rules.warnings...)
	warnings = append(warnings, warns...)
	ps := append(append([]gitignore.Pattern(nil), rules.base...), rootPs...)
	if err := visit(".", ps); err != nil {
		st.stop()
		return nil, nil, warnings, err
	}
	files, err := st.finish()
	if err != nil {
		return nil, nil, warnings, err
	}
	return files, dirs, warnings, nil
}

// walked is a file the walk kept, not yet stated.
type walked struct {
	Rel string
	e   fs.DirEntry
}

// stater states the files a walk lists (lstat), in shares of shareFiles
// files on GOMAXPROCS workers while the listing goes on, and gives each
// its facts: prev's entry when its size and mtime match, else the
// persisted facts when they still hold, else a new entry to index. A
// share stated before the persisted index is loaded is matched after the
// listing. Files removed since they were listed are left out; the order
// is kept.
type stater struct {
	ctx  context.Context
	w    *Tree
	prev map[string]*File
	// loaded is closed when rs, the persisted index (nil: none), is set.
	loaded chan struct{}
	rs     *reuse

	cur    []walked
	shares []*statShare
	work   chan *statShare
	wg     sync.WaitGroup
	reused atomic.Int64
}

// statShare is a run of listed files, their lstat results (nil: gone) and,
// once matched, their entries.
type statShare struct {
	Files   []walked
	infos   []fs.FileInfo
	out     []*File
	matched bool
}

// shareFiles is how many listed files a worker takes at once.
const shareFiles = 512

func newStater(ctx context.Context, w *Tree, prev map[string]*File) *stater {
	return &stater{ctx: ctx, w: w, prev: prev, loaded: make(chan struct{}), work: make(chan *statShare, 1024)}
}

// add takes a listed file.
func (st *stater) add(f walked) {
	if st.cur == nil {
		st.cur = make([]walked, 0, shareFiles)
	}
	st.cur = append(st.cur, f)
	if len(st.cur) == shareFiles {
		st.flush()
	}
}

// flush hands the current share to the workers, starting them with the
// first.
func (st *stater) flush() {
	if len(st.cur) == 0 {
		return
	}
	if st.shares == nil {
		for range runtime.GOMAXPROCS(0) {
			st.wg.Go(st.states)
		}
	}
	sh := &statShare{Files: st.cur}
	st.cur = nil
	st.shares = append(st.shares, sh)
	st.work <- sh
}

// states is a worker: it states the shares it takes and matches them
// when the persisted index is already loaded.
func (st *stater) states() {
	var c *termCounter
	for sh := range st.work {
		if st.ctx.Err() != nil {
			continue
		}
		sh.infos = make([]fs.FileInfo, len(sh.Files))
		for i := range sh.Files {
			if info, err := sh.Files[i].e.Info(); err == nil {
				sh.infos[i] = info
			} // else removed since ReadDir
		}
		select {
		case <-st.loaded:
			st.match(sh, &c)
		default:
		}
	}
}

// match gives the files of a stated share their entries; c is the
// caller's term counter, made on first use.
func (st *stater) match(sh *statShare, c **termCounter) {
	sh.out = make([]*File, len(sh.Files))
	n := 0
	next := 0 // where the next file's persisted facts are expected
	for i, info := range sh.infos {
		if info == nil {
			continue
		}
		rel := sh.Files[i].Rel
		if old := st.prev[rel]; old != nil && old.sameStat(info) {
			sh.out[i] = old
			continue
		}
		if st.rs != nil {
			if *c == nil {
				*c = newTermCounter()
			}
			if f := st.rs.fileInfo(st.w, *c, rel, info, &next); f != nil {
				sh.out[i] = f
				n++
				continue
			}
		}
		sh.out[i] = st.w.newFileInfo(rel, info)
	}
	sh.matched = true
	st.reused.Add(int64(n))
}

// stop ends the workers of a walk that failed.
func (st *stater) stop() {
	close(st.work)
	st.wg.Wait()
}

// finish waits for the workers and the persisted index, matches the
// shares stated before it loaded (on GOMAXPROCS workers) and returns the
// entries in listing order.
func (st *stater) finish() ([]*File, error) {
	st.flush()
	close(st.work)
	st.wg.Wait()
	<-st.loaded
	if err := st.ctx.Err(); err != nil {
		return nil, err
	}
	var todo []*statShare
	total := 0
	for _, sh := range st.shares {
		total += len(sh.Files)
		if !sh.matched {
			todo = append(todo, sh)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			var c *termCounter
			for {
				i := int(next.Add(1)) - 1
				if i >= len(todo) || st.ctx.Err() != nil {
					return
				}
				st.match(todo[i], &c)
			}
		})
	}
	wg.Wait()
	if err := st.ctx.Err(); err != nil {
		return nil, err
	}
	st.rs.count(int(st.reused.Load()))
	out := make([]*File, 0, total)
	for _, sh := range st.shares {
		for _, f := range sh.out {
			if f != nil {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

func (w *Tree) newFileInfo(rel string, info fs.FileInfo) *File {
	fi := &File{
		Rel:     rel,
		size:    info.Size(),
		modTime: info.ModTime().UnixNano(),
		langID:  langIDs[lang.Of(rel)],
		Secret:  lang.IsSecret(rel),
	}
	fi.tooBig = fi.size > w.opts.MaxFileBytes
	fi.binary = lang.BinaryName(rel)
	return fi
}

// matchIgnore runs gitignore patterns (ascending priority) on a path given
// as segments below the git top-level: the last pattern that matches
// decides.
func matchIgnore(ps []gitignore.Pattern, segs []string, isDir bool) bool {
	for i := len(ps) - 1; i >= 0; i-- {
		if r := ps[i].Match(segs, isDir); r != gitignore.NoMatch {
			return r == gitignore.Exclude
		}
	}
	return false
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// indexFiles reads and indexes the entries not yet indexed, on
// GOMAXPROCS workers. Secret files are never read.
func (w *Tree) indexFiles(ctx context.Context, files []*File) (int, error) {
	var todo []*File
	for _, f := range files {
		if !f.indexed && !f.Secret && !f.tooBig && !f.binary {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo))
	ch := make(chan *File)
	var wg sync.WaitGroup
	seen := &sameContent{docs: map[[32]byte]*indexDoc{}}
	for range workers {
		wg.Go(func() {
			c := newTermCounter()
			buf := make([]byte, 0, 64<<10)
			for f := range ch {
				buf = w.indexFile(f, c, seen, buf)
			}
		})
	}
	var err error
	for _, f := range todo {
		if err = ctx.Err(); err != nil {
			break
		}
		ch <- f
	}
	close(ch)
	wg.Wait()
	return len(todo), err
}

// sameContent remembers, during one indexing pass, the document of each
// content hash indexed so far: a file whose bytes equal an earlier one's
// shares its term bags (immutable) instead of holding a copy, as files
// loaded from the persisted index do (it stores one entry per content).
// Vendored copies, generated twins and trees checked out side by side
// then cost their bags once.
// The imports of the first file of a content are shared too, by the files
// of its language.
type sameContent struct {
	mu   sync.Mutex
	docs map[[32]byte]*indexDoc
	imps map[[32]byte]sameImports
}

type sameImports struct {
	lang    string
	Imports []string
}

func (s *sameContent) get(h [32]byte) *indexDoc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[h]
}

// put records d for h unless another document was recorded first, and
// returns the one recorded: two workers that indexed equal files at once
// still end up sharing one set of bags.
func (s *sameContent) put(h [32]byte, d *indexDoc) *indexDoc {
	s.mu.Lock()
	defer s.mu.Unlock()
	if first := s.docs[h]; first != nil {
		return first
	}
	s.docs[h] = d
	return d
}

// imports returns the imports of a content h in lang, worked out by
// imports the first time.
func (s *sameContent) imports(h [32]byte, lang string, imports func() []string) []string {
	s.mu.Lock()
	si, ok := s.imps[h]
	s.mu.Unlock()
	if ok && si.lang == lang {
		return si.Imports
	}
	imps := imports()
	if !ok {
		s.mu.Lock()
		if s.imps == nil {
			s.imps = map[[32]byte]sameImports{}
		}
		if _, ok := s.imps[h]; !ok {
			s.imps[h] = sameImports{lang, imps}
		}
		s.mu.Unlock()
	}
	return imps
}

// indexFile reads one file and fills its content facts and index entry.
func (w *Tree) indexFile(f *File, c *termCounter, seen *sameContent, buf []byte) []byte {
	b, err := readCapped(filepath.Join(w.root, filepath.FromSlash(f.Rel)), w.opts.MaxFileBytes, buf)
	if err != nil {
		f.indexed = true
		if errors.Is(err, errTooBig) {
			f.tooBig = true
		} else {
			f.rare = &rareFacts{readErr: err.Error()}
		}
		return buf
	}
	if IsBinary(b) {
		f.binary = true
		f.indexed = true
		return b
	}
	f.lines = byteview.CountLines(b)
	f.hash = sha256.Sum256(b)
	f.minified = lang.Minified(b)
	text := b
	if f.minified {
		// Terms, imports and definitions of its head only: the rest is
		// one enormous line no prompt shows.
		text = b[:min(len(b), minifiedIndexBytes)]
	}
	language := f.Lang()
	f.InlineTests = language == "rust" && bytes.Contains(text, []byte("#[cfg(test)]"))
	f.Imports = seen.imports(f.hash, language, func() []string { return lang.Imports(language, text) })
	if path.Base(f.Rel) == "go.mod" {
		if m := goModulePath(text); m != "" {
			f.rare = &rareFacts{goModule: m}
		}
	}
	var doc *indexDoc
	first := seen.get(f.hash)
	if first == nil {
		// Another worker may record the same content meanwhile: put
		// returns whichever came first.
		doc = newDoc(c, c.defs(), f.Rel, text)
		first = seen.put(f.hash, doc)
	}
	if first != doc {
		doc = sharedDoc(c, f.Rel, first)
	}
	f.doc = doc
	f.indexed = true
	return b
}

var errTooBig = safefs.ErrTooBig

// readCapped reads a whole regular file into buf (reused) unless it is over
// max bytes; a FIFO, device or link to one is refused unread
// ([safefs.ErrNotRegular]).
func readCapped(name string, max int64, buf []byte) ([]byte, error) {
	return safefs.ReadFileInto(context.Background(), name, max, buf)
}

// IsBinary reports a NUL byte in the first 8 KiB, or more than 10% of its
// bytes in invalid UTF-8 sequences: the walk's rule, which ctx/outline
// applies too.
func IsBinary(b []byte) bool {
	head := b[:min(len(b), binarySniff)]
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	bad := 0
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 && i+utf8.UTFMax < len(head) {
			bad++
		}
		i += n
	}
	return bad*10 > len(head)
}

// goModulePath reads the module line of a go.mod file.
func goModulePath(b []byte) string {
	for line := range bytes.Lines(b) {
		s := strings.TrimSpace(string(line))
		if rest, ok := strings.CutPrefix(s, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '"') {
			rest = strings.TrimSpace(rest)
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = strings.TrimSpace(rest[:i])
			}
			return strings.Trim(rest, "\"`")
		}
	}
	return ""
}

// newSnapshot assembles a snapshot from walked and indexed files; prev is
// the index of the snapshot it follows, nil for none, and full asks for
// full postings (see indexFrom).
func newSnapshot(files []*File, prev *Index, full bool) *Snapshot {
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	s := &Snapshot{
		Files:   files,
		ByRel:   make(map[string]*File, len(files)),
		ByBase:  map[string][]string{}, // fewer names than files
		Scanned: len(files),
	}
	docs := make([]*indexDoc, 0, len(files))
	for _, f := range files {
		s.ByRel[f.Rel] = f
		if f.Secret {
			continue // secrets are not candidates of any broad source
		}
		b := path.Base(f.Rel)
		s.ByBase[b] = append(s.ByBase[b], f.Rel)
		if f.doc != nil {
			docs = append(docs, f.doc)
		}
	}
	s.Index = indexFrom(prev, docs, full)
	return s
}

// goModule returns the module path and root of the Go module holding the
// root-relative directory dir.
func (s *Snapshot) GoModule(dir string) (string, string) {
	for d := dir; ; d = path.Dir(d) {
		if f := s.ByRel[RelSlash(d, "go.mod")]; f != nil && f.goModule() != "" {
			return f.goModule(), d
		}
		if d == "." || d == "/" || d == "" {
			return "", ""
		}
	}
}

// PyModules resolves Python imports to the snapshot's files: the indices
// it answers with are those of s.Files (secret files are none of them).
func (s *Snapshot) PyModules() *lang.PyModules {
	s.pyOnce.Do(func() {
		paths := make([]string, len(s.Files))
		for i, f := range s.Files {
			if !f.Secret && f.Lang() == "python" {
				paths[i] = f.Rel
			}
		}
		s.py = lang.NewPyModules(paths)
	})
	return s.py
}

// paths lists the snapshot's non-secret paths.
func (s *Snapshot) paths() []string {
	out := make([]string, 0, len(s.Files))
	for _, f := range s.Files {
		if !f.Secret {
			out = append(out, f.Rel)
		}
	}
	return out
}
