package main

import (
	"strings"
	"testing"
)

// TestFirstSentence: ctxd help lists each command by its summary's first
// sentence on one line, never cut inside a word.
func TestFirstSentence(t *testing.T) {
	long := "Pack the repository (or the subtree PATH) into one document, with the same ignore and secret rules as prompt, exact token counts per file."
	tests := []struct {
		name, in, want string
	}{
		{"one line", "Print ctxd's version.", "Print ctxd's version."},
		{"sentence over lines", "Run the daemon: JSON-RPC 2.0 with LSP\n(Content-Length) framing.", "Run the daemon."},
		{"two sentences", "Print a file's view at a level. Levels shrink.", "Print a file's view at a level."},
		{"no period", "Serve the Model Context Protocol over stdio for an agent (Claude Code, Cursor, ...):\ntools ...", "Serve the Model Context Protocol over stdio for an agent (Claude Code, Cursor, ...)."},
		{"long", long, "Pack the repository (or the subtree PATH) into one document, with the same ignore and secret rules as prompt…"},
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
		if strings.Contains(got, "\n") || len(got) > maxSummary+len("…") {
			t.Errorf("%s: help line %q", name, got)
		}
		if !strings.HasSuffix(got, ".") && !strings.HasSuffix(got, "…") {
			t.Errorf("%s: help line %q does not end a sentence", name, got)
		}
	}
}
