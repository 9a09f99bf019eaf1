package tree

// What the external tests (package tree_test, which gather: package
// gather asks the tree for its snapshots) use of the tree's internals and
// of this package's test helpers.

var (
	AgeTree          = ageTree
	CountGit         = countGit
	Eventually       = eventually
	FollowedRepo     = followedRepo
	GitCmd           = gitCmd
	GitCommitAll     = gitCommitAll
	GitInit          = gitInit
	GitRuns          = gitRuns
	HasFile          = hasFile
	HistoryRepo      = historyRepo
	IsolateGit       = isolateGit
	LinksRepo        = linksRepo
	NewTestWorkspace = newTestWorkspace
	WriteFile        = writeFile
)

const (
	LinksFile   = linksFile
	CommitsFile = commitsFile
	HistoryFile = historyFile
)

// Current is w's newest snapshot.
func Current(w *Tree) *Snapshot { return w.current() }

// BuiltLinks is s's file graph, nil before it is built.
func BuiltLinks(s *Snapshot) *LinkGraph {
	s.linksMu.Lock()
	defer s.linksMu.Unlock()
	return s.linkG
}

// Loaded reports a graph read from the persisted one.
func Loaded(lg *LinkGraph) bool { return lg.loaded }

// GitCounts are the history's commits and the recent commits w's git
// state holds.
func GitCounts(w *Tree) (hist, commits int) {
	w.git.mu.Lock()
	defer w.git.mu.Unlock()
	return w.git.hist.Len(), len(w.git.Commits)
}

// LastReused is how many files' persisted facts w's last walk reused.
func LastReused(w *Tree) int {
	w.follow.mu.Lock()
	defer w.follow.mu.Unlock()
	return w.follow.lastReused
}

// IndexKey is the key of w's persisted file index.
func IndexKey(w *Tree) string { return w.indexKey() }

// Prefetched reports a prefetch not yet taken by a gather.
func Prefetched(w *Tree) bool {
	w.preMu.Lock()
	defer w.preMu.Unlock()
	return w.pre != nil
}
