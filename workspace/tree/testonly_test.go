package tree

import "context"

// Functions only the tests use (they were exported or compiled into the
// binary before).

// gitLog returns the last n commits reachable from HEAD of the repository
// holding root, newest first (by committer time, as git log), with the
// files each changed. It opens the repository with go-git (kept
// descriptors, object LRU) and closes it before returning. A root outside
// any repository has no commits and no error.
func gitLog(ctx context.Context, root string, n int) ([]Commit, error) {
	h, err := openRepo(root)
	if err != nil || h == nil {
		return nil, err
	}
	defer h.close()
	return h.log(ctx, n)
}

// posting returns the postings of term h.
func (ix *Index) posting(h uint32) *posting {
	return ix.postingsOf([]uint32{h})[0]
}

// fullPostings returns ix's full postings, waiting for their build when
// one runs; nil when there are none. (A request does not wait: see
// postingsOf.)
func (ix *Index) fullPostings() *fullPostings {
	if ix.fullDone != nil {
		<-ix.fullDone
	}
	return ix.full.Load()
}

// newTextIndex indexes files given as root-relative slash paths and their
// text (a Tree keeps its own index, built once and updated file by file).
func newTextIndex(files map[string][]byte) *Index {
	c, d := newTermCounter(), newTermCounter()
	docs := make([]*indexDoc, 0, len(files))
	for p, b := range files {
		docs = append(docs, newDoc(c, d, p, b))
	}
	return newIndex(docs)
}

// bytes returns the memory the postings hold.
func (fp *fullPostings) bytes() int {
	l := func(l *postingList) int { return 4*cap(l.terms) + 4*cap(l.off) + cap(l.data) }
	return l(&fp.content) + l(&fp.path) + 4*cap(fp.groupOff) + 4*cap(fp.groupDocs)
}
