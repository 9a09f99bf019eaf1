package eval

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/tokens"
)

// baseline is BM25 over the source files of a checkout, the retrieval
// baseline of SWE-bench: plain words (letters and digits, lowercased),
// no stemming, no identifier splitting, whole files.
type baseline struct {
	root  string
	paths []string
	tf    []map[string]int
	lens  []int
	df    map[string]int
	avg   float64
}

// maxBaselineBytes skips files larger than this, as ctxd's gatherer does.
const maxBaselineBytes = 1 << 20

func newBaseline(root string) (*baseline, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		return nil, gitErr(err)
	}
	b := &baseline{root: root, df: map[string]int{}}
	var total int
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || !sourceLanguages[lang.Of(p)] {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || len(text) > maxBaselineBytes {
			continue
		}
		tf := map[string]int{}
		n := 0
		for _, w := range words(string(text)) {
			tf[w]++
			n++
		}
		for w := range tf {
			b.df[w]++
		}
		b.paths = append(b.paths, p)
		b.tf = append(b.tf, tf)
		b.lens = append(b.lens, n)
		total += n
	}
	if len(b.paths) > 0 {
		b.avg = math.Max(float64(total)/float64(len(b.paths)), 1)
	}
	return b, nil
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// rank returns the source files that share a word with the query, best
// first.
func (b *baseline) rank(query string) []string {
	const k1, bb = 1.2, 0.75
	// The query's words sorted, each once: a sum over a map's order gave
	// files of equal score totals that differed in the last bit, so their
	// order (and at times which one fit) changed run to run.
	q := words(query)
	slices.Sort(q)
	q = slices.Compact(q)
	n := float64(len(b.paths))
	type hit struct {
		i int
		s float64
	}
	var hits []hit
	for i, tf := range b.tf {
		var s float64
		for _, w := range q {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			df := float64(b.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(b.lens[i])/b.avg))
		}
		if s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	sort.Slice(hits, func(x, y int) bool {
		if hits[x].s != hits[y].s {
			return hits[x].s > hits[y].s
		}
		return b.paths[hits[x].i] < b.paths[hits[y].i]
	})
	out := make([]string, len(hits))
	for k, h := range hits {
		out[k] = b.paths[h.i]
	}
	return out
}

// fill returns the files the baseline puts into a context of budget
// tokens: whole files in rank order, each that still fits.
func (b *baseline) fill(query string, c tokens.Counter, budget int) []string {
	var got []string
	left := budget
	for _, p := range b.rank(query) {
		if left < 50 {
			break
		}
		text, err := os.ReadFile(filepath.Join(b.root, filepath.FromSlash(p)))
		if err != nil {
			continue
		}
		// The same fence ctxd's markdown sections use, so both pay for
		// the path line.
		n := c.Count("## " + p + "\n```\n" + string(text) + "\n```\n")
		if n <= left {
			got = append(got, p)
			left -= n
		}
	}
	return got
}
