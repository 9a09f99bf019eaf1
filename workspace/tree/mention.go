package tree

import (
	"context"
	"encoding/json"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctxd/ctxd/safefs"
)

// maxMentionMatches bounds how many files one bare name may pick up
// ("config.go" in a repository with many of them).
const maxMentionMatches = 5

// mentions returns the snapshot files a request names by path (its
// query.Query.Paths: full root-relative, absolute under the root, or a
// trailing part on a segment boundary) or by base name. Secret files are
// never returned: a mention is not consent.
func (s *Snapshot) Mentions(root string, paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, tok := range paths {
		if strings.HasPrefix(tok, "/") {
			if r, ok := strings.CutPrefix(tok, strings.ReplaceAll(root, "\\", "/")+"/"); ok {
				tok = r
			}
		}
		for _, f := range s.lookupPath(tok) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// lookupPath finds files named by a path written somewhere (a request or a
// stack trace): an exact root-relative path, else the files whose path ends
// with it on a segment boundary (the longest tail wins), else, for a bare
// name, files with that base name. A path of several segments falls back
// to its base name alone only when one file has that name (a trace's
// /usr/lib/go/src/net/http/server.go is not the workspace's one
// server.go... unless it is the only candidate). Secret files are left out.
func (s *Snapshot) lookupPath(p string) []string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "" || p == "." {
		return nil
	}
	if f := s.ByRel[p]; f != nil {
		if f.Secret {
			return nil
		}
		return []string{p}
	}
	segs := strings.Split(p, "/")
	// Try ever shorter tails: /home/ci/build/proj/pkg/x.go → pkg/x.go.
	for i := range segs {
		tail := strings.Join(segs[i:], "/")
		cands := s.ByBase[segs[len(segs)-1]]
		var out []string
		for _, c := range cands {
			if c == tail || strings.HasSuffix(c, "/"+tail) {
				out = append(out, c)
			}
		}
		if i == len(segs)-1 && len(segs) > 1 && len(out) > 1 {
			return nil // a base name shared by several files: ambiguous
		}
		if i == len(segs)-1 && len(segs) > 1 && len(out) == 1 && !baseMatchPlausible(segs[:i], out[0]) {
			// /app/routes/users.js is not examples/content-negotiation/users.js.
			return nil
		}
		if len(out) > 0 {
			sort.Strings(out)
			if len(out) > maxMentionMatches {
				out = out[:maxMentionMatches]
			}
			return out
		}
		if i == len(segs)-1 {
			break
		}
	}
	return nil
}

// baseMatchPlausible reports whether file, the one workspace file with a
// frame's base name, may be that frame when no directory of the frame
// matched its path: file is at the root or under source directories only
// (a build's /app/dist/users.js is src/users.js), or one of its
// directories is among the frame's.
func baseMatchPlausible(frameDirs []string, file string) bool {
	dirs := strings.Split(path.Dir(file), "/")
	if dirs[0] == "." {
		return true
	}
	generic := true
	for _, d := range dirs {
		switch d {
		case "src", "lib", "source", "sources", "app", "main":
		default:
			generic = false
		}
		if slices.Contains(frameDirs, d) {
			return true
		}
	}
	return generic
}

// libraryMarkers are path parts of code outside any workspace: language
// runtimes and installed dependencies. Stack-trace frames there are not
// mapped to workspace files by name.
var libraryMarkers = []string{
	"/go/src/", "/go/pkg/mod/", "/goroot/", "site-packages/", "dist-packages/", "/lib/python",
	"node_modules/", "node:internal", "<frozen ", "/rustc/", ".cargo/registry/", ".rustup/",
	"/gems/", "/jdk/", "java.base/",
}

// traceFiles maps a stack-trace path to workspace files: a path under the
// root directly; frames in runtimes and installed libraries not at all;
// anything else as lookupPath does.
func (s *Snapshot) TraceFiles(root, p string) []string {
	slash := strings.ReplaceAll(p, "\\", "/")
	if filepath.IsAbs(p) {
		if r, ok := within(root, filepath.Clean(p)); ok {
			return s.lookupPath(filepath.ToSlash(r))
		}
	}
	for _, m := range libraryMarkers {
		if strings.Contains(slash, m) {
			if m == "/go/pkg/mod/" {
				return s.moduleCopy(slash)
			}
			return s.installedCopy(root, slash)
		}
	}
	return s.lookupPath(slash)
}

// installedMarkers are where package managers install a package; a frame
// there may be an installed copy of the workspace itself.
var installedMarkers = []string{"site-packages/", "dist-packages/", "node_modules/"}

// installedCopy maps a frame in an installed package to the workspace
// file it was installed from, when the package is the workspace itself:
// ".../site-packages/requests/models.py" is "src/requests/models.py" or
// "requests/models.py" in a checkout of requests. The package directory
// must exist in the workspace at the root, under src/ or lib/, and the
// file must be there: a frame in any other library maps to nothing.
func (s *Snapshot) installedCopy(root, slash string) []string {
	for _, m := range installedMarkers {
		i := strings.LastIndex(slash, m)
		if i < 0 {
			continue
		}
		rest := slash[i+len(m):]
		scope := ""
		if strings.HasPrefix(rest, "@") { // a scoped npm package: @scope/name/...
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				scope, rest = rest[:j+1], rest[j+1:]
			}
		}
		pkg, file, ok := strings.Cut(rest, "/")
		if !ok || pkg == "" {
			return nil
		}
		for _, prefix := range []string{"", "src/", "lib/"} {
			if s.ByRel[prefix+pkg+"/"+file] != nil && !s.ByRel[prefix+pkg+"/"+file].Secret {
				return []string{prefix + pkg + "/" + file}
			}
		}
		// An npm package whose root is the workspace's:
		// node_modules/express/lib/response.js in a checkout of express.
		if m == "node_modules/" && s.ByRel[file] != nil && !s.ByRel[file].Secret && s.npmName(root) == scope+pkg {
			return []string{file}
		}
		return nil
	}
	return nil
}

