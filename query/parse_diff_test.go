package query_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxd/ctxd/query"
)

// The differential test: query.Parse answers every request as the
// implementation before it was made one pass over long requests
// (refParse, parseref_test.go) did, field for field, nil and empty
// slices told apart.

// handWritten returns the requests of testdata/parse: stack traces of
// Go, Python, JavaScript, Java, Kotlin, Rust and Ruby, a CI log, pasted
// Go and Python code, prose requests and commit messages.
func handWritten(t testing.TB) map[string]string {
	files, err := filepath.Glob(filepath.Join("testdata", "parse", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no requests in testdata/parse: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// mixed returns the hand-written requests one after another, again and
// again, cut at n bytes: a long request of every kind.
func mixed(t testing.TB, n int) string {
	reqs := handWritten(t)
	var names []string
	for name := range reqs {
		names = append(names, name)
	}
	// Sorted, so every run reads the same text.
	slices.Sort(names)
	var b strings.Builder
	for b.Len() < n {
		for _, name := range names {
			b.WriteString(reqs[name])
			b.WriteString("\n")
		}
	}
	return b.String()[:n]
}

// commitMessages returns the messages of a git repository's commits
// (nil when git or the repository is missing).
func commitMessages(t testing.TB, dir string) []string {
	out, err := exec.Command("git", "-C", dir, "log", "--format=%B%x00").Output()
	if err != nil {
		t.Logf("no commit messages from %s: %v", dir, err)
		return nil
	}
	var msgs []string
	for _, m := range bytes.Split(out, []byte{0}) {
		if m := strings.TrimSpace(string(m)); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// corpus is what the differential test compares on: each hand-written
// request whole, by paragraph and by line; their mix at 1, 16, 64 and
// 256 KB and at cuts that split a UTF-8 sequence; every commit message
// of this repository and of the repositories CTXD_PARSE_CORPUS names
// (a comma-separated list of directories: the eval's development
// repositories), each alone and their subject lines together.
func corpus(t testing.TB) map[string]string {
	c := map[string]string{}
	for name, r := range handWritten(t) {
		c[name] = r
		for i, p := range strings.Split(r, "\n\n") {
			c[name+"/para"+strconv.Itoa(i)] = p
		}
		for i, l := range strings.Split(r, "\n") {
			c[name+"/line"+strconv.Itoa(i)] = l
		}
	}
	for _, n := range []int{1 << 10, 16 << 10, 64 << 10, 256 << 10} {
		c["mixed"+strconv.Itoa(n)] = mixed(t, n)
	}
	m := mixed(t, 8<<10)
	for _, cut := range []int{1, 2, 3, 100, 1001, 4097} {
		c["mixed-from"+strconv.Itoa(cut)] = m[cut:]
	}
	dirs := []string{".."}
	if env := os.Getenv("CTXD_PARSE_CORPUS"); env != "" {
		dirs = append(dirs, strings.Split(env, ",")...)
	}
	for _, dir := range dirs {
		msgs := commitMessages(t, dir)
		var subjects strings.Builder
		for i, msg := range msgs {
			c[dir+"@"+strconv.Itoa(i)] = msg
			subject, _, _ := strings.Cut(msg, "\n")
			subjects.WriteString(subject + "\n")
		}
		if s := subjects.String(); s != "" {
			c[dir+"@subjects"] = s[:min(len(s), 256<<10)]
		}
	}
	return c
}

// sameAsBefore fails t when query.Parse reads s otherwise than refParse.
func sameAsBefore(t *testing.T, name, s string) bool {
	t.Helper()
	// HowTo came after the reference (TestHowTo checks it): every other
	// field is the reference's.
	if d := cmp.Diff(refParse(s), query.Parse(s), cmpopts.IgnoreFields(query.Query{}, "HowTo")); d != "" {
		t.Errorf("%s: Parse(%.200q) differs from before (-before +now):\n%s", name, s, d)
		return false
	}
	return true
}

// TestParseSameAsBefore: on every request of the corpus, Parse answers
// as before.
func TestParseSameAsBefore(t *testing.T) {
	c := corpus(t)
	if len(c) < 200 {
		t.Fatalf("corpus of %d requests", len(c))
	}
	failed := 0
	for name, s := range c {
		if !sameAsBefore(t, name, s) {
			if failed++; failed == 10 {
				t.Fatal("10 requests differ")
			}
		}
	}
	t.Logf("%d requests compared", len(c))
}

// go test -fuzz=FuzzParseSameAsBefore ./query
func FuzzParseSameAsBefore(f *testing.F) {
	for _, r := range handWritten(f) {
		f.Add(r)
		for _, l := range strings.Split(r, "\n") {
			f.Add(l)
		}
	}
	for _, s := range []string{"", "\xff\xfe`(", "a::b#c.d", ". , ; ? !", "x.go:1\n\tat y.js:2:3 [as z\n]", " \nand then\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sameAsBefore(t, "fuzz", s)
	})
}
