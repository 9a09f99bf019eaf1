package tree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ctxd/ctxd/safefs"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// IgnoreFile is the name of ctxd's own ignore file. It uses gitignore syntax,
// may appear in any directory, and its patterns take precedence over a
// .gitignore in the same directory.
const IgnoreFile = ".ctxdignore"

// ignoreRules decides which paths the walk leaves out. It follows git's
// precedence, lowest first: core.excludesFile, .git/info/exclude, then
// .gitignore files from the repository top down (deeper files win), with a
// .ctxdignore after the .gitignore of its directory. Options.Exclude globs
// are checked on their own and always exclude.
//
// Patterns are matched with go-git's plumbing/format/gitignore, on paths
// relative to the git top-level (prefix holds the root's segments below it),
// so a root that is a subdirectory of a repository sees the same rules as
// git does.
type ignoreRules struct {
	// prefix is the root's path below the git top-level, as segments.
	prefix []string
	// base are the patterns that apply everywhere under the root, in
	// ascending priority.
	base []gitignore.Pattern
	// exclude are doublestar globs relative to the root.
	exclude []string
	// gitDir is the repository's git directory ("" without one).
	gitDir string
	// warnings are problems met while loading (unreadable ignore files).
	warnings []string
	// notRegular are the ignore files (core.excludesFile,
	// .git/info/exclude, a .git file, the .gitignore files the walk met)
	// that exist but are not regular files: a FIFO, a device or a link to
	// one. ctxd refuses to read them; the git CLI would open them and
	// block, so a snapshot with any runs no git (see snapshot.gitBlocked).
	// The walk appends to it.
	notRegular []string
}

// newIgnoreRules loads the rules that apply to root: core.excludesFile,
// .git/info/exclude and the ignore files of the directories between the git
// top-level and root. root must be absolute and resolved.
func newIgnoreRules(root string, exclude []string) (*ignoreRules, error) {
	for _, g := range exclude {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("load ignore rules: bad exclude glob %q: %w", g, doublestar.ErrBadPattern)
		}
	}
	ir := &ignoreRules{exclude: exclude}
	top := gitTop(root)
	if top == "" {
		// Outside git, .gitignore and .ctxdignore files still apply (read
		// during the walk): they say what the user does not want read.
		return ir, nil
	}
	if r, ok := within(top, root); ok && r != "." {
		ir.prefix = strings.Split(filepath.ToSlash(r), "/")
	}
	ir.gitDir, ir.warnings = findGitDir(top)
	if ir.gitDir == "" && !isRegularOrDir(filepath.Join(top, ".git")) {
		ir.notRegular = append(ir.notRegular, filepath.Join(top, ".git"))
	}
	common := ir.gitDir
	if common != "" {
		// Linked worktrees keep info/exclude and config in the common dir.
		if b, err := readSmall(filepath.Join(ir.gitDir, "commondir")); err == nil {
			c := strings.TrimSpace(string(b))
			if !filepath.IsAbs(c) {
				c = filepath.Join(ir.gitDir, c)
			}
			common = filepath.Clean(c)
		}
	}
	if f := excludesFile(common, top); f != "" {
		ps, err := readPatternFile(f, nil)
		if err != nil {
			ir.warnings = append(ir.warnings, fmt.Sprintf("reading core.excludesFile %s: %v", f, err))
			ir.noteNotRegular(f, err)
		}
		ir.base = append(ir.base, ps...)
	}
	if common != "" {
		f := filepath.Join(common, "info", "exclude")
		ps, err := readPatternFile(f, nil)
		if err != nil {
			ir.warnings = append(ir.warnings, fmt.Sprintf("reading %s: %v", f, err))
			ir.noteNotRegular(f, err)
		}
		ir.base = append(ir.base, ps...)
	}
	// Ignore files of the directories from the top-level down to (not
	// including) root; root's own are read by the walk.
	for i := range ir.prefix {
		domain := ir.prefix[:i]
		dir := filepath.Join(append([]string{top}, domain...)...)
		if gitignore.NewMatcher(ir.base).Match(ir.prefix[:i+1], true) {
			// git never looks inside an ignored directory; neither do we.
			break
		}
		ps, warns := ir.readDirPatterns(dir, domain)
		ir.base = append(ir.base, ps...)
		ir.warnings = append(ir.warnings, warns...)
	}
	return ir, nil
}

// noteNotRegular records path in notRegular when err says it is not a
// regular file.
func (ir *ignoreRules) noteNotRegular(path string, err error) {
	if errors.Is(err, safefs.ErrNotRegular) {
		ir.notRegular = append(ir.notRegular, path)
	}
}

// isRegularOrDir reports that path is missing, a directory or a regular
// file after resolving links (what git can open without blocking).
func isRegularOrDir(path string) bool {
	fi, err := os.Stat(path)
	return err != nil || fi.IsDir() || fi.Mode().IsRegular()
}

