package tree

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/utils/merkletrie"
	fsnoder "github.com/go-git/go-git/v5/utils/merkletrie/filesystem"
	mindex "github.com/go-git/go-git/v5/utils/merkletrie/index"
	"github.com/go-git/go-git/v5/utils/merkletrie/noder"
)

// This file reads a repository through go-git's storage and object
// packages only, as go-git's root package does for what ctxd asks of it
// (open, HEAD, the log, the worktree status). The root package is not
// linked: its transports (http, ssh, ssh-agent, known hosts), signing and
// clone/fetch/push code cost 0.44 MB of the release binary, for nothing
// ctxd calls. gitrepo_test.go checks each answer against go-git's own.

// checkRepo refuses what go-git's Open refuses: no HEAD (not a
// repository), a repository format version or extension it cannot read.
func checkRepo(st *filesystem.Storage) error {
	if _, err := st.Reference(plumbing.HEAD); errors.Is(err, plumbing.ErrReferenceNotFound) {
		return errors.New("repository does not exist")
	}
	cfg, err := st.Config()
	if err != nil {
		return err
	}
	switch v := cfg.Core.RepositoryFormatVersion; v {
	case "", "0", "1":
	default:
		return fmt.Errorf("core.repositoryformatversion not supported: %q", v)
	}
	if cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return nil
	}
	var unknown []string
	for _, opt := range cfg.Raw.Section("extensions").Options {
		if name := strings.ToLower(opt.Key); name != "noop" && name != "noop-v1" {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("unknown extension: %s", strings.Join(unknown, ", "))
	}
	return nil
}

// head is the reference HEAD resolves to (plumbing.ErrReferenceNotFound
// before the first commit).
func (h *repoHandle) head() (*plumbing.Reference, error) {
	return storer.ResolveReference(h.storage, plumbing.HEAD)
}

// logFrom walks the history from hash, newest committer time first (go-git's
// LogOrderCommitterTime).
func (h *repoHandle) logFrom(hash plumbing.Hash) (object.CommitIter, error) {
	c, err := object.GetCommit(h.storage, hash)
	if err != nil {
		return nil, err
	}
	return object.NewCommitIterCTime(c, nil, nil), nil
}

// Status codes of a file's staging and worktree sides, go-git's.
const (
	stUnmodified = ' '
	stUntracked  = '?'
	stModified   = 'M'
	stAdded      = 'A'
	stDeleted    = 'D'
)

// fileStatus is a file's staging and worktree status.
type fileStatus struct{ Staging, Worktree byte }

// status is go-git's Worktree.Status: HEAD's tree against the index
// (staging), the index against the files (worktree), ignored files left
// out unless tracked, a submodule compared by its checked-out commit.
func (h *repoHandle) status() (map[string]*fileStatus, error) {
	var commit plumbing.Hash
	ref, err := h.head()
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, err
	}
	if err == nil {
		commit = ref.Hash()
	}
	idx, err := h.storage.Index()
	if err != nil {
		return nil, err
	}
	s := map[string]*fileStatus{}
	file := func(p string) *fileStatus {
		if s[p] == nil {
			s[p] = &fileStatus{Staging: stUntracked, Worktree: stUntracked}
		}
		return s[p]
	}

	// HEAD against the index.
	var from noder.Noder
	if !commit.IsZero() {
		c, err := object.GetCommit(h.storage, commit)
		if err != nil {
			return nil, err
		}
		t, err := c.Tree()
		if err != nil {
			return nil, err
		}
		from = object.NewTreeRootNode(t)
	}
	left, err := merkletrie.DiffTree(from, mindex.NewRootNode(idx), diffTreeIsEquals)
	if err != nil {
		return nil, err
	}
	for _, ch := range left {
		a, err := ch.Action()
		if err != nil {
			return nil, err
		}
		file(nameFromAction(&ch)).Worktree = stUnmodified
		switch a {
		case merkletrie.Delete:
			file(ch.From.String()).Staging = stDeleted
		case merkletrie.Insert:
			file(ch.To.String()).Staging = stAdded
		case merkletrie.Modify:
			file(ch.To.String()).Staging = stModified
		}
	}

	// The index against the files.
	subs, err := h.submoduleCommits(idx)
	if err != nil {
		return nil, err
	}
	right, err := merkletrie.DiffTree(mindex.NewRootNode(idx), fsnoder.NewRootNodeWithOptions(h.worktree, subs, fsnoder.Options{Index: idx}), diffTreeIsEquals)
	if err != nil {
		return nil, err
	}
	for _, ch := range h.excludeIgnored(right) {
		a, err := ch.Action()
		if err != nil {
			return nil, err
		}
		fs := file(nameFromAction(&ch))
		if fs.Staging == stUntracked {
			fs.Staging = stUnmodified
		}
		switch a {
		case merkletrie.Delete:
			fs.Worktree = stDeleted
		case merkletrie.Insert:
			fs.Worktree, fs.Staging = stUntracked, stUntracked
		case merkletrie.Modify:
			fs.Worktree = stModified
		}
	}
	return s, nil
}

