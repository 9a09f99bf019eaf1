package tree

import "github.com/ctxd/ctxd/index"

// State is where a Workspace persists what it learned for the next
// process, in the workspace's <state>/index/ directory: the file index,
// the file graph and the git caches. The workspace store's directory
// (workspace/disk.Dir) implements it; gather writes no file of its own.
type State interface {
	// Path is the directory (the walk leaves it out when it lies in the
	// tree).
	Path() string
	// Exists reports whether the directory exists.
	Exists() bool
	// ReadSealed returns the body of the sealed file name written for
	// magic and key; WriteSealed writes one, creating the directory.
	ReadSealed(name, magic, key string, maxBytes int64) ([]byte, error)
	WriteSealed(name, magic, key string, body []byte) error
	// LoadIndex reads the file index written for key (mapped: the file
	// is mapped, not read); SaveIndex writes it, creating the directory.
	LoadIndex(key string, mapped bool) (*index.Snapshot, error)
	SaveIndex(s *index.Snapshot) error
}