// findGitDir returns the git directory of the repository whose top-level is
// top: top/.git, or the directory a ".git" file points to.
func findGitDir(top string) (string, []string) {
	dot := filepath.Join(top, ".git")
	fi, err := os.Stat(dot)
	if err != nil {
		return "", []string{fmt.Sprintf("reading %s: %v", dot, err)}
	}
	if fi.IsDir() {
		return dot, nil
	}
	b, err := readSmall(dot)
	if err != nil {
		return "", []string{fmt.Sprintf("reading %s: %v", dot, err)}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", []string{fmt.Sprintf("reading %s: not a gitdir file", dot)}
	}
	d = strings.TrimSpace(d)
	if !filepath.IsAbs(d) {
		d = filepath.Join(top, d)
	}
	return filepath.Clean(d), nil
}

// excludesFile returns the path of git's core.excludesFile as git would
// find it: the repository config wins over the global one (GIT_CONFIG_GLOBAL,
// or ~/.gitconfig over $XDG_CONFIG_HOME/git/config), which wins over the
// system one (GIT_CONFIG_SYSTEM or /etc/gitconfig, unless
// GIT_CONFIG_NOSYSTEM). Unset everywhere, it is $XDG_CONFIG_HOME/git/ignore
// (or ~/.config/git/ignore). "" when nothing applies.
func excludesFile(gitDir, top string) string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string // highest precedence first
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "config"))
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else {
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	if v := os.Getenv("GIT_CONFIG_NOSYSTEM"); v == "" || v == "0" || strings.EqualFold(v, "false") {
		if s, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
			files = append(files, s)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	for _, f := range files {
		if f == "" {
			continue
		}
		v, ok := configExcludesFile(f)
		if !ok {
			continue
		}
		if v == "" {
			return ""
		}
		return expandPath(v, home, top)
	}
	if xdg != "" {
		return filepath.Join(xdg, "git", "ignore")
	}
	return ""
}

// configExcludesFile reads core.excludesFile from one git config file.
func configExcludesFile(path string) (string, bool) {
	b, err := readSmall(path)
	if err != nil {
		return "", false
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(b)).Decode(cfg); err != nil {
		return "", false
	}
	if !cfg.HasSection("core") {
		return "", false
	}
	opts := cfg.Section("core").Options
	if !opts.Has("excludesfile") {
		return "", false
	}
	return opts.Get("excludesfile"), true
}

// expandPath expands a leading "~/" and makes a relative path relative to
// the repository top-level.
func expandPath(p, home, top string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(top, p)
	}
	return p
}

// readDirPatterns reads the .gitignore and then the .ctxdignore of dir, whose
// path below the git top-level (or the root outside git) is domain. An
// ignore file that is not a regular file is noted in ir.notRegular.
func (ir *ignoreRules) readDirPatterns(dir string, domain []string) ([]gitignore.Pattern, []string) {
	var ps []gitignore.Pattern
	var warns []string
	for _, name := range []string{".gitignore", IgnoreFile} {
		f := filepath.Join(dir, name)
		p, err := readPatternFile(f, domain)
		if errors.Is(err, safefs.ErrTooBig) {
			warns = append(warns, fmt.Sprintf("%s is over %d MiB and was not read: its patterns are not applied, so files it would ignore are included", f, maxIgnoreBytes>>20))
		} else if err != nil {
			warns = append(warns, fmt.Sprintf("reading %s: %v", f, err))
		}
		if err != nil {
			if name == ".gitignore" {
				ir.noteNotRegular(f, err)
			}
		}
		ps = append(ps, p...)
	}
	return ps, warns
}

// readPatternFile parses one file of gitignore patterns; a missing file has
// none.
func readPatternFile(path string, domain []string) ([]gitignore.Pattern, error) {
	b, err := readSmall(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return parsePatterns(b, domain), nil
}

// parsePatterns parses gitignore syntax: one pattern a line, "#" starts a
// comment line, blank lines are skipped.
func parsePatterns(b []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		s := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(s, domain))
	}
	return ps
}

// excluded reports whether a root-relative slash path matches one of the
// Options.Exclude globs (a directory also matches "dir/**" style globs
// through its own path).
func (ir *ignoreRules) excluded(rel string, isDir bool) bool {
	for _, g := range ir.exclude {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
		if isDir {
			if ok, _ := doublestar.Match(g, rel+"/"); ok {
				return true
			}
		}
	}
	return false
}

// maxIgnoreBytes caps an ignore, exclude or git config file: a cloned
// repository can make any of them a link to /dev/zero or a huge file.
const maxIgnoreBytes = 4 << 20

// readSmall reads a regular file of at most maxIgnoreBytes; anything else
// (a FIFO, a device, a link to one) is an error, never a blocked read.
func readSmall(path string) ([]byte, error) {
	return safefs.ReadFile(context.Background(), path, maxIgnoreBytes)
}
