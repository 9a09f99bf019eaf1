package graph

import (
	"math"
	"sort"
)

// History is the recent commits of a repository as the files each
// changed, newest first. Build one with [NewHistory] once per HEAD and
// reuse it for every request.
type History struct {
	commits [][]int32 // file ids per commit
	paths   []string  // file ids to paths
	// Skipped counts the commits left out for changing too many files
	// (mass renames, formatting, vendoring).
	Skipped int
}

// DefaultMaxCommitFiles is the largest commit [NewHistory] keeps.
const DefaultMaxCommitFiles = 30

// NewHistory keeps the commits (newest first) that changed 2 to maxFiles
// files (0: DefaultMaxCommitFiles); a larger commit says little about
// which files belong together.
func NewHistory(commits [][]string, maxFiles int) *History {
	if maxFiles <= 0 {
		maxFiles = DefaultMaxCommitFiles
	}
	h := &History{}
	var ids PathIDs
	for _, files := range commits {
		if len(files) > maxFiles {
			h.Skipped++
			continue
		}
		if len(files) < 2 {
			continue
		}
		h.commits = append(h.commits, ids.Of(files))
	}
	h.paths = ids.Paths
	return h
}

// Len returns the number of commits kept.
func (h *History) Len() int {
	if h == nil {
		return 0
	}
	return len(h.commits)
}

// CoChanged scores the files that changed together with the seeds (path →
// weight): each kept commit that changed a seed gives every other file of
// the commit the seed's weight divided by the number of other files (a
// two-file commit says more than a twenty-file one), times a decay that
// halves every halfLife commits back (0: no decay). Seeds score too, from
// the other seeds. Files are returned best first (ties by path), at most
// limit (all when ≤ 0). keep, when not nil, filters the files returned
// (files since deleted, tests).
func (h *History) CoChanged(seeds map[string]float64, halfLife, limit int, keep func(path string) bool) []Scored {
	if h.Len() == 0 || len(seeds) == 0 {
		return nil
	}
	seedOf := make(map[int32]float64, len(seeds))
	for i, p := range h.paths {
		if w := seeds[p]; w > 0 {
			seedOf[int32(i)] = w
		}
	}
	if len(seedOf) == 0 {
		return nil
	}
	score := map[int32]float64{}
	decay := 1.0
	step := 1.0
	if halfLife > 0 {
		step = math.Exp2(-1 / float64(halfLife))
	}
	for _, c := range h.commits {
		var sw float64
		for _, f := range c {
			sw += seedOf[f]
		}
		if sw > 0 {
			for _, f := range c {
				// The other seeds' weight: a seed is not its own evidence.
				if s := (sw - seedOf[f]) * decay / float64(len(c)-1); s > 0 {
					score[f] += s
				}
			}
		}
		decay *= step
	}
	return TopPaths(score, h.paths, limit, keep)
}

// TopPaths returns the paths (by id) of the scores, best first (ties by
// path), at most limit (all when ≤ 0); keep, when not nil, filters them.
func TopPaths(score map[int32]float64, paths []string, limit int, keep func(path string) bool) []Scored {
	out := make([]Scored, 0, len(score))
	for f, s := range score {
		if keep == nil || keep(paths[f]) {
			out = append(out, Scored{Path: paths[f], Score: s})
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Score != out[b].Score {
			return out[a].Score > out[b].Score
		}
		return out[a].Path < out[b].Path
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Scored is a file and its score.
type Scored struct {
	Path  string
	Score float64
}

// PathIDs gives each distinct path a dense id, in the order first seen
// (the co-change history's and the commit messages' file tables).
type PathIDs struct {
	ids map[string]int32
	// Paths are the paths by id.
	Paths []string
}

// Of returns the ids of paths, each new path given the next id.
func (p *PathIDs) Of(paths []string) []int32 {
	if p.ids == nil {
		p.ids = map[string]int32{}
	}
	out := make([]int32, 0, len(paths))
	for _, f := range paths {
		id, ok := p.ids[f]
		if !ok {
			id = int32(len(p.Paths))
			p.ids[f] = id
			p.Paths = append(p.Paths, f)
		}
		out = append(out, id)
	}
	return out
}
