// Command outside classifies the changed lines that eval recall's focus,
// outline and partial views hid outside every function: for each answer
// file of an `ctxd eval recall --dump` directory with hidden changed
// lines, each hidden line that no function or method of the parent's
// text holds, by what it is (an import, a module-level constant or
// variable, a type's member or a class attribute, a decorator, an export
// list, a top-level statement, a comment, a pure insertion point) and by
// the view that hid it.
//
//	go run ./scripts/outside -repo /work/data/gin -dump DIR [-budget 8000] [-v]
//
// Several repositories: -repo R1,R2 -dump D1,D2. -v prints one line per
// hidden line outside every function (repo, commit, file, view, line,
// class, the line's text).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/ctxd/ctxd/eval"
	"github.com/ctxd/ctxd/internal/udiff"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/treesitter"
)

func main() {
	repos := flag.String("repo", "", "repositories (comma-separated), one per dump directory")
	dumps := flag.String("dump", "", "dump directories (comma-separated)")
	budget := flag.String("budget", "8000", "the budget whose dumps are read")
	verbose := flag.Bool("v", false, "one line per hidden line outside every function")
	flag.Parse()
	rs, ds := strings.Split(*repos, ","), strings.Split(*dumps, ",")
	if *repos == "" || len(rs) != len(ds) {
		fmt.Fprintln(os.Stderr, "outside: -repo and -dump, as many of each")
		os.Exit(2)
	}
	byRepo := map[string]map[string]int{} // repo -> class -> lines
	byView := map[string]map[string]int{} // class -> view -> lines
	files := map[string][3]int{}          // repo -> answer files with hidden lines, with one outside, all outside
	for i := range rs {
		name := filepath.Base(rs[i])
		byRepo[name] = map[string]int{}
		fs, _ := filepath.Glob(filepath.Join(ds[i], "*-"+*budget+".txt"))
		sort.Strings(fs)
		for _, f := range fs {
			d, err := eval.ReadDump(f)
			if err != nil {
				continue
			}
			commit, answers := d.Commit, d.Answers
			for _, a := range answers {
				if len(a.Hidden) == 0 {
					continue
				}
				src, err := exec.Command("git", "-C", rs[i], "show", commit+"^:"+a.Path).Output()
				if err != nil {
					continue
				}
				inserts := insertions(rs[i], commit, a.Path)
				cls := classify(a.Path, src, a.Hidden, inserts)
				out := 0
				for k, l := range a.Hidden {
					c := cls[k]
					if c == "" {
						continue
					}
					out++
					byRepo[name][c]++
					if byView[c] == nil {
						byView[c] = map[string]int{}
					}
					v := a.View
					if v != "-" && len(a.Seen) > 0 {
						v += "+partial"
					}
					byView[c][v]++
					if *verbose {
						st, en := importStatement(treesitter.Detect(a.Path, src), src, l)
						fmt.Printf("%s %s %s view=%s line=%d %s | %s\n", name, commit[:12], a.Path, v, l, c+fmt.Sprintf(" stmt=%d-%d", st, en), lineOf(src, l))
					}
				}
				if *verbose {
					fmt.Printf("FILE %s %s %s view=%s hidden=%d outside=%d\n", name, commit[:12], a.Path, a.View, len(a.Hidden), out)
				}
				t := files[name]
				t[0]++
				if out > 0 {
					t[1]++
				}
				if out == len(a.Hidden) {
					t[2]++
				}
				files[name] = t
			}
		}
	}
	classes := map[string]bool{}
	for _, m := range byRepo {
		for c := range m {
			classes[c] = true
		}
	}
	var cs []string
	for c := range classes {
		cs = append(cs, c)
	}
	sort.Strings(cs)
	fmt.Printf("| class |")
	for _, r := range rs {
		fmt.Printf(" %s |", filepath.Base(r))
	}
	fmt.Println(" all | views (+partial: some changed lines seen) |")
	for _, c := range cs {
		fmt.Printf("| %s |", c)
		all := 0
		for _, r := range rs {
			n := byRepo[filepath.Base(r)][c]
			all += n
			fmt.Printf(" %d |", n)
		}
		var vs []string
		for v, n := range byView[c] {
			vs = append(vs, fmt.Sprintf("%s %d", v, n))
		}
		sort.Strings(vs)
		fmt.Printf(" %d | %s |\n", all, strings.Join(vs, ", "))
	}
	fmt.Printf("| answer files with a hidden line / one outside functions / all outside |")
	for _, r := range rs {
		t := files[filepath.Base(r)]
		fmt.Printf(" %d/%d/%d |", t[0], t[1], t[2])
	}
	fmt.Println()
}

