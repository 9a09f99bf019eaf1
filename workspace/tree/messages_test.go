package tree

import (
	"fmt"
	"testing"

	"github.com/ctxd/ctxd/query"
)

// TestMessagesRank: the files of the commits whose subjects share the
// request's words, by the shared words' rarity over the subjects and
// the commits' sizes; a commit over maxMessageFiles files and a file
// keep drops are left out.
func TestMessagesRank(t *testing.T) {
	big := make([]string, maxMessageFiles+1)
	for i := range big {
		big[i] = fmt.Sprintf("gen/f%d.py", i)
	}
	subjects := []string{
		"fix(css): keep url() in imported sheets",    // css.ts
		"Fix parsing Form fields with defaults",      // solver.py
		"Support extra parameter lists in forms",     // solver.py, forms.py
		"fix(css): rewrite urls in injected content", // css.ts, test
		"chore: update dependencies",                 // everything (dropped: too large)
		"docs: fix typos",                            // README.md
		"Fix list parameter parsing with aliases",    // solver.py
		"refactor(hmr): prune modules on update",     // hmr.ts
	}
	commits := [][]string{
		{"src/plugins/css.ts"},
		{"app/dependencies/solver.py"},
		{"app/dependencies/solver.py", "app/forms.py"},
		{"src/plugins/css.ts", "test/css.spec.ts"},
		big,
		{"README.md"},
		{"app/dependencies/solver.py"},
		{"src/server/hmr.ts"},
	}
	m := NewMessages(subjects, commits)
	if m.Len() != 7 {
		t.Fatalf("Len = %d, want 7 (the large commit left out)", m.Len())
	}
	noTests := func(p string) bool { return p != "test/css.spec.ts" }
	tests := []struct {
		request string
		want    []string
	}{
		// "support" is in a subject of solver.py's too, rarer than "css".
		{"fix(css): support external CSS with lightningcss", []string{"src/plugins/css.ts", "app/dependencies/solver.py", "app/forms.py"}},
		{"Fix parsing extra Form parameter list", []string{"app/dependencies/solver.py", "app/forms.py"}},
		{"feat(hmr): accept worker updates", []string{"src/server/hmr.ts"}},
		{"Add a command line", nil},
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			got := m.Rank(TermsOf(query.Parse(tt.request).Words), 0, noTests)
			var paths []string
			for _, s := range got {
				paths = append(paths, s.Path)
			}
			if fmt.Sprint(paths) != fmt.Sprint(tt.want) {
				t.Errorf("Rank = %q, want %q (%v)", paths, tt.want, got)
			}
		})
	}
	if got := m.Rank(TermsOf(query.Parse("Fix parsing extra Form parameter list").Words), 1, nil); len(got) != 1 {
		t.Errorf("limit 1: %v", got)
	}
	var nilM *Messages
	if nilM.Len() != 0 || nilM.Rank(TermsOf([]string{"css"}), 0, nil) != nil {
		t.Error("a nil Messages ranks something")
	}
}

// TestParseLogSubjects: parseLog reads each commit's subject beside its
// files, a subject with the marker's byte neither.
func TestParseLogSubjects(t *testing.T) {
	out := "\x01p2\x02fix(css): urls\n\na.ts\nb.ts\n\x01p1\x02Fix Form parsing\n\nc.py\n\x01\x02root\n\nd.py\n"
	commits, subjects := parseLog([]byte(out), false)
	if fmt.Sprint(commits) != "[[a.ts b.ts] [c.py]]" || fmt.Sprintf("%q", subjects) != `["fix(css): urls" "Fix Form parsing"]` {
		t.Errorf("parseLog = %q, %q", commits, subjects)
	}
}

// BenchmarkMessages: building the messages of 400 commits (once per
// HEAD) and ranking a request against them (once per request).
func BenchmarkMessages(b *testing.B) {
	words := []string{"fix", "css", "parsing", "Form", "parameter", "hmr", "ssr", "optimizer", "config", "build", "worker", "resolve", "glob", "plugin", "legacy", "server", "client", "module", "runner", "dependency"}
	subjects := make([]string, 400)
	commits := make([][]string, 400)
	for i := range subjects {
		subjects[i] = fmt.Sprintf("fix(%s): handle %s in %s when %s is set (#%d)", words[i%20], words[(i*7)%20], words[(i*3)%20], words[(i*11)%20], i)
		commits[i] = []string{fmt.Sprintf("src/%s/file%d.ts", words[i%20], i%37), fmt.Sprintf("src/%s.ts", words[(i*3)%20])}
	}
	q := TermsOf(query.Parse("fix(css): support external CSS with lightningcss in the worker build").Words)
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			NewMessages(subjects, commits)
		}
	})
	m := NewMessages(subjects, commits)
	b.Run("rank", func(b *testing.B) {
		for b.Loop() {
			m.Rank(q, 200, nil)
		}
	})
}
