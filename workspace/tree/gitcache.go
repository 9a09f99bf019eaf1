package tree

import (
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd/index"
)

// The git facts that depend on HEAD alone, the recent commits (go-git's
// log, with the files each changed) and the co-change history (`git log
// --name-only`), persist beside the index keyed by HEAD, so a fresh
// process at an unchanged HEAD reads neither again. Like the index and the
// file graph, a file that does not verify or was written for another HEAD
// is rebuilt, never trusted.

const (
	gitCacheVersion = 2 // 2: the history log holds each commit's subject
	commitsMagic    = "CTXDLOG1"
	commitsFile     = "commits.bin"
	historyMagic    = "CTXDHIS1"
	historyFile     = "cochange.bin"
	maxGitCache     = maxHistoryBytes + 1<<20
)

// saving reports whether the git caches are written: only beside a
// persisted index (trees large enough to gain from it), never into a
// directory of their own.
func (s *gitState) saving() bool { return s.state != nil && s.state.Exists() }

// gitCacheKey names what a git cache holds: this root at this HEAD with
// this parameter.
func (s *gitState) gitCacheKey(head string, n int) string {
	return fmt.Sprintf("v=%d root=%s head=%s n=%d", gitCacheVersion, s.root, head, n)
}

// loadCommits returns the persisted recent commits for key; ok false when
// there are none that verify.
func (s *gitState) loadCommits(key string) ([]Commit, bool) {
	if s.state == nil {
		return nil, false
	}
	body, err := s.state.ReadSealed(commitsFile, commitsMagic, key, maxGitCache)
	if err == nil {
		var cs []Commit
		if err = json.Unmarshal(body, &cs); err == nil {
			return cs, true
		}
	}
	if !index.IsRebuild(err) {
		s.log.Warn("persisted commits not used: reading them again", "err", err)
	}
	return nil, false
}

func (s *gitState) saveCommits(key string, cs []Commit) {
	if !s.saving() {
		return
	}
	body, err := json.Marshal(cs)
	if err == nil {
		err = s.state.WriteSealed(commitsFile, commitsMagic, key, body)
	}
	if err != nil {
		s.log.Warn("persisting the commits failed", "err", err)
	}
}

// loadHistory returns the persisted co-change log output for key and
// whether it was cut.
func (s *gitState) loadHistory(key string) (out []byte, cut, ok bool) {
	if s.state == nil {
		return nil, false, false
	}
	body, err := s.state.ReadSealed(historyFile, historyMagic, key, maxGitCache)
	if err == nil && len(body) > 0 && body[0] <= 1 {
		return body[1:], body[0] == 1, true
	}
	if err == nil {
		err = fmt.Errorf("%w: bad body", index.ErrCorrupt)
	}
	if !index.IsRebuild(err) {
		s.log.Warn("persisted co-change history not used: reading it again", "err", err)
	}
	return nil, false, false
}

func (s *gitState) saveHistory(key string, out []byte, cut bool) {
	if !s.saving() {
		return
	}
	body := make([]byte, 0, len(out)+1)
	if cut {
		body = append(body, 1)
	} else {
		body = append(body, 0)
	}
	body = append(body, out...)
	if err := s.state.WriteSealed(historyFile, historyMagic, key, body); err != nil {
		s.log.Warn("persisting the co-change history failed", "err", err)
	}
}
