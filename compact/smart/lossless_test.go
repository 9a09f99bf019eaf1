package smart

import (
	"strings"
	"testing"
)

// losslessOracle is losslessView as it was before it compared first and
// built at the exact size: one builder the size of the text, always.
func losslessOracle(text string) (string, bool) {
	raw := splitLines(text)
	var sb strings.Builder
	foldLines(raw, &sb)
	out := sb.String()
	if !strings.HasSuffix(text, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, out != text
}

var losslessCases = []string{
	"", "\n", "\n\n", "a", "a\n", "a\n\n", "a\n\n\nb", "a  \nb", "a\nb\n", "a\na\n", "a\na\na\n", "a\na\na",
	"x\r\n", "prog 10%\rprog 100%\n", "\x1b[31mred\x1b[0m\n", "  \n  \n", "a\n\n  ", "line\t\n",
	strings.Repeat("same line\n", 50), "tail without break  ", "\x1b",
}

func TestLosslessView(t *testing.T) {
	for _, text := range losslessCases {
		want, wantOK := losslessOracle(text)
		got, ok := losslessView(text)
		if ok != wantOK || ok && got != want {
			t.Errorf("losslessView(%q) = %q, %v; want %q, %v", text, got, ok, want, wantOK)
		}
		if !ok && got != text {
			t.Errorf("losslessView(%q) unchanged but returned %q", text, got)
		}
	}
}

func FuzzLosslessView(f *testing.F) {
	for _, c := range losslessCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, wantOK := losslessOracle(text)
		got, ok := losslessView(text)
		if ok != wantOK || ok && got != want {
			t.Fatalf("losslessView(%q) = %q, %v; want %q, %v", text, got, ok, want, wantOK)
		}
	})
}
