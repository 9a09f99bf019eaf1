package index

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// Changes is what happened in the tree since the last [Watcher.Take].
type Changes struct {
	// Paths are the root-relative slash paths of files created, written,
	// removed, renamed or chmod'ed (each once).
	Paths []string
	// Rescan asks for a full walk: a directory appeared or vanished, an
	// ignore file changed, or events were lost (queue overflow).
	Rescan bool
	// Git reports a change of HEAD, the index or a ref.
	Git bool
}

// Empty reports that nothing changed.
func (c Changes) Empty() bool { return len(c.Paths) == 0 && !c.Rescan && !c.Git }

// WatchOptions configure a [Watcher].
type WatchOptions struct {
	// GitDir is the repository's git directory to watch for HEAD, index
	// and ref changes; "" watches none.
	GitDir string
	// Skip reports root-relative directories whose events do not matter
	// (the state directory, where the index itself is written).
	Skip func(rel string) bool
	// MaxWatches caps the directories watched (0: only the kernel's
	// fs.inotify.max_user_watches); past it the watcher is degraded, as
	// when the kernel's limit is hit.
	MaxWatches int
	// OnChange, when set, is called (on the watcher's goroutine, without
	// locks held) after each batch of events; it must not block.
	OnChange func()
	Logger   *slog.Logger
}

// Watcher follows a tree with inotify. Safe for concurrent use.
type Watcher struct {
	root string
	opts WatchOptions
	log  *slog.Logger
	fw   *fsnotify.Watcher

	mu       sync.Mutex
	watched  map[string]bool // absolute directories
	changed  map[string]bool
	rescan   bool
	git      bool
	gen      uint64
	degraded string
	done     chan struct{}
}

// Watch starts a watcher on root (absolute). Directories are added with
// [Watcher.Sync]; until then only the git directory is watched.
func Watch(root string, opts WatchOptions) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Watcher{root: root, opts: opts, log: log, fw: fw, watched: map[string]bool{}, changed: map[string]bool{}, done: make(chan struct{})}
	if opts.GitDir != "" {
		for _, d := range []string{opts.GitDir, filepath.Join(opts.GitDir, "refs", "heads")} {
			if err := fw.Add(d); err != nil && !errors.Is(err, os.ErrNotExist) {
				w.degrade(fmt.Sprintf("cannot watch %s: %v", d, err))
			}
		}
	}
	go w.loop()
	return w, nil
}

// Close stops the watcher.
func (w *Watcher) Close() error {
	err := w.fw.Close()
	<-w.done
	return err
}

// Degraded returns why the watcher cannot be trusted to see every change
// (for example inotify's watch limit, fs.inotify.max_user_watches, was
// hit), or "" when it can. A degraded watcher still runs; callers walk
// the tree on every request instead of trusting it.
func (w *Watcher) Degraded() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.degraded
}

func (w *Watcher) degrade(why string) {
	w.mu.Lock()
	first := w.degraded == ""
	if first {
		w.degraded = why
	}
	w.mu.Unlock()
	if first {
		w.log.Warn("file watching degraded: every request walks the tree", "reason", why)
	}
}

// Gen counts the batches of changes seen so far; it only grows.
func (w *Watcher) Gen() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
}

// Take returns the changes since the last Take and forgets them.
func (w *Watcher) Take() Changes {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := Changes{Rescan: w.rescan, Git: w.git}
	for p := range w.changed {
		c.Paths = append(c.Paths, p)
	}
	w.changed = map[string]bool{}
	w.rescan, w.git = false, false
	return c
}

// Add watches one directory (absolute) unless it is watched already. A
// walk adds each directory before listing it, so nothing that changes
// in it afterwards goes unseen. Hitting the watch limit degrades the
// watcher.
func (w *Watcher) Add(dir string) {
	w.mu.Lock()
	done := w.watched[dir] || w.degraded != ""
	w.mu.Unlock()
	if done {
		return
	}
	if err := w.add(dir); err != nil {
		w.addFailed(dir, err)
		return
	}
	w.mu.Lock()
	w.watched[dir] = true
	w.mu.Unlock()
}

