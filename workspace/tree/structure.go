package tree

import (
	"github.com/ctxd/ctxd"

	"fmt"
	"sort"
	"strings"
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
		for _, n := range names {
			c := d.dirs[n]
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

func counts(files, dirs int) string {
	s := Plural(files, "file", "files")
	if dirs > 0 {
		s += ", " + Plural(dirs, "dir", "dirs")
	}
	return s
}

func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
