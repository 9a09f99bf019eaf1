package tree

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
)

// Bounds of the structure chunk, so a huge tree stays a summary.
const (
	structureMaxFiles = 20  // files listed per directory
	structureMaxLines = 400 // lines in the whole tree
)

type dirNode struct {
	name  string
	dirs  map[string]*dirNode
	files []string
	// totals below this node, recursively
	nFiles, nDirs int
}

func (d *dirNode) child(name string) *dirNode {
	if d.dirs == nil {
		d.dirs = map[string]*dirNode{}
	}
	c := d.dirs[name]
	if c == nil {
		c = &dirNode{name: name}
		d.dirs[name] = c
	}
	return c
}

// Structure renders root-relative slash file paths as an indented tree,
// directories first, down to depth levels (the root's entries are level 1).
// A directory at the depth limit is shown with the counts of what it holds,
// as "net/  (42 files, 9 dirs not shown)"; a directory with many files lists
// the first ones and counts the rest; the whole tree is cut at a fixed
// number of lines with a count of the entries left out. The caller passes
// only files that may be shown (ignored and secret files left out).
func Structure(paths []string, depth int) string {
	if depth <= 0 {
		depth = 1
	}
	root := &dirNode{name: "."}
	for _, p := range paths {
		segs := strings.Split(p, "/")
		d := root
		d.nFiles++
		for _, s := range segs[:len(segs)-1] {
			d = d.child(s)
			d.nFiles++
		}
		d.files = append(d.files, segs[len(segs)-1])
	}
	// Count every directory below each node.
	var count func(d *dirNode) int
	count = func(d *dirNode) int {
		n := 0
		for _, c := range d.dirs {
			n += 1 + count(c)
		}
		d.nDirs = n
		return n
	}
	count(root)

	var b strings.Builder
	lines := 0
	left := 0 // entries not shown because of the line cap
	fmt.Fprintf(&b, "./  (%s)\n", counts(root.nFiles, root.nDirs))
	lines++
	var render func(d *dirNode, level int)
	render = func(d *dirNode, level int) {
		indent := strings.Repeat("  ", level)
		names := make([]string, 0, len(d.dirs))
		for n := range d.dirs {
			names = append(names, n)
		}
		sort.Strings(names)
		names, others := localeDirs(names)
		for _, n := range names {
			c := d.dirs[n]
			if others != nil && n == others[0] {
				// The other locales of a docs tree, on one line.
				var files, dirs int
				for _, o := range others[1:] {
					files += d.dirs[o].nFiles
					dirs += 1 + d.dirs[o].nDirs
				}
				if lines >= structureMaxLines {
					left += files + dirs
					continue
				}
				lines++
				escaped := make([]string, len(others)-1)
				for i, o := range others[1:] {
					escaped[i] = ctxd.EscapeName(o)
				}
				fmt.Fprintf(&b, "%s{%s}/  (%d other locales of %s/: %s not shown)\n", indent, strings.Join(escaped, ","), len(others)-1, ctxd.EscapeName(n), counts(files, dirs))
				// and the kept locale below, as any directory
			}
			if lines >= structureMaxLines {
				left += 1 + c.nFiles + c.nDirs
				continue
			}
			lines++
			if level >= depth && (len(c.dirs) > 0 || len(c.files) > 0) {
				fmt.Fprintf(&b, "%s%s/  (%s not shown)\n", indent, ctxd.EscapeName(n), counts(c.nFiles, c.nDirs))
				continue
			}
			fmt.Fprintf(&b, "%s%s/\n", indent, ctxd.EscapeName(n))
			render(c, level+1)
		}
		files := append([]string(nil), d.files...)
		sort.Strings(files)
		for i, f := range files {
			if lines >= structureMaxLines {
				left += len(files) - i
				break
			}
			if i == structureMaxFiles && len(files) > structureMaxFiles+1 {
				fmt.Fprintf(&b, "%s… %d more files\n", indent, len(files)-i)
				lines++
				break
			}
			fmt.Fprintf(&b, "%s%s\n", indent, ctxd.EscapeName(f))
			lines++
		}
	}
	render(root, 1)
	if left > 0 {
		fmt.Fprintf(&b, "… %d more entries not shown\n", left)
	}
	return b.String()
}

// localeDirs finds, among sorted directory names, a set of locale folders
// (three or more named as locale tags: docs/de, docs/en, docs/zh-hant) and
// keeps one of them (English, else the first: lang.Preferred): it returns
// the names without the others, and others as the kept name followed by
// the left-out ones (nil when there is no such set). Translations of a
// docs tree are one entry of the structure, not a screenful: fastapi's 15
// locales took 45 of the tree's 400 lines.
func localeDirs(names []string) (kept, others []string) {
	var tags, locales []string
	for _, n := range names {
		if t := lang.Tag(n); t != "" {
			tags = append(tags, t)
			locales = append(locales, n)
		}
	}
	if len(locales) < 3 {
		return names, nil
	}
	keep := locales[lang.Preferred(tags, "")]
	others = []string{keep}
	for _, n := range names {
		if n != keep && slices.Contains(locales, n) {
			others = append(others, n)
		} else {
			kept = append(kept, n)
		}
	}
	return kept, others
}

func counts(files, dirs int) string {
	s := ctxd.Plural(files, "file", "files")
	if dirs > 0 {
		s += ", " + ctxd.Plural(dirs, "dir", "dirs")
	}
	return s
}