func nameFromAction(ch *merkletrie.Change) string {
	if name := ch.To.String(); name != "" {
		return name
	}
	return ch.From.String()
}

var emptyNoderHash = make([]byte, 24)

// diffTreeIsEquals is go-git's: an empty hash (a file not yet hashed)
// never equals anything.
func diffTreeIsEquals(a, b noder.Hasher) bool {
	ha, hb := a.Hash(), b.Hash()
	if bytes.Equal(ha, emptyNoderHash) || bytes.Equal(hb, emptyNoderHash) {
		return false
	}
	return bytes.Equal(ha, hb)
}

// excludeIgnored drops the untracked changes the worktree's .gitignore
// files ignore (a tracked file stays, ignored or not).
func (h *repoHandle) excludeIgnored(changes merkletrie.Changes) merkletrie.Changes {
	patterns, err := gitignore.ReadPatterns(h.worktree, nil)
	if err != nil || len(patterns) == 0 {
		return changes
	}
	m := gitignore.NewMatcher(patterns)
	var res merkletrie.Changes
	for _, ch := range changes {
		var path []string
		for _, n := range ch.To {
			path = append(path, n.Name())
		}
		if len(path) == 0 {
			for _, n := range ch.From {
				path = append(path, n.Name())
			}
		}
		if len(path) != 0 {
			isDir := (len(ch.To) > 0 && ch.To.IsDir()) || (len(ch.From) > 0 && ch.From.IsDir())
			if m.Match(path, isDir) && len(ch.From) == 0 {
				continue
			}
		}
		res = append(res, ch)
	}
	return res
}

// submoduleCommits maps each submodule's path to the commit it has
// checked out (its HEAD), else the one the index records, as go-git's
// status compares them. Unlike go-git it never creates a submodule's
// repository that the configuration names but that does not exist (its
// commit is then the index's).
func (h *repoHandle) submoduleCommits(idx *index.Index) (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	f, err := h.worktree.Open(".gitmodules")
	if err != nil {
		if os.IsNotExist(err) {
			return out, nil
		}
		return nil, err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	m := config.NewModules()
	if err := m.Unmarshal(b); err != nil {
		return nil, err
	}
	cfg, err := h.storage.Config()
	if err != nil {
		return nil, err
	}
	for _, sm := range m.Submodules {
		var expected, current plumbing.Hash
		e, err := idx.Entry(sm.Path)
		if err != nil && !errors.Is(err, index.ErrEntryNotFound) {
			return nil, err
		}
		if e != nil {
			expected = e.Hash
		}
		if cfg.Submodules[sm.Name] != nil {
			if mod, err := h.storage.Module(sm.Name); err == nil {
				if ref, err := storer.ResolveReference(mod, plumbing.HEAD); err == nil {
					current = ref.Hash()
				} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
					return nil, err
				}
			}
		}
		if current.IsZero() {
			out[sm.Path] = expected
		} else {
			out[sm.Path] = current
		}
	}
	return out, nil
}
