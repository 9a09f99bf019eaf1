// Package engine runs ctxd's pipelines for one workspace. The CLI and the
// JSON-RPC server both call it, so there is one path per job:
//
//	gather → prioritize → compress (fit, truncate) → prompt
//
// An Engine owns the per-workspace state that makes a second request fast:
// the gatherer's file index, the editor's unsaved buffers and the
// effective configuration. Token counts and tree-sitter views are cached
// process-wide by their packages, keyed by content hash; beside a
// persisted index the workspace store keeps them, and the other
// per-content facts, across processes (package workspace).
package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/prioritize"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/sessions"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Options configure an Engine.
type Options struct {
	// Config is the effective configuration; nil loads it from the user
	// file and the workspace's .ctxd.toml.
	Config *config.Config
	Logger *slog.Logger
	// StateDir is the workspace's state directory (sessions/,
	// artifacts/, index/); a relative one is relative to the root. ""
	// uses $CTXD_STATE_DIR, else <root>/.ctxd (see [StateDir]).
	StateDir string
	// Watch follows the workspace with inotify so warm requests skip the
	// walk (the daemon sets it; see tree.Options.Watch).
	Watch bool
	// OneShot says the process opens this one engine and exits (a CLI
	// command): the persisted index is mapped rather than read
	// (tree.Options.MapIndex).
	OneShot bool
	// Fusion and Links are the ranking's link weights and options; their
	// zero values are prioritize.DefaultFusion and tree.DefaultLinks. Only
	// a weight search (eval.Options, scripts/fitweights) sets them.
	Fusion prioritize.FusionWeights
	Links  tree.LinkOptions
}

// Engine is the pipeline for one workspace root. It is safe for concurrent
// use: requests may run in parallel.
type Engine struct {
	root string
	cfg  *config.Config
	log  *slog.Logger
	ws   *tree.Tree
	// fusion weighs the link signals (Options.Fusion).
	fusion prioritize.FusionWeights

	// buffers are the editor's unsaved texts.
	buffers workspace.Buffers

	stateDir string
	// cfgFiles are the configuration files as a daemon's engine read
	// them (configChanged); nil for a CLI's.
	cfgFiles []configFile

	// store is the workspace's persisted per-content facts (tree-sitter
	// analyses and views, token counts, symbols, definition terms, the
	// secret scan's clean set, pack counts): loaded on first use, saved
	// after work, flushed and closed with the engine.
	store *workspace.Store

	// reqOnce makes req, the request flow (engine/requests.go), on
	// first use.
	reqOnce sync.Once
	req     *Requests
	reqErr  error

	// bg schedules the daemon's background analysis (engine/background.go
	// is its per-file work).
	bg workspace.Analysis
}

// New returns the engine for root, which must be an absolute directory
// (see tree.FindRoot).
func New(root string, opts Options) (*Engine, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg := opts.Config
	if cfg == nil {
		var err error
		if cfg, err = config.Load(root); err != nil {
			return nil, err
		}
	}
	stateDir := StateDir(root)
	if opts.StateDir != "" {
		stateDir = sessions.StateDir(root, opts.StateDir)
	}
	if err := usableStateDir(stateDir); err != nil {
		return nil, err
	}
	if err := sessions.CheckLinks(root, stateDir); err != nil {
		return nil, err
	}
	store := workspace.Open(workspace.Options{StateDir: stateDir, Logger: log})
	ws, err := tree.Open(root, tree.Options{
		Include:      cfg.Gather.Include,
		Exclude:      cfg.Gather.Exclude,
		MaxFileBytes: cfg.Gather.MaxFileBytes,
		Logger:       log,
		Watch:        opts.Watch,
		State:        store.Files(),
		StateDir:     stateDir,
		MapIndex:     opts.OneShot,
		Links:        opts.Links,
	})
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	e := &Engine{root: root, cfg: cfg, log: log, ws: ws, stateDir: stateDir,
		store: store, fusion: opts.Fusion}
	if opts.Watch {
		e.cfgFiles = configFiles(root)
	}
	return e, nil
}

