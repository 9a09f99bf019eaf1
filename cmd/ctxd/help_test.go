package main

import (
	"context"
	"strings"
	"testing"
)

// TestFirstSentence: ctxd help lists each command by its summary's whole
// first sentence, wrapped at words to the help's width (it was cut with
// "…").
func TestFirstSentence(t *testing.T) {
	long := "Pack the repository (or the subtree PATH) into one document, with the same ignore and secret rules as prompt, exact token counts per file."
	tests := []struct {
		name, in, want string
	}{
		{"one line", "Print ctxd's version.", "Print ctxd's version."},
		{"sentence over lines", "Run the daemon: JSON-RPC 2.0 with LSP\n(Content-Length) framing.", "Run the daemon."},
		{"two sentences", "Print a file's view at a level. Levels shrink.", "Print a file's view at a level."},
		{"no period", "Serve the Model Context Protocol over stdio for an agent (Claude Code, Cursor, ...):\ntools ...", "Serve the Model Context Protocol over stdio for an agent (Claude Code, Cursor, ...)."},
		{"long", long, long},
		{"colon in parentheses", "Find a symbol's definitions (from the symbol index: kind, lines, signature) and the\ncode lines that use it. NAME is a bare name.", "Find a symbol's definitions (from the symbol index: kind, lines, signature) and the code lines that use it."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := firstSentence(tt.in); got != tt.want {
				t.Errorf("firstSentence:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	for name, c := range commands {
		got := firstSentence(c.summary)
		if strings.Contains(got, "\n") || strings.Contains(got, "…") {
			t.Errorf("%s: help line %q", name, got)
		}
		if !strings.HasSuffix(got, ".") {
			t.Errorf("%s: help line %q does not end a sentence", name, got)
		}
		if strings.Count(got, "(") != strings.Count(got, ")") {
			t.Errorf("%s: help line %q cut inside parentheses", name, got)
		}
		lines := wrapWords(got, helpWidth-helpIndent)
		if strings.Join(lines, " ") != got {
			t.Errorf("%s: wrapped %q, want the words of %q", name, lines, got)
		}
		for _, l := range lines {
			if len(l) > helpWidth-helpIndent && strings.Contains(l, " ") {
				t.Errorf("%s: help line %q over %d columns", name, l, helpWidth-helpIndent)
			}
		}
	}
	var out strings.Builder
	printHelp(&out)
	cmds, _, _ := strings.Cut(out.String(), "\nRun 'ctxd help")
	for _, l := range strings.Split(cmds, "\n") {
		if strings.HasPrefix(l, "  ") && len(l) > helpWidth || strings.Contains(l, "…") {
			t.Errorf("help line over %d columns or cut: %q", helpWidth, l)
		}
	}
}

// TestEveryHelpListsFlags: `ctxd help CMD` and `ctxd CMD -h` of every command
// exit 0 and, when they print a flags section, list a flag in it (ctxd help
// run fell back to the summary without its flags, ctxd run -h was a usage
// error, and ctxd help eval printed "flags:" with nothing under it).
func TestEveryHelpListsFlags(t *testing.T) {
	wants := map[string][]string{
		"run":      {"\nflags:\n  --lines", "print an output of at most N lines whole"},
		"eval":     {"ctxd eval recall -h", "ctxd eval swebench -h"},
		"sessions": {"ctxd sessions SUBCOMMAND -h"},
		// --level's help named four of its six levels.
		"truncate": {"full, bodies, signatures, outline, focus or focus-only"},
	}
	for name := range commands {
		for _, args := range [][]string{{"help", name}, {name, "-h"}, {name, "--help"}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				var out, errOut strings.Builder
				code := Run(context.Background(), args, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
				text := out.String() + errOut.String()
				if code != 0 {
					t.Fatalf("exit %d, want 0:\n%s", code, text)
				}
				if !strings.Contains(text, "usage: ctxd "+name) {
					t.Errorf("no usage line:\n%s", text)
				}
				if _, after, ok := strings.Cut(text, "\nflags:\n"); ok && !strings.HasPrefix(after, "  -") {
					t.Errorf("an empty flags section:\n%s", text)
				}
				for _, w := range wants[name] {
					if !strings.Contains(text, w) {
						t.Errorf("help lacks %q:\n%s", w, text)
					}
				}
			})
		}
	}
}
