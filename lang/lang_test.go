package lang_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/treesitter"
)

func TestOf(t *testing.T) {
	tests := []struct {
		path, want string
	}{
		{"main.go", "go"},
		{"a/b/service.py", "python"},
		{"gui.pyw", "python"},
		{"shape.HPP", "cpp"},
		{"x.h++", "cpp"},
		{`C:\src\Repo.php`, "php"},
		{"build.gradle.kts", "kotlin"},
		{"Rakefile", "ruby"},
		{"rakefile", "ruby"},
		{"Podfile", "ruby"},
		{"app.gemspec", "ruby"},
		{"go.mod", "go.mod"},
		{"CMakeLists.txt", "cmake"},
		{"notes.txt", "text"},
		{"Makefile", "make"},
		{"README.md", "markdown"},
		{"LICENSE", ""},
		{"bin/tool", ""},
	}
	for _, tt := range tests {
		if got := lang.Of(tt.path); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestOneTable checks that gather and treesitter name every file of the
// table alike: gather as the table says, treesitter the same language when
// it has a grammar for it and "" otherwise, and that every language
// treesitter parses has extensions in the table.
func TestOneTable(t *testing.T) {
	var names []string
	for ext := range lang.Extensions() {
		names = append(names, "dir/file"+ext, "dir/FILE"+strings.ToUpper(ext))
	}
	for base := range lang.Names() {
		names = append(names, "dir/"+base)
	}
	seen := map[string]bool{}
	for _, p := range names {
		want := lang.Of(p)
		if want == "" {
			t.Errorf("%s: not in the table", p)
			continue
		}
		seen[want] = true
		tsWant := ""
		if slices.Contains(treesitter.Languages, want) {
			tsWant = want
		}
		if got := treesitter.Detect(p, nil); got != tsWant {
			t.Errorf("treesitter.Detect(%q) = %q, want %q", p, got, tsWant)
		}
	}
	for _, l := range treesitter.Languages {
		if !seen[l] {
			t.Errorf("treesitter parses %s but no file name maps to it", l)
		}
	}
}