// errWatchCap is the configured cap reached (WatchOptions.MaxWatches).
var errWatchCap = fmt.Errorf("watch cap reached: %w", syscall.ENOSPC)

func (w *Watcher) add(dir string) error {
	if m := w.opts.MaxWatches; m > 0 {
		w.mu.Lock()
		n := len(w.watched)
		w.mu.Unlock()
		if n >= m {
			return errWatchCap
		}
	}
	return w.fw.Add(dir)
}

func (w *Watcher) addFailed(dir string, err error) {
	if errors.Is(err, os.ErrNotExist) {
		return // removed since it was listed: its parent's event follows
	}
	w.mu.Lock()
	n := len(w.watched)
	w.mu.Unlock()
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
		w.degrade(fmt.Sprintf("inotify watch limit reached after %d directories (raise fs.inotify.max_user_watches)", n))
	} else {
		w.degrade(fmt.Sprintf("cannot watch %s: %v", dir, err))
	}
}

// Sync makes the watched directories exactly dirs (root-relative slash
// paths, "." for the root), as the last walk found them, and returns how
// many it added. Hitting the watch limit degrades the watcher. Changes
// in a directory between the walk that listed it and Sync are not seen:
// callers walk once more after Sync added directories.
func (w *Watcher) Sync(dirs []string) int {
	want := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		want[filepath.Join(w.root, filepath.FromSlash(d))] = true
	}
	w.mu.Lock()
	var add, drop []string
	for d := range want {
		if !w.watched[d] {
			add = append(add, d)
		}
	}
	for d := range w.watched {
		if !want[d] {
			drop = append(drop, d)
		}
	}
	w.mu.Unlock()
	for _, d := range drop {
		_ = w.fw.Remove(d) // gone already: the kernel dropped the watch
		w.mu.Lock()
		delete(w.watched, d)
		w.mu.Unlock()
	}
	added := 0
	for _, d := range add {
		if err := w.add(d); err != nil {
			w.addFailed(d, err)
			if w.Degraded() != "" {
				return added
			}
			continue
		}
		w.mu.Lock()
		w.watched[d] = true
		w.mu.Unlock()
		added++
	}
	return added
}

// Watching returns how many directories are watched.
func (w *Watcher) Watching() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.watched)
}

func (w *Watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if w.record(ev) && w.opts.OnChange != nil {
				w.opts.OnChange()
			}
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			w.rescan, w.git = true, true
			w.gen++
			w.mu.Unlock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Debug("inotify queue overflowed: next request rescans")
			} else {
				w.log.Warn("file watcher error: next request rescans", "err", err)
			}
			if w.opts.OnChange != nil {
				w.opts.OnChange()
			}
		}
	}
}

// record notes one event and reports whether it mattered.
func (w *Watcher) record(ev fsnotify.Event) bool {
	name := ev.Name
	if gd := w.opts.GitDir; gd != "" && (name == gd || strings.HasPrefix(name, gd+string(filepath.Separator))) {
		base := filepath.Base(name)
		if strings.HasSuffix(base, ".lock") || base == "objects" || base == "logs" {
			return false // the final rename follows; objects and logs say nothing new
		}
		w.mu.Lock()
		w.git = true
		w.gen++
		w.mu.Unlock()
		return true
	}
	rel, err := filepath.Rel(w.root, name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	rel = filepath.ToSlash(rel)
	if w.opts.Skip != nil && w.opts.Skip(rel) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	w.git = true // a tracked file's change changes the status and diff
	if w.watched[name] {
		// A watched directory removed or renamed: its subtree moved.
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.rescan = true
			return true
		}
	}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(name); err == nil && fi.IsDir() {
			w.rescan = true // a new directory: walk it and watch it
			return true
		}
	}
	switch filepath.Base(name) {
	case ".gitignore", ".ctxdignore":
		w.rescan = true
	}
	w.changed[rel] = true
	return true
}
