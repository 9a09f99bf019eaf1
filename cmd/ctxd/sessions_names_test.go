package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/engine"
	"github.com/ctxd/ctxd/sessions"
)

// hostileName holds what a committed checkpoint or file name can carry
// to a terminal: a line break and a forged line, a terminal escape (the
// title and a colour), a carriage return, a C1 control, DEL and a
// right-to-left override.
const hostileName = "a.go\nFORGED LINE\x1b]0;pwned\x07\x1b[31m\rx\u0085\x7f\u202egnp.exe"

// TestSessionsOutputEscapesNames: every table and line `ctxd sessions`
// and --explain print shows names and texts read from checkpoints, the
// state directory and the workspace through ctxd.EscapeName: no control
// character but the layout's own line breaks reaches the terminal, and
// a name cannot add a line.
func TestSessionsOutputEscapesNames(t *testing.T) {
	when := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	checkpoint := func(h string) *sessions.Checkpoint {
		return &sessions.Checkpoint{SessionID: h, Seq: 1, Timestamp: when, TaskType: ctxd.TaskType(h), UserRequest: h, State: sessions.State(h), Note: h,
			Parent:    &sessions.Parent{SessionID: h, Seq: 1},
			Artifacts: []ctxd.Artifact{{Type: h, Path: h}},
			Chunks:    []sessions.ChunkRef{{Source: h, ChunkType: ctxd.ChunkType(h), Truncation: ctxd.View(h), Hash: h}}}
	}
	envelope := func(h string) *ctxd.Envelope {
		return &ctxd.Envelope{Context: ctxd.CompressedContext{
			Chunks:  []ctxd.Chunk{{Source: h, Tokens: 3}},
			Skipped: []ctxd.Skipped{{Source: h, Reason: h}},
		}}
	}
	tests := []struct {
		name  string
		print func(w *strings.Builder, h string)
	}{
		{"list", func(w *strings.Builder, h string) {
			printList(w, &sessions.Listing{Sessions: []sessions.Info{{SessionID: h, State: sessions.State(h), Updated: when, UserRequest: h}}})
		}},
		{"problems", func(w *strings.Builder, h string) { printProblems(w, []sessions.Problem{{Path: h, Reason: h}}) }},
		{"show", func(w *strings.Builder, h string) {
			printCheckpoint(w, &sessions.Restored{Checkpoint: checkpoint(h), Path: h})
		}},
		{"resume", func(w *strings.Builder, h string) {
			printResume(w, &engine.ResumeResult{Resumed: true, SessionID: h, Checkpoint: checkpoint(h), Sources: []engine.SourceStatus{{Source: h, Status: h}}}, false)
		}},
		{"nothing to resume", func(w *strings.Builder, h string) { printResume(w, &engine.ResumeResult{Reason: h}, false) }},
		{"timeline", func(w *strings.Builder, h string) {
			printTimeline(w, &sessions.Timeline{SessionID: h, Parent: &sessions.Parent{SessionID: h}, Entries: []sessions.Entry{{Seq: 1, Timestamp: when, State: sessions.State(h), UserRequest: h}}})
		}},
		{"gc", func(w *strings.Builder, h string) {
			printGC(w, &sessions.GCReport{Removed: []sessions.Collected{{SessionID: h, State: sessions.State(h), Updated: when, Reason: h}}, Trimmed: []sessions.Trimmed{{SessionID: h}}})
		}},
		{"explain", func(w *strings.Builder, h string) {
			if err := writeExplain(w, envelope(h)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var plain, b strings.Builder
			tt.print(&plain, "plain.go")
			tt.print(&b, hostileName)
			out := b.String()
			for _, r := range out {
				if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e) {
					t.Fatalf("control character %U reached the output:\n%q", r, out)
				}
			}
			if n, want := strings.Count(out, "\n"), strings.Count(plain.String(), "\n"); n != want {
				t.Errorf("%d lines, %d with a plain name:\n%s", n, want, out)
			}
			if strings.Contains(out, "\nFORGED LINE") {
				t.Errorf("a name forged a line:\n%s", out)
			}
			if !strings.Contains(out, `\nFORGED LINE\x1b]0;pwned`) {
				t.Errorf("the escaped name is not shown:\n%s", out)
			}
		})
	}
}
