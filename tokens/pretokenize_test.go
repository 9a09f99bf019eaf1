package tokens

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// The split patterns of tiktoken's cl100k_base and o200k_base, the
// reference for pretokenize.go. Each is wrapped in a non-capturing group,
// which changes nothing in what it matches but keeps regexp2 from using
// the generated matcher tiktoken-go/tokenizer registers for the bare
// pattern (the one that ends " \n  \n" at its first newline).
const (
	cl100kPattern = `(?:(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)`
	o200kPattern  = `(?:[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)`
)

var referencePatterns = map[string]*regexp2.Regexp{
	Cl100kBase: regexp2.MustCompile(cl100kPattern, regexp2.None),
	O200kBase:  regexp2.MustCompile(o200kPattern, regexp2.None),
}

var splitters = map[string]func(string, func(string)){
	Cl100kBase: splitCl100k,
	O200kBase:  splitO200k,
}

// referencePieces splits text with regexp2 running the pattern itself.
func referencePieces(enc, text string) []string {
	var out []string
	m, err := referencePatterns[enc].FindStringMatch(text)
	for err == nil && m != nil {
		out = append(out, m.String())
		m, err = referencePatterns[enc].FindNextMatch(m)
	}
	return out
}

func ownPieces(enc, text string) []string {
	var out []string
	splitters[enc](text, func(p string) { out = append(out, p) })
	return out
}

func TestPretokenize(t *testing.T) {
	tests := []string{
		"hello world", "Hello, World!", "it's 'S 'Re 'LL 'dx 'ſ", "don't STOP'S",
		" \n  \n", "\n \n", "x \n \ny", "a  b   c\t\td", "   ", "  x", "\r\n\r\n  \r\n",
		"1234567 x12 ١٢٣٤", "//comment\n/// more\n", ".\n/x", "HELLOworld HelloWORLD hELLO",
		"ǅungla ǈ ʰa ʰ", "e\u0301 \u0301a \u0301\u0301", "日本語のテキスト、です。", "한국어 텍스트", "👋🌍 emoji!!",
		"\u00a0nbsp\u3000ideo\u2028line", "tab\tsep\u0085nel", "'", "''s", "a'", "\u0301", "x\u0301'S",
		"MixedCASE_snake_case camelCase", "<|endoftext|>", "x=1;y=2", "  \n", "end  ",
	}
	for _, enc := range Encodings {
		for _, text := range tests {
			want, got := referencePieces(enc, text), ownPieces(enc, text)
			if !slices.Equal(want, got) {
				t.Errorf("%s %q:\n regexp2 %q\n ours    %q", enc, text, want, got)
			}
		}
	}
}

// TestPretokenizeClasses checks the class table against regexp2's own
// classes for every rune of the BMP and a sample above it.
func TestPretokenizeClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs regexp2 on every BMP rune")
	}
	classes := []struct {
		bit uint8
		re  *regexp2.Regexp
	}{
		{clsL, regexp2.MustCompile(`^\p{L}$`, regexp2.None)},
		{clsN, regexp2.MustCompile(`^\p{N}$`, regexp2.None)},
		{clsS, regexp2.MustCompile(`^\s$`, regexp2.None)},
		{clsU, regexp2.MustCompile(`^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$`, regexp2.None)},
		{clsW, regexp2.MustCompile(`^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$`, regexp2.None)},
	}
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r > 0xFFFF && r%97 != 0 || r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		c := classOfSlow(r)
		s := string(r)
		for _, cl := range classes {
			ok, _ := cl.re.MatchString(s)
			if ok != (c&cl.bit != 0) {
				t.Fatalf("rune %U: class bit %d is %v, regexp2 says %v", r, cl.bit, c&cl.bit != 0, ok)
			}
		}
	}
}

// FuzzPretokenize checks the hand-written splitters against regexp2
// running tiktoken's patterns.
func FuzzPretokenize(f *testing.F) {
	for _, s := range []string{"hello world", " \n  \n", "it's", "HELLOworld", "e\u0301", "日本語", "1234", ".\n/x", "\u00a0x", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		text = validUTF8(text)
		for _, enc := range Encodings {
			want, got := referencePieces(enc, text), ownPieces(enc, text)
			if !slices.Equal(want, got) {
				t.Fatalf("%s %q:\n regexp2 %q\n ours    %q", enc, text, want, got)
			}
			if strings.Join(got, "") != text {
				t.Fatalf("%s: pieces do not rebuild the text", enc)
			}
			for _, p := range got {
				if p == "" || !utf8.ValidString(p) {
					t.Fatalf("%s: bad piece %q", enc, p)
				}
			}
		}
	})
}
