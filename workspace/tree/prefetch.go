package tree

import (
	"context"
)

// prefetch is a first refresh and git read started ahead of the first
// Gather of a workspace that does not follow its tree (a CLI run, see
// [Workspace.Prefetch]).
type prefetch struct {
	commits int
	cancel  context.CancelFunc // stops both
	// walked is closed when snap, warns and err are set.
	walked chan struct{}
	snap   *Snapshot
	warns  []string
	err    error
	// gitDone is closed when git and gitWarns are set.
	gitDone  chan struct{}
	git      *GitInfo
	gitWarns []string
	taken    bool
}

// Prefetch starts, in a workspace that does not follow its tree (a CLI
// run), what the first Gather needs whatever the request: the walk (the
// persisted index checked against the tree) and the git facts of commits
// recent commits (as Request.Commits). The caller then does its own
// preparation (the request's plan, the token counter) while they run; the
// first Gather waits for them instead of doing the work again. It does
// nothing in a followed workspace (see Prepare), after a first refresh or
// when one is under way.
func (w *Tree) Prefetch(ctx context.Context, commits int) {
	if w.opts.Watch {
		return
	}
	commits = CommitsOrDefault(commits)
	w.preMu.Lock()
	defer w.preMu.Unlock()
	if w.pre != nil || w.current() != nil {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	gctx, gcancel := context.WithCancel(ctx)
	p := &prefetch{commits: commits, cancel: cancel, walked: make(chan struct{}), gitDone: make(chan struct{})}
	w.pre = p
	go func() {
		defer close(p.gitDone)
		p.git, p.gitWarns = w.gitFacts(gctx, commits, func() *Snapshot { <-p.walked; return p.snap })
	}()
	go func() {
		defer close(p.walked)
		p.snap, p.warns, p.err = w.refreshWarn(ctx)
		if p.err != nil || p.snap.blocksGit() {
			gcancel() // git may be blocked on the file already
		}
	}()
}

// takePrefetch returns the prefetch for the first Gather, nil when there
// is none or another Gather took it.
func (w *Tree) takePrefetch() *prefetch {
	w.preMu.Lock()
	defer w.preMu.Unlock()
	p := w.pre
	if p == nil || p.taken {
		return nil
	}
	p.taken = true
	return p
}

// refreshed returns the prefetched snapshot, or refreshes when the
// prefetch failed (it was cancelled, say).
func (p *prefetch) refreshed(ctx context.Context, w *Tree) (*Snapshot, []string, error) {
	select {
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-p.walked:
	}
	if p.err != nil {
		return w.refreshWarn(ctx)
	}
	return p.snap, p.warns, nil
}

// stopPrefetch stops a prefetch and waits for it (Close).
func (w *Tree) stopPrefetch() {
	w.preMu.Lock()
	p := w.pre
	w.preMu.Unlock()
	if p == nil {
		return
	}
	p.cancel()
	<-p.walked
	<-p.gitDone
}
