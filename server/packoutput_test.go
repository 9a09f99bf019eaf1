package server

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPackOutputName: ctx/pack's output is a file name inside packs, or
// that path absolute; everything else is refused.
func TestPackOutputName(t *testing.T) {
	packs := "/state/packs"
	tests := []struct{ in, want string }{
		{"", ""}, {"pack.md", "pack.md"}, {"/state/packs/pack.xml", "pack.xml"}, {"/state/packs/./p.md", "p.md"},
	}
	for _, tt := range tests {
		got, err := packOutputName(packs, tt.in)
		if err != nil || got != tt.want {
			t.Errorf("%q: %q %v, want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"/etc/passwd", "/proc/self/fd/1", "/state/packs", "/state/packs/../x", "../x", "a/b", `a\b`, ".", "..", "/state/packs/a/b", "x\x00y", strings.Repeat("a", 300)} {
		if got, err := packOutputName(packs, in); err == nil {
			t.Errorf("%q accepted as %q", in, got)
		}
	}
}

// FuzzPackOutputName: an accepted output names a file directly inside
// packs.
func FuzzPackOutputName(f *testing.F) {
	for _, s := range []string{"pack.md", "/state/packs/p.md", "../x", "/state/packs/../../etc/passwd", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		name, err := packOutputName("/state/packs", out)
		if err != nil || name == "" {
			return
		}
		if p := filepath.Join("/state/packs", name); filepath.Dir(p) != "/state/packs" || filepath.Base(p) != name {
			t.Fatalf("output %q gave name %q, outside packs", out, name)
		}
	})
}