// configFile is a configuration file as the engine read it: its path and
// what Lstat said (a missing file is recorded as missing).
type configFile struct {
	path    string
	exists  bool
	size    int64
	modTime time.Time
}

// configFiles stats the files config.Load reads for root.
func configFiles(root string) []configFile {
	var out []configFile
	for _, p := range []string{config.UserFile(), filepath.Join(root, config.WorkspaceFile)} {
		if p == "" {
			continue
		}
		f := configFile{path: p}
		if fi, err := os.Stat(p); err == nil {
			f.exists, f.size, f.modTime = true, fi.Size(), fi.ModTime()
		}
		out = append(out, f)
	}
	return out
}

// configChanged returns the path of a configuration file created, edited
// or removed since a daemon's engine read its configuration ("" when none
// changed, and always for a CLI's engine, which reads it fresh): a daemon
// keeps the configuration it started with, and says so.
func (e *Engine) configChanged() string {
	if e.cfgFiles == nil {
		return ""
	}
	for i, now := range configFiles(e.root) {
		if was := e.cfgFiles[i]; now.exists != was.exists || now.size != was.size || !now.modTime.Equal(was.modTime) {
			return now.path
		}
	}
	return ""
}

// usableStateDir reports a state directory that cannot be one: a path
// that is, or runs through, something other than a directory (every store
// would otherwise warn about it on its own). A missing one is fine: it is
// created when something is persisted.
func usableStateDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir(), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("state directory %s is not a directory: set %s or --state-dir to a directory, or unset both to use <root>/.ctxd: %w", dir, EnvStateDir, ctxd.ErrInvalidParams)
	}
	return nil
}

// Close writes what the persisted stores learned and releases the
// engine's open files (the git repository's descriptors). The engine must
// not be used afterwards.
func (e *Engine) Close() error {
	e.bg.Stop()
	e.store.Close()
	return e.ws.Close()
}

// Root returns the workspace root.
func (e *Engine) Root() string { return e.root }

// Config returns the engine's effective configuration. Callers must not
// modify it.
func (e *Engine) Config() *config.Config { return e.cfg }

// SetBuffer records an editor's unsaved text for a file (a path inside the
// workspace); gathering uses it instead of the file on disk.
func (e *Engine) SetBuffer(path, text string) error {
	_, rel, err := tree.Resolve(e.root, path)
	if err != nil {
		return err
	}
	e.buffers.Set(rel, text)
	return nil
}

// CloseBuffer forgets a file's unsaved text.
func (e *Engine) CloseBuffer(path string) error {
	_, rel, err := tree.Resolve(e.root, path)
	if err != nil {
		return err
	}
	e.buffers.Forget(rel)
	return nil
}

// Buffer returns a file's unsaved text, if the editor sent one.
func (e *Engine) Buffer(path string) (string, bool) {
	_, rel, err := tree.Resolve(e.root, path)
	if err != nil {
		return "", false
	}
	return e.buffers.Get(rel)
}

// ResolveRoot returns the workspace root for a request: the directory
// given (absolute, symlinks resolved; it must exist), or, when none is
// given, the git top-level containing the working directory (or the
// working directory itself outside git).
func ResolveRoot(given string) (string, error) {
	if given == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find workspace root: %w", err)
		}
		return tree.FindRoot(wd)
	}
	if u, err := url.Parse(given); err == nil && u.Scheme == "file" {
		given = u.Path
	}
	abs, err := tree.Dir(given)
	if err != nil {
		return "", fmt.Errorf("workspace root: %w", err)
	}
	return abs, nil
}

// Rank ranks the workspace's files lexically against request (BM25 over
// path, content and defined names, times the role prior), best first, at
// most limit (all when limit <= 0). `ctxd eval recall` uses it to say
// where a file it missed ranked.
func (e *Engine) Rank(ctx context.Context, request string, limit int) ([]tree.Hit, error) {
	return e.ws.Rank(ctx, query.Parse(request), limit)
}
