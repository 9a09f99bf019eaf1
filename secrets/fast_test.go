package secrets

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// bothPaths scans text by the full scan and by the fast path and fails
// when they differ.
func bothPaths(t testing.TB, s *Scanner, name, text string) {
	t.Helper()
	det, err := s.detector()
	if err != nil {
		t.Fatal(err)
	}
	full, fast := s.scan(det, text, false), s.scan(det, text, true)
	if !reflect.DeepEqual(full, fast) {
		t.Errorf("%s: fast path found\n%v\nthe full scan\n%v", name, fast, full)
	}
	// The raw findings too (match, line text), not only what ctxd keeps.
	key := func(rs []string) string { sort.Strings(rs); return strings.Join(rs, "\n") }
	var a, b []string
	for _, f := range det.DetectString(text) {
		a = append(a, fmt.Sprintf("%s %d %d %q %q %q", f.RuleID, f.StartLine, f.EndLine, f.Secret, f.Match, f.Line))
	}
	for _, f := range s.fastPath(det).find(text) {
		b = append(b, fmt.Sprintf("%s %d %d %q %q %q", f.RuleID, f.StartLine, f.EndLine, f.Secret, f.Match, f.Line))
	}
	if key(a) != key(b) {
		t.Errorf("%s: raw findings differ:\nfull\n%s\nfast\n%s", name, key(a), key(b))
	}
}

// TestFastPathMatchesFullScan: the fast path finds exactly what gitleaks'
// full scan finds, on the fixtures, on texts built to sit on its window
// edges, and on real source (this module, and GOROOT when present).
func TestFastPathMatchesFullScan(t *testing.T) {
	s := &Scanner{cache: map[[32]byte][]finding{}}
	det, err := s.detector()
	if err != nil {
		t.Fatal(err)
	}
	if s.fastPath(det) == nil {
		t.Fatal("the fast path is off: the generic rule is not the one analyzed (fast.go)")
	}
	filler := func(n int) string { return strings.Repeat("x := y + z // plain\n", n) }
	cases := map[string]string{
		"empty":                  "",
		"no keyword":             filler(30),
		"one line":               `api_key = "a8Kf93jLmQ02zXvB7tYp"`,
		"no final newline":       filler(3) + `token: "Zx81kLmq09PqrStUvWx"`,
		"crlf":                   "password = \"Q8w7e6r5t4y3u2i1o0pL\"\r\nfoo\r\n",
		"value lines below":      "secret_key =\n\n\n \"Hq82Lm0Pz7Xv3Nc9Rt5W\"\n" + filler(5),
		"value at the span edge": "auth:" + strings.Repeat("\n", 8) + "'Kz93Lm0Pq7Xv3Nc9Rt5Wb'\n" + filler(12) + "key = \"P0o9I8u7Y6t5R4e3W2q1\"\n",
		"keywords spaced 10":     strings.Repeat("access_token = \"Aa1Bb2Cc3Dd4Ee5Ff6Gg\"\n"+filler(9), 4),
		"keywords spaced 11":     strings.Repeat("credential = \"Zz9Yy8Xx7Ww6Vv5Uu4Tt\"\n"+filler(10), 4),
		"kelvin sign":            "\u212aEY = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n",
		"long s":                 filler(2) + "\u017fecret = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n" + filler(2),
		"keyword far away":       "// the api\n" + filler(40) + "value = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n",
		"specific and generic":   "github_token = \"ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX\"\n",
		"allowlisted":            "public_key = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\napi_version: 2024-01-01-preview-x\n",
		"gitleaks allow":         "api_key = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\" // gitleaks:allow\n",
		"private key":            "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAx4Tq9Z+abcdefghijklmnopqrstuvwxyz0123456789\n", 8) + "-----END RSA PRIVATE KEY-----\n",
		"url password":           "db = \"postgres://admin:S3cr3tPassw0rd@db.internal:5432/app\"\n",
	}
	for name, text := range cases {
		bothPaths(t, s, name, text)
	}
	var files []string
	add := func(root string, limit int) {
		n := 0
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || n >= limit {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Type().IsRegular() {
				files = append(files, p)
				n++
			}
			return nil
		})
	}
	add("testdata", 100)
	add(filepath.Join("..", "gather"), 120)
	if testing.Short() {
		files = files[:min(len(files), 60)]
	} else if src := filepath.Join(runtime.GOROOT(), "src", "net", "http"); dirExists(src) {
		add(src, 80)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil || len(b) > 1<<20 {
			continue
		}
		bothPaths(t, s, p, string(b))
	}
	t.Logf("%d cases, %d files", len(cases), len(files))
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// FuzzFastPath: on any text, the fast path finds what the full scan finds.
func FuzzFastPath(f *testing.F) {
	for _, s := range []string{
		"api_key = \"a8Kf93jLmQ02zXvB7tYp\"\n",
		"secret_key =\n\n\n \"Hq82Lm0Pz7Xv3Nc9Rt5W\"\n",
		"\u212aEY = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n",
		"token:\n\n\n\n\n\n\n\n'Kz93Lm0Pq7Xv3Nc9Rt5Wb'",
	} {
		f.Add(s)
	}
	s := &Scanner{cache: map[[32]byte][]finding{}}
	f.Fuzz(func(t *testing.T, text string) {
		bothPaths(t, s, "fuzz", text)
	})
}