// npmName returns the name in root's package.json ("" when there is
// none), read once per snapshot (an edit of package.json makes a new one).
func (s *Snapshot) npmName(root string) string {
	s.derivedMu.Lock()
	defer s.derivedMu.Unlock()
	if s.npmRead {
		return s.npm
	}
	s.npmRead = true
	if s.ByRel["package.json"] == nil {
		return ""
	}
	b, err := safefs.ReadFile(context.Background(), filepath.Join(root, "package.json"), 1<<20)
	if err != nil {
		return ""
	}
	var pj struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &pj) == nil {
		s.npm = pj.Name
	}
	return s.npm
}

// moduleCopy maps a frame in Go's module cache to the workspace file it
// is a copy of, when the module is the workspace's own (its root go.mod
// names it): ".../go/pkg/mod/github.com/gin-gonic/gin@v1.10.0/tree.go" is
// "tree.go" in a checkout of gin. A frame in any other module maps to
// nothing.
func (s *Snapshot) moduleCopy(slash string) []string {
	mod := s.ByRel["go.mod"]
	if mod == nil || mod.goModule() == "" {
		return nil
	}
	i := strings.LastIndex(slash, "/go/pkg/mod/")
	segs := strings.Split(slash[i+len("/go/pkg/mod/"):], "/")
	for k := 1; k < len(segs); k++ {
		path := strings.Join(segs[:k], "/")
		if at := strings.LastIndexByte(path, '@'); at > strings.LastIndexByte(path, '/') {
			path = path[:at] // the version of the module directory
		}
		if path != mod.goModule() {
			continue
		}
		rel := strings.Join(segs[k:], "/")
		if f := s.ByRel[rel]; f != nil && !f.Secret {
			return []string{rel}
		}
		return nil
	}
	return nil
}
