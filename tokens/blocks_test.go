package tokens

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestBlockBoundary(t *testing.T) {
	tests := []struct {
		name string
		text string
		p    int
		want bool
	}{
		{"after a line", "a\nb", 2, true},
		{"indented line", "a\n\tb", 2, true},
		{"indented line after punctuation", "{\n\tb", 2, true},
		{"not after a newline", "ab", 1, false},
		{"start", "\nb", 0, false},
		{"end", "a\n", 2, false},
		{"blank line follows", "a\n\nb", 2, false},
		{"after a blank line", "a\n\nb", 3, true},
		{"CRLF", "a\r\nb", 3, true},
		{"inside CRLF", "a\r\n", 2, false},
		{"CR follows", "a\n\rb", 2, false},
		{"spaces then newline", "a\n  \nb", 2, false},
		{"spaces to the end", "a\n   ", 2, true},
		{"unicode spaces then newline", "a\n\u00a0\u2028\u3000\nb", 2, false},
		{"unicode spaces then text", "a\n\u00a0\u2028b", 2, true},
		{"NEL is no newline", "a\n\u0085b", 2, true},
		{"slash after punctuation", "}\n// c", 2, false},
		{"slash after a word", "x\n// c", 2, true},
		{"slash after a digit", "1\n/", 2, true},
		{"slash after a space", "x \n/", 3, true},
		{"slash after a tab", "x\t\n/", 3, true},
		{"slash after a blank line", "x\n\n// c", 3, false},
		{"slash after a slash", "x/\n/", 3, false},
		{"slash after CR", "x\r\n/", 3, false},
		{"slash after a letter outside ASCII", "é\n/", 3, false},
		{"slash at the second byte", "\n/", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := blockBoundary(tt.text, tt.p); got != tt.want {
				t.Errorf("blockBoundary(%q, %d) = %v, want %v", tt.text, tt.p, got, tt.want)
			}
			if tt.want {
				checkCut(t, tt.text, tt.p)
			}
		})
	}
}

// checkCut checks that both splitters split text as text[:p] and text[p:]
// apart.
func checkCut(t *testing.T, text string, p int) {
	t.Helper()
	for _, enc := range Encodings {
		whole := ownPieces(enc, text)
		parts := append(ownPieces(enc, text[:p]), ownPieces(enc, text[p:])...)
		if !slices.Equal(whole, parts) {
			t.Fatalf("%s: cut at %d of %q: pieces %q, apart %q", enc, p, text, whole, parts)
		}
	}
}

// checkBlocks checks, for both encodings, that the pieces of text are
// those of its blocks (every boundary cut) and that the blocks' counts
// add up to text's, at several minimum block lengths.
func checkBlocks(t *testing.T, text string) {
	t.Helper()
	text = validUTF8(text)
	for _, enc := range Encodings {
		be := mustBackend(t, backendBPE, enc)
		whole := ownPieces(enc, text)
		var parts []string
		splitBlocks(text, 0, func(b string) { parts = append(parts, ownPieces(enc, b)...) })
		if !slices.Equal(whole, parts) {
			i := 0
			for i < min(len(whole), len(parts)) && whole[i] == parts[i] {
				i++
			}
			t.Fatalf("%s: pieces of %q differ from its blocks' at piece %d: %q vs %q", enc, clip(text), i, whole[i:min(i+3, len(whole))], parts[i:min(i+3, len(parts))])
		}
		want := be.count(text)
		for _, minLen := range []int{0, 16, blockMinLen} {
			got, joined := 0, ""
			splitBlocks(text, minLen, func(b string) {
				if b == "" {
					t.Fatalf("empty block")
				}
				got += be.count(b)
				joined += b
			})
			if joined != text {
				t.Fatalf("%s: blocks of %q (min %d) join to %q", enc, clip(text), minLen, clip(joined))
			}
			if got != want {
				t.Fatalf("%s: blocks of %q (min %d) count %d, the whole %d", enc, clip(text), minLen, got, want)
			}
		}
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// fuzzAtoms are the fragments FuzzBlockCountAdditive builds texts of:
// what the boundary rule looks at (newlines, slashes, whitespace of each
// kind, punctuation, digits, contractions) and letters of several scripts.
var fuzzAtoms = []string{
	"\n", "\n", "\n", "\r\n", "\r", "/", "//", " ", "  ", "\t", "\v", "\f",
	"\u00a0", "\u0085", "\u2028", "\u2029", "\u3000", "x", "Foo", "bar", "é",
	"日本", "\u0301", "1", "123", "٣", "'s", "'LL", "'", "{", "}", ";", "...",
	"*/", "#", "\"", "-->", "ǅ", "👋", "\xff", "_", "=", "(", ")", "\n\t", "\n}\n",
}

// FuzzBlockCountAdditive checks the block rule on arbitrary text: every
// boundary cuts the pieces of both encodings cleanly, and blocks' counts
// add up to the whole's. With expand set, each input byte picks a
// fragment of fuzzAtoms, so short inputs reach the cases that matter.
func FuzzBlockCountAdditive(f *testing.F) {
	for _, s := range []string{
		"a\nb", "}\n// c\n", "x\n// c\n/", "a\n  \n\tb", "a\r\n\r\nb", "x\n\u00a0\u2028\nb",
		"package p\n\nfunc f() {\n\treturn 1\n}\n", ";\n/\n/x", "'s\n'S\n", "1\n/2", "x \n/",
	} {
		f.Add(s, false)
	}
	f.Add("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a", true)
	f.Add("\x11\x00\x06\x00\x13\x2a\x00\x14\x00\x05\x1f\x00", true)
	f.Fuzz(func(t *testing.T, s string, expand bool) {
		if expand {
			var b strings.Builder
			for i := 0; i < len(s); i++ {
				b.WriteString(fuzzAtoms[int(s[i])%len(fuzzAtoms)])
			}
			s = b.String()
		}
		if len(s) > 4096 {
			s = s[:4096]
		}
		s = validUTF8(s)
		// Each boundary alone, then all at once (checkBlocks); the first
		// check is quadratic, so it stops at 1 KB.
		head := validUTF8(s[:min(len(s), 1024)])
		for p := range len(head) {
			if blockBoundary(head, p) {
				checkCut(t, head, p)
			}
		}
		checkBlocks(t, s)
	})
}

// goTree returns a fifth of the .go files under GOROOT/src (every fifth
// in walk order), a fiftieth under the race detector (ten times slower)
// or with -short, every one with CTXD_TEST_FULL=1.
func goTree(t testing.TB) map[string]string {
	t.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	step := 5
	switch {
	case os.Getenv("CTXD_TEST_FULL") == "1":
		step = 1
	case testutil.RaceEnabled || testing.Short():
		step = 50
	}
	out := map[string]string{}
	i := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		if i++; i%step != 0 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatalf("read GOROOT: %v", err)
	}
	if len(out) == 0 {
		t.Fatal("no .go file under GOROOT/src")
	}
	return out
}

// viewsOf returns texts like the views ctxd counts for a Go file: bodies
// of some functions collapsed, some lines dropped, each framed as a
// prompt section.
func viewsOf(path, src string) []string {
	lines := strings.SplitAfter(src, "\n")
	var collapsed, kept, every strings.Builder
	inBody, fn := false, 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "func ") && strings.HasSuffix(l, "{\n"):
			fn++
			collapsed.WriteString(l)
			inBody = fn%3 != 0
			if inBody {
				collapsed.WriteString("\t// ...\n")
			}
			continue
		case inBody && l == "}\n":
			inBody = false
		}
		if !inBody {
			collapsed.WriteString(l)
		}
		if i%7 != 3 {
			kept.WriteString(l)
		}
		if i%2 == 0 {
			every.WriteString(l)
		}
	}
	frame := func(note, body string) string {
		return "## " + path + " (" + note + ")\n```go\n" + body + "```\n\n"
	}
	return []string{
		frame("focus", collapsed.String()),
		frame("lines", kept.String()),
		every.String(),
	}
}