// insertions returns the parent's lines that a pure insertion of the
// commit follows (eval's changed line for it).
func insertions(repo, commit, path string) map[int]bool {
	out, _ := exec.Command("git", "-C", repo, "diff", "-U0", "--no-color", "--no-renames", commit+"^", commit, "--", path).Output()
	ins := map[int]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		old, _, ok := udiff.HunkHeader(l)
		if !ok || old.Lines != 0 {
			continue
		}
		ins[max(old.Start, 1)] = true
	}
	return ins
}

func lineOf(src []byte, l int) string {
	ls := strings.Split(string(src), "\n")
	if l < 1 || l > len(ls) {
		return ""
	}
	return strings.TrimRight(ls[l-1], "\r")
}

var (
	commentRe   = regexp.MustCompile(`^\s*(//|#|/\*|\*|"""|'''|<!--)`)
	exportRe    = regexp.MustCompile(`^\s*(__all__|module\.exports|exports\.|export \{|export \*|export default|export type \{)`)
	declRe      = regexp.MustCompile(`^\s*(export\s+)?(declare\s+)?(const|let|var)\s|^[A-Za-z_][A-Za-z0-9_]*\s*(:[^=]*)?=[^=]|^\s*const \(|^\s*var \(`)
	stmtRe      = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$.]*\s*\(|^(if|for|while|try|with)\b`)
	memberRe    = regexp.MustCompile(`^\s+[A-Za-z_$][A-Za-z0-9_$]*\??\s*[:=]|^\s+[A-Z][A-Za-z0-9_]*\s+[^\s(]|^\s+[A-Za-z_][A-Za-z0-9_]*\s+[\[\]*A-Za-z.]`)
	typeHeadRe  = regexp.MustCompile(`^\s*(export\s+)?(type|interface|enum|class|struct)\s`)
	closeOnlyRe = regexp.MustCompile(`^\s*[)\]}]+[;,)]*\s*$`)
	importRe    = regexp.MustCompile(`^(import|from \S+ import|package)\b|require\(`)
)

// classify returns, by hidden line, "" for a line inside a function or
// method, else what the line is.
func classify(rel string, src []byte, hidden []int, inserts map[int]bool) []string {
	out := make([]string, len(hidden))
	lg := treesitter.Detect(rel, src)
	var syms []treesitter.Symbol
	if lg != "" {
		if fs, err := treesitter.Symbols(context.Background(), lg, src); err == nil {
			syms = fs.Symbols
		}
	}
	imps := lang.ImportsAt(lg, src)
	for k, l := range hidden {
		var in *treesitter.Symbol // the innermost non-function symbol holding l
		fn := false
		for i := range syms {
			s := &syms[i]
			if s.Start <= l && l <= s.End {
				if s.Kind == "function" || s.Kind == "method" {
					fn = true
				} else if in == nil || s.Start >= in.Start {
					in = s
				}
			}
		}
		if fn {
			continue
		}
		text := lineOf(src, l)
		trim := strings.TrimSpace(text)
		isImport := false
		for _, im := range imps {
			if im.Start <= l && l <= im.End {
				isImport = true
			}
		}
		if !isImport && importRe.MatchString(trim) {
			isImport = true
		}
		var c string
		switch {
		case isImport:
			c = "import"
		case trim == "" || closeOnlyRe.MatchString(text):
			c = "blank/closer"
		case commentRe.MatchString(text):
			c = "comment/docstring"
		case strings.HasPrefix(trim, "@"):
			c = "decorator"
		case exportRe.MatchString(text):
			c = "export list"
		case in != nil && (in.Kind == "field" || in.Depth > 0) && in.Kind != "class":
			c = "member/field/attribute"
		case in != nil && in.Start == l && in.Kind != "const" && in.Kind != "var":
			c = "type/class header"
		case in != nil && in.Kind != "const" && in.Kind != "var" && in.Depth == 0 && (in.Kind == "class" || in.Kind == "struct" || in.Kind == "interface" || in.Kind == "enum" || in.Kind == "type" || in.Kind == "field"):
			if memberRe.MatchString(text) {
				c = "member/field/attribute"
			} else {
				c = "class body other"
			}
		case in != nil && (in.Kind == "const" || in.Kind == "var"):
			c = "module const/var"
		case declRe.MatchString(text):
			c = "module const/var"
		case typeHeadRe.MatchString(text):
			c = "type/class header"
		case stmtRe.MatchString(text):
			c = "top-level statement"
		case strings.HasPrefix(text, " ") || strings.HasPrefix(text, "\t"):
			c = "inside statement/literal"
		default:
			c = "other"
		}
		if inserts[l] {
			c = "insertion after: " + c
		}
		out[k] = c
	}
	return out
}
