package lang

import (
	"path"
	"sort"
	"strings"
)

// JSExts are the extensions JS/TS tests and sources come in.
var JSExts = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// IsTest reports whether a slash path is a test file or test fixture by
// its language's conventions: Go x_test.go; Python test_x.py, x_test.py,
// conftest.py or anything under tests/ or test/; JS/TS x.test.ts,
// x.spec.js and __tests__/; Java and Kotlin XTest, XTests, XIT and
// src/test/; Rust tests/; Ruby x_spec.rb, x_test.rb, spec/ and test/; C#
// XTests.cs; C and C++ test_x.c, x_test.cc, x_unittest.cc; and files under
// testdata/ or fixtures/.
func IsTest(p string) bool {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for seg := range strings.SplitSeq(path.Dir(lower), "/") {
		switch seg {
		case "test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures", "__fixtures__":
			return true
		}
	}
	if strings.Contains(lower, "src/test/") || strings.HasPrefix(lower, "test/") {
		return true
	}
	switch ext {
	case ".go":
		return strings.HasSuffix(stem, "_test")
	case ".py":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest"
	case ".rb":
		return strings.HasSuffix(stem, "_spec") || strings.HasSuffix(stem, "_test") || strings.HasPrefix(stem, "test_")
	case ".java", ".kt", ".scala", ".cs":
		orig := strings.TrimSuffix(path.Base(p), path.Ext(p))
		return strings.HasSuffix(orig, "Test") || strings.HasSuffix(orig, "Tests") || strings.HasSuffix(orig, "IT") || strings.HasSuffix(orig, "Spec")
	case ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".rs":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, "_unittest") || strings.HasSuffix(stem, "_tests")
	}
	for _, e := range JSExts {
		if ext == e {
			return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.HasSuffix(stem, "_test")
		}
	}
	return false
}

// testNames returns the base names a test of the file named base may have.
func testNames(base string) []string {
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch strings.ToLower(ext) {
	case ".go":
		return []string{stem + "_test.go"}
	case ".py":
		return []string{"test_" + base, stem + "_test.py"}
	case ".rb":
		return []string{stem + "_spec.rb", stem + "_test.rb", "test_" + base}
	case ".java", ".kt", ".scala", ".cs":
		return []string{stem + "Test" + ext, stem + "Tests" + ext, stem + "IT" + ext, stem + "Spec" + ext}
	case ".rs":
		return []string{base, "test_" + base, stem + "_test.rs", stem + "_tests.rs"}
	case ".c", ".cc", ".cpp", ".cxx":
		var out []string
		for _, e := range []string{".c", ".cc", ".cpp", ".cxx"} {
			out = append(out, "test_"+stem+e, stem+"_test"+e, stem+"_unittest"+e)
		}
		return out
	}
	for _, e := range JSExts {
		if strings.EqualFold(ext, e) {
			var out []string
			for _, e2 := range JSExts {
				out = append(out, stem+".test"+e2, stem+".spec"+e2, stem+e2) // stem+e2 only under __tests__ (checked by caller)
			}
			return out
		}
	}
	return nil
}

// SourceNames returns the base names of the file a test named base tests.
func SourceNames(base string) []string {
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	var stems []string
	switch strings.ToLower(ext) {
	case ".go":
		stems = []string{strings.TrimSuffix(stem, "_test")}
	case ".py", ".rb", ".rs", ".c", ".cc", ".cpp", ".cxx":
		s := strings.TrimPrefix(stem, "test_")
		for _, suf := range []string{"_test", "_spec", "_unittest", "_tests"} {
			s = strings.TrimSuffix(s, suf)
		}
		stems = []string{s}
	case ".java", ".kt", ".scala", ".cs":
		for _, suf := range []string{"Tests", "Test", "IT", "Spec"} {
			if s, ok := strings.CutSuffix(stem, suf); ok {
				stems = append(stems, s)
				break
			}
		}
	default:
		for _, e := range JSExts {
			if strings.EqualFold(ext, e) {
				s := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(stem, ".test"), ".spec"), "_test")
				var out []string
				for _, e2 := range JSExts {
					out = append(out, s+e2)
				}
				return out
			}
		}
		return nil
	}
	var out []string
	for _, s := range stems {
		if s != "" {
			out = append(out, s+ext)
		}
	}
	return out
}

// TestPairs returns the counterparts of the file p among the files of
// byBase (root-relative slash paths by base name): for a source file, its
// tests; for a test file, the sources it tests. Pairs follow each
// language's conventions (see [IsTest]); candidates in the same directory
// come first, then those whose directories share the longest tail with
// p's (src/main/java/a/X.java pairs with src/test/java/a/XTest.java), then
// by path.
func TestPairs(p string, byBase map[string][]string) []string {
	base := path.Base(p)
	isTest := IsTest(p)
	var names []string
	if isTest {
		names = SourceNames(base)
	} else {
		names = testNames(base)
	}
	var out []string
	seen := map[string]bool{p: true}
	for _, n := range names {
		for _, f := range byBase[n] {
			if seen[f] {
				continue
			}
			ft := IsTest(f)
			if ft == isTest {
				continue // a test pairs with a source and back
			}
			if !isTest && n == base && !underTestDir(f) {
				continue // same name counts only in a tests/ or __tests__/ dir
			}
			if strings.EqualFold(path.Ext(base), ".go") && path.Dir(f) != path.Dir(p) {
				// A Go test is in its package's directory: the iter.go of
				// every other package is no source of strings/iter_test.go.
				continue
			}
			seen[f] = true
			out = append(out, f)
		}
	}
	dir := path.Dir(p)
	sort.SliceStable(out, func(i, j int) bool {
		si, sj := pairAffinity(dir, path.Dir(out[i])), pairAffinity(dir, path.Dir(out[j]))
		if si != sj {
			return si > sj
		}
		return out[i] < out[j]
	})
	return out
}

// underTestDir reports a path inside a directory that holds only tests.
func underTestDir(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		switch seg {
		case "test", "tests", "__tests__", "spec":
			return true
		}
	}
	return false
}

// pairAffinity scores how close two directories are for pairing: the same
// directory is best; otherwise the number of trailing segments they share
// once test/src markers are set aside, then shared leading segments.
func pairAffinity(a, b string) int {
	if a == b {
		return 1000
	}
	norm := func(d string) []string {
		var out []string
		for _, s := range strings.Split(d, "/") {
			switch s {
			case "src", "main", "test", "tests", "__tests__", "spec", "lib", ".":
				continue
			}
			out = append(out, s)
		}
		return out
	}
	as, bs := norm(a), norm(b)
	tail := 0
	for i, j := len(as)-1, len(bs)-1; i >= 0 && j >= 0 && as[i] == bs[j]; i, j = i-1, j-1 {
		tail++
	}
	head := 0
	for head < len(as) && head < len(bs) && as[head] == bs[head] {
		head++
	}
	if tail == len(as) && tail == len(bs) {
		return 500 // mirrored trees: src/a ~ test/a
	}
	return tail*10 + head
}
