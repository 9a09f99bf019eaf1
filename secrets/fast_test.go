package secrets

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/internal/testutil"
)

// bothPaths scans text with gitleaks' own detector, ctxd's full scan and
// ctxd's fast path, and fails when they differ.
func bothPaths(t testing.TB, s *Scanner, name, text string) {
	t.Helper()
	det, err := s.detector()
	if err != nil {
		t.Fatal(err)
	}
	rawGitleaks, rawFull, rawFast := gitleaksFind(t, text), det.detect(text), s.fastPath(det).find(text)
	full, fast := collect(rawFull, text), collect(rawFast, text)
	if !reflect.DeepEqual(full, fast) {
		t.Errorf("%s: fast path found\n%v\nthe full scan\n%v", name, fast, full)
	}
	// The raw findings too (match, line text), not only what ctxd keeps.
	key := func(fs []rawFinding) string {
		var rs []string
		for _, f := range fs {
			rs = append(rs, fmt.Sprintf("%s %d %d %d %q %q %q", f.RuleID, f.StartLine, f.EndLine, f.StartColumn, f.Secret, f.Match, f.Line))
		}
		sort.Strings(rs)
		return strings.Join(rs, "\n")
	}
	if a, b := key(rawGitleaks), key(rawFull); a != b {
		t.Errorf("%s: ctxd's detector and gitleaks' differ:\ngitleaks\n%s\nctxd\n%s", name, a, b)
	}
	if a, b := key(rawFull), key(rawFast); a != b {
		t.Errorf("%s: raw findings differ:\nfull\n%s\nfast\n%s", name, a, b)
	}
	if u, w := urlPasswords(text, map[finding]bool{}), urlPasswordsWhole(text); !reflect.DeepEqual(u, w) {
		t.Errorf("%s: url passwords line by line\n%v\nover the whole text\n%v", name, u, w)
	}
}

// urlPasswordsWhole is urlPasswords by one scan of the whole text.
func urlPasswordsWhole(text string) []finding {
	var fs []finding
	seen := map[finding]bool{}
	for _, m := range urlPassword.FindAllStringSubmatchIndex(text, -1) {
		pw := text[m[2]:m[3]]
		if strings.HasPrefix(pw, "$") || strings.HasPrefix(pw, "{") || strings.HasPrefix(pw, "%") || placeholderPassword(pw) {
			continue
		}
		f := finding{secret: pw, rule: URLPasswordRule, line: strings.Count(text[:m[2]], "\n") + 1}
		if !seen[f] {
			seen[f] = true
			fs = append(fs, f)
		}
	}
	return fs
}

// fastScanner returns a scanner, its detector and its fast path, and
// fails when the fast path is off.
func fastScanner(t testing.TB) (*Scanner, *detector, *fastPath) {
	t.Helper()
	s := &Scanner{cache: map[[32]byte][]finding{}}
	det, err := s.detector()
	if err != nil {
		t.Fatal(err)
	}
	fp := s.fastPath(det)
	if fp == nil {
		t.Fatal("the fast path is off: the generic rule is not the one analyzed (fast.go)")
	}
	return s, det, fp
}