// TestBlockCountGoroot counts every .go file of the Go tree and views of
// it by blocks, through a block cache shared by all (as the daemon's),
// and asserts the counts equal those of the whole texts.
func TestBlockCountGoroot(t *testing.T) {
	files := goTree(t)
	for _, enc := range Encodings {
		be := mustBackend(t, backendBPE, enc)
		bc := newBlockCache(1 << 16)
		n, texts := 0, 0
		for path, src := range files {
			for _, text := range append([]string{src}, viewsOf(path, src)...) {
				text = validUTF8(text)
				want := be.count(text)
				got := bc.countBlocks(text, blockMinLen, be.count)
				if got != want {
					t.Fatalf("%s: %s: by blocks %d tokens, whole %d", enc, path, got, want)
				}
				n += len(text)
				texts++
			}
		}
		t.Logf("%s: %d texts, %d MB, cache %d entries", enc, texts, n>>20, bc.len())
	}
}

// TestBlockCountGorootPieces checks a sample of the tree piece by piece:
// the pieces of each file are those of its blocks.
func TestBlockCountGorootPieces(t *testing.T) {
	files := goTree(t)
	i := 0
	for path, src := range files {
		if i++; i%10 != 0 {
			continue
		}
		t.Run(path, func(t *testing.T) { checkBlocks(t, src) })
	}
}

func TestBlockCache(t *testing.T) {
	c := newBlockCache(4)
	if got := c.bytes(); got != 4*24 {
		t.Errorf("bytes = %d, want %d", got, 4*24)
	}
	var keys []blockSlot
	for i := range 100 {
		k := c.key(fmt.Sprintf("block %d", i))
		keys = append(keys, k)
		c.put(k, i)
		if n, ok := c.get(k); !ok || n != i {
			t.Fatalf("get after put %d = %d, %v", i, n, ok)
		}
	}
	if n := c.len(); n > 4 {
		t.Errorf("len = %d, want at most 4", n)
	}
	hits := 0
	for i, k := range keys {
		if n, ok := c.get(k); ok {
			hits++
			if n != i {
				t.Errorf("block %d: count %d", i, n)
			}
		}
	}
	if hits == 0 || hits > 4 {
		t.Errorf("%d hits, want 1..4", hits)
	}
	// The same text in another length never hits.
	if _, ok := c.get(c.key("block 99 ")); ok {
		t.Error("hit for a text never put")
	}
}

// TestBlockCountConcurrent counts by blocks from several goroutines
// through one small cache (evicting all the time), for the race detector.
func TestBlockCountConcurrent(t *testing.T) {
	be := mustBackend(t, backendBPE, O200kBase)
	var texts []string
	for _, s := range goSample(t, false) {
		if utf8.ValidString(s) && len(s) < 64<<10 {
			texts = append(texts, s)
		}
		if len(texts) == 8 {
			break
		}
	}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = be.count(s)
	}
	c := newBlockCache(64)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 20 {
				i := r.IntN(len(texts))
				if got := c.countBlocks(texts[i], blockMinLen, be.count); got != want[i] {
					t.Errorf("text %d: %d, want %d", i, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}
