package ctxd

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityDocNamesExist: every test, fuzz target, benchmark and
// script docs/security.md's tables name (door × threat × test, the fuzz
// targets) exists in the repository, so the table cannot point at a
// test that was renamed or never written.
func TestSecurityDocNamesExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(src, -1) {
			declared[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z]\\w*|scripts/[\\w./-]+)`")
	seen := 0
	for ln, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(line, -1) {
			seen++
			switch n := m[1]; {
			case strings.HasPrefix(n, "scripts/"):
				if _, err := os.Stat(n); err != nil {
					t.Errorf("docs/security.md line %d names %s: %v", ln+1, n, err)
				}
			case !declared[n]:
				t.Errorf("docs/security.md line %d names %s, which no _test.go file declares", ln+1, n)
			}
		}
	}
	if seen < 40 {
		t.Errorf("found %d names in docs/security.md's tables; the tables moved or the pattern no longer matches them", seen)
	}
}