// TestFastPathMatchesFullScan: the fast path finds exactly what gitleaks'
// full scan finds, on the fixtures, on texts built to sit on its window
// edges, and on real source (this module, and GOROOT when present).
func TestFastPathMatchesFullScan(t *testing.T) {
	s, _, _ := fastScanner(t)
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
		"dotted capital I":       "AP\u0130_KEY = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n",
		"non-ASCII, plain runes": "// café, 日本\napi_key = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n",
		"long s":                 filler(2) + "\u017fecret = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n" + filler(2),
		"keyword far away":       "// the api\n" + filler(40) + "value = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n",
		"specific and generic":   "github_token = \"ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX\"\n",
		"allowlisted":            "public_key = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\napi_version: 2024-01-01-preview-x\n",
		"gitleaks allow":         "api_key = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\" // gitleaks:allow\n",
		"private key":            "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAx4Tq9Z+abcdefghijklmnopqrstuvwxyz0123456789\n", 8) + "-----END RSA PRIVATE KEY-----\n",
		"vault token":            filler(2) + "s.x = s.y\nt := \"s.Ab12Cd34Ef56Gh78Ij90Kl12\"\n" + filler(2),
		"vault token at the end": "s.Ab12Cd34Ef56Gh78Ij90Kl12",
		"url password":           "db = \"postgres://admin:S3cr3tPassw0rd@db.internal:5432/app\"\n",
		"url passwords":          "postgres://admin:S3cr3tPassw0rd@db:5432/a\n" + filler(2) + "x https://u:pa55word1@h/ y redis://v:Zq8Lm0Pq7Xv@r\n\nmysql://w:Hq82Lm0Pz7@m",
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
	if testing.Short() || testutil.RaceEnabled {
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

// sample writes a random text matching re (empty-width assertions are
// not enforced, so some samples do not match; the comparison holds for
// them too).
func sample(b *strings.Builder, re *syntax.Regexp, rnd *rand.Rand) {
	reps := func(lo, hi int) int {
		if hi < 0 || hi > lo+4 {
			hi = lo + 4
		}
		return lo + rnd.IntN(hi-lo+1)
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rnd.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		// Mostly ASCII: pick a range, then a rune in it.
		for range 8 {
			i := 2 * rnd.IntN(len(re.Rune)/2)
			lo, hi := re.Rune[i], min(re.Rune[i+1], max(re.Rune[i], 0x7e))
			if r := lo + rune(rnd.IntN(int(hi-lo)+1)); r != 0 && utf8.ValidRune(r) {
				b.WriteRune(r)
				return
			}
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte("ab1 ="[rnd.IntN(5)])
	case syntax.OpCapture:
		sample(b, re.Sub[0], rnd)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		for range reps(lo, hi) {
			sample(b, re.Sub[0], rnd)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sample(b, s, rnd)
		}
	case syntax.OpAlternate:
		sample(b, re.Sub[rnd.IntN(len(re.Sub))], rnd)
	}
}

// ruleSamples returns n texts generated from the expression by sample.
func ruleSamples(t testing.TB, expr string, n int, rnd *rand.Rand) []string {
	t.Helper()
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	re = re.Simplify()
	out := make([]string, n)
	for k := range out {
		var sb strings.Builder
		sample(&sb, re, rnd)
		out[k] = sb.String()
	}
	return out
}

// TestFastPathEveryRule: for every rule the fast path windows, texts that
// hold a match of it (generated from its expression) in the middle, at
// the start, at the end without a final newline, beside another rule's
// match and near keyword lines give the full scan's findings.
func TestFastPathEveryRule(t *testing.T) {
	s, det, fp := fastScanner(t)
	// The costliest rules on source trees must be windowed.
	for _, id := range []string{"generic-api-key", "vault-service-token", "jwt", "linear-client-secret", "lob-api-key"} {
		if !slices.ContainsFunc(fp.rules, func(w windowed) bool { return w.id == id }) {
			t.Errorf("rule %s is not windowed", id)
		}
	}
	// Each string of these rules has a tail: a line merely holding the
	// string (s. in every Go method call) is not a window.
	for _, id := range []string{"generic-api-key", "vault-service-token"} {
		i := slices.IndexFunc(fp.rules, func(w windowed) bool { return w.id == id })
		for k, srs := range fp.strRules {
			for _, sr := range srs {
				if sr.rule == i && sr.tail == nil {
					t.Errorf("rule %s: string %d has no tail", id, k)
				}
			}
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	filler := "x := y + z // plain\nfunc f() {}\n"
	found := map[string]bool{}
	samples := 3
	if testing.Short() || testutil.RaceEnabled {
		samples = 1 // the race detector makes gitleaks' full scan ~15x slower
	}
	for _, w := range fp.rules {
		for k, m := range ruleSamples(t, det.byID[w.id].re.String(), samples, rnd) {
			texts := []string{
				strings.Repeat(filler, 20) + "v = " + m + "\n" + strings.Repeat(filler, 20),
				m + "\n" + filler,
				filler + m,
				strings.Repeat(filler, 3) + "api_key = \"Mn7Bv6Cx5Zl4Kj3Hg2Fd\"\n" + m + "\r\n" + filler,
				m + "\n\n" + m + strings.Repeat("\n", k+1) + m + "\n",
			}
			for i, text := range texts {
				bothPaths(t, s, fmt.Sprintf("%s sample %d text %d", w.id, k, i), text)
				for _, f := range det.detect(text) {
					found[f.RuleID] = true
				}
			}
		}
	}
	// The samples must exercise the rules, or the comparison says little.
	if n := len(found); n < len(fp.rules)/2 {
		t.Errorf("only %d of %d windowed rules found their samples", n, len(fp.rules))
	}
	t.Logf("%d windowed rules, %d found in their samples", len(fp.rules), len(found))
}

// BenchmarkNewFastPath: reading every rule's expression, once per
// process (on the first text to scan).
func BenchmarkNewFastPath(b *testing.B) {
	s := &Scanner{cache: map[[32]byte][]finding{}}
	det, err := s.detector()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if newFastPath(det) == nil {
			b.Fatal("no fast path")
		}
	}
}

// TestLowersToASCII: the runes strings.ToLower maps into ASCII are the
// ones the fast path checks for (every rune, not only the case table's).
func TestLowersToASCII(t *testing.T) {
	var want []string
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if l := strings.ToLower(string(r)); strings.ContainsFunc(l, func(c rune) bool { return c < utf8.RuneSelf }) {
			want = append(want, string(r))
		}
	}
	if !slices.Equal(lowersToASCII, want) || len(want) == 0 {
		t.Errorf("lowersToASCII = %q, want %q", lowersToASCII, want)
	}
}
