package gather

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// pathTokenRe finds words of a request that may name a file: runs of path
// characters with a slash or a dot-extension.
var pathTokenRe = regexp.MustCompile(`[\w@~.+\-/\\]*[\w/\\]\.[A-Za-z][\w]{0,9}\b|[\w.\-]+(?:/[\w.\-]+)+`)

// maxMentionMatches bounds how many files one bare name may pick up
// ("config.go" in a repository with many of them).
const maxMentionMatches = 5

// mentions returns the snapshot files a request names by path (full
// root-relative, absolute under the root, or a trailing part on a segment
// boundary) or by base name. Secret files are never returned: a mention is
// not consent.
func (s *snapshot) mentions(root, text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, tok := range pathTokenRe.FindAllString(text, -1) {
		tok = strings.Trim(strings.ReplaceAll(tok, "\\", "/"), ".,;:'\"`()[]{}<>")
		tok = strings.TrimPrefix(tok, "./")
		if tok == "" || strings.Contains(tok, "://") {
			continue
		}
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
// name, files with that base name. Secret files are left out.
func (s *snapshot) lookupPath(p string) []string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "" || p == "." {
		return nil
	}
	if f := s.byRel[p]; f != nil {
		if f.secret {
			return nil
		}
		return []string{p}
	}
	segs := strings.Split(p, "/")
	// Try ever shorter tails: /home/ci/build/proj/pkg/x.go → pkg/x.go.
	for i := range segs {
		tail := strings.Join(segs[i:], "/")
		cands := s.byBase[segs[len(segs)-1]]
		var out []string
		for _, c := range cands {
			if c == tail || strings.HasSuffix(c, "/"+tail) {
				out = append(out, c)
			}
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
