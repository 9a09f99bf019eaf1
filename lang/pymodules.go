package lang

import (
	"path"
	"strings"
)

// PyModules resolves Python module names to the files of one repository.
// A file's full dotted names are the ones Python could import it as from a
// source root: the repository root ("src/app/db.py" is "src.app.db"), the
// directory above its outermost package (the first directory up without
// an __init__.py: with src/app/__init__.py, "app.db"), and src/ ("app.db"
// for a namespace package under src/). A package's __init__.py is the
// package itself. An import resolves to the files whose full name it is;
// only when none is, and no module of the repository is a dotted prefix
// of it (then the rest names something inside that module), does it fall
// back to the one file whose trailing dotted name (two segments or more)
// it ends with: "from models import X" never means every models.py.
type PyModules struct {
	paths  []string
	exact  map[string][]int32
	suffix map[string][]int32
}

// NewPyModules indexes the Python files among paths (others, and "",
// are skipped); [PyModules.Resolve] answers with indices into paths.
func NewPyModules(paths []string) *PyModules {
	m := &PyModules{paths: paths, exact: map[string][]int32{}, suffix: map[string][]int32{}}
	pkgs := map[string]bool{} // directories with an __init__.py
	for _, p := range paths {
		if path.Base(p) == "__init__.py" {
			pkgs[path.Dir(p)] = true
		}
	}
	for i, p := range paths {
		if path.Ext(p) != ".py" {
			continue
		}
		id := int32(i)
		for _, name := range pyFullNames(p, pkgs) {
			if l := m.exact[name]; len(l) == 0 || l[len(l)-1] != id {
				m.exact[name] = append(l, id)
			}
		}
		names := pyModuleNames(p)
		for _, name := range names[min(1, len(names)):] { // the repo-root name is exact
			if strings.Contains(name, ".") {
				m.suffix[name] = append(m.suffix[name], id)
			}
		}
	}
	return m
}

// pyFullNames returns the full dotted names of the Python file p (no
// repeats, the repository-root one first).
func pyFullNames(p string, pkgs map[string]bool) []string {
	mod := strings.TrimSuffix(p, ".py")
	dir := path.Dir(p)
	if path.Base(mod) == "__init__" {
		mod, dir = path.Dir(mod), path.Dir(dir)
	}
	if mod == "." {
		return nil // an __init__.py at the root is no module
	}
	out := []string{strings.ReplaceAll(mod, "/", ".")}
	add := func(root string) {
		if root == "." || root == "" {
			return
		}
		rel, ok := strings.CutPrefix(mod, root+"/")
		if !ok {
			return
		}
		name := strings.ReplaceAll(rel, "/", ".")
		for _, o := range out {
			if o == name {
				return
			}
		}
		out = append(out, name)
	}
	for dir != "." && pkgs[dir] {
		dir = path.Dir(dir)
	}
	add(dir)
	add("src")
	return out
}

// Resolve returns the files (indices into the paths given to
// NewPyModules) the import spec of importer names: a module name as
// [Imports] reads it, relative ones with their leading dots. Several
// files of one full name (a "utils" beside each of two scripts) resolve
// to those nearest the importer.
func (m *PyModules) Resolve(importer, spec string) []int32 {
	if m == nil || spec == "" {
		return nil
	}
	if strings.HasPrefix(spec, ".") {
		spec = pyAbsolute(importer, spec)
		if spec == "" {
			return nil
		}
	}
	if to := m.exact[spec]; len(to) > 0 {
		if len(to) == 1 {
			return to
		}
		return m.nearest(importer, to)
	}
	for p := spec; ; {
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
		if len(m.exact[p]) > 0 {
			return nil // a name inside a module of the repository
		}
	}
	for s := spec; ; {
		if to := m.suffix[s]; len(to) > 0 {
			if len(to) == 1 {
				return to
			}
			return nil // ambiguous: a shorter suffix is only looser
		}
		_, rest, ok := strings.Cut(s, ".")
		if !ok || !strings.Contains(rest, ".") {
			return nil
		}
		s = rest
	}
}

// Resolves reports whether spec of importer resolves to the file target.
func (m *PyModules) Resolves(importer, spec, target string) bool {
	for _, i := range m.Resolve(importer, spec) {
		if m.paths[i] == target {
			return true
		}
	}
	return false
}

// nearest keeps the files of to whose directory shares the longest
// prefix with importer's.
func (m *PyModules) nearest(importer string, to []int32) []int32 {
	best, out := -1, []int32(nil)
	for _, i := range to {
		n := commonDirs(path.Dir(importer), path.Dir(m.paths[i]))
		switch {
		case n > best:
			best, out = n, []int32{i}
		case n == best:
			out = append(out, i)
		}
	}
	return out
}

// commonDirs counts the leading directories a and b share.
func commonDirs(a, b string) int {
	if a == "." || b == "." {
		return 0
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	return n
}
