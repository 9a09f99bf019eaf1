// Package disk is the layout of a workspace's persisted state, the
// directory <state>/index/: the file index (files.idx), the sealed files
// (a magic, the key they were computed for, a checksum: package index) and
// the directory's creation. The workspace store (package workspace) writes
// through it, and hands it to the walk (tree.Options.State) for the file
// index, the file graph and the git caches, so that one package owns every
// file under <state>/index/. It imports nothing of ctxd's but the format
// package and safefs, so gather's tests use it as the store does.
package disk

import (
	"context"
	"path/filepath"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/safefs"
)

// IndexFile names the file index in the directory.
const IndexFile = "files.idx"

// Dir is a workspace's <state>/index/ directory.
type Dir struct {
	path string
}

// New returns the state directory at path (<state>/index); nothing is
// created until something is written.
func New(path string) *Dir { return &Dir{path: path} }

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Exists reports whether the directory exists: the caches beside the file
// index are written only there (a tree too small for a persisted index
// gets no state directory of their making).
func (d *Dir) Exists() bool { return index.Exists(d.path) }

// Create makes the directory (with a .gitignore ignoring everything in it).
func (d *Dir) Create() error { return index.MakeDir(d.path) }

// ReadSealed returns the body of the sealed file name written for magic
// and key (see index.ReadSealed: index.IsRebuild tells a missing, stale or
// foreign file from a corrupt one).
func (d *Dir) ReadSealed(name, magic, key string, maxBytes int64) ([]byte, error) {
	return index.ReadSealed(filepath.Join(d.path, name), magic, key, maxBytes)
}

// ReadFile reads the whole file name, of at most maxBytes, refusing a
// non-regular file (safefs.ReadFile): for a file that seals itself.
func (d *Dir) ReadFile(name string, maxBytes int64) ([]byte, error) {
	return safefs.ReadFile(context.Background(), filepath.Join(d.path, name), maxBytes)
}

// WriteSealed writes the sealed file name atomically, creating the
// directory.
func (d *Dir) WriteSealed(name, magic, key string, body []byte) error {
	return index.WriteSealed(filepath.Join(d.path, name), magic, key, body)
}

// WriteFile writes the file name atomically, creating the directory: for a
// file that seals itself.
func (d *Dir) WriteFile(name string, body []byte) error {
	return index.WriteAtomic(filepath.Join(d.path, name), body)
}

// LoadIndex reads the file index written for key; mapped maps the file
// rather than reading it (a process that walks once and exits).
func (d *Dir) LoadIndex(key string, mapped bool) (*index.Snapshot, error) {
	if mapped {
		return index.LoadMapped(filepath.Join(d.path, IndexFile), key)
	}
	return index.Load(filepath.Join(d.path, IndexFile), key)
}

// SaveIndex writes the file index atomically, creating the directory.
func (d *Dir) SaveIndex(s *index.Snapshot) error {
	return index.Save(filepath.Join(d.path, IndexFile), s)
}
