package prompt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// sectionBefore is markdownSection as it was written before
// appendMarkdownSection (strings.Builder and fmt): the reference the
// appending one must render byte for byte.
func sectionBefore(c ctxd.Chunk) string {
	var title, lang string
	switch c.ChunkType {
	case ctxd.ChunkStructure:
		title, lang = "Project Structure", "text"
	case ctxd.ChunkDependency:
		title, lang = "Dependencies", "text"
	case ctxd.ChunkHistory:
		title, lang = "Recent Changes", "text"
	case ctxd.ChunkDiff:
		title, lang = "Uncommitted Changes", "diff"
	default:
		title, lang = c.Source, Language(c)
	}
	if c.Truncated {
		note := string(c.Truncation) + " view"
		if n := elidedLines(c); n > 0 {
			note = fmt.Sprintf("%s view, %d lines elided", c.Truncation, n)
		}
		title += " (" + note + ")"
	}
	fence := Fence(c.Content)
	var b strings.Builder
	b.WriteString("## " + title + "\n")
	f := &c.Facts
	if s := f.Selection; s != nil {
		fmt.Fprintf(&b, "Selection: lines %d-%d", s.Start, s.End)
		if c.Truncated && f.SelectedText != "" {
			sf := Fence(f.SelectedText)
			b.WriteString(", selected text:\n" + sf + lang + "\n" + f.SelectedText)
			if !strings.HasSuffix(f.SelectedText, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(sf + "\n")
		} else {
			b.WriteString("\n")
		}
	}
	if f.Cursor > 0 {
		fmt.Fprintf(&b, "Cursor: line %d\n", f.Cursor)
	}
	b.WriteString(fence + lang + "\n" + c.Content)
	if !strings.HasSuffix(c.Content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n\n")
	return b.String()
}

func TestAppendSection(t *testing.T) {
	sel := &ctxd.LineRange{Start: 3, End: 12}
	code := "package a\n\nfunc A() {}\n"
	cases := []struct {
		name string
		c    ctxd.Chunk
	}{
		{"whole", ctxd.Chunk{Source: "a/a.go", ChunkType: ctxd.ChunkFile, Content: code}},
		{"no final newline", ctxd.Chunk{Source: "a.py", ChunkType: ctxd.ChunkFile, Content: "x = 1"}},
		{"empty", ctxd.Chunk{Source: "e.txt", ChunkType: ctxd.ChunkFile}},
		{"backticks", ctxd.Chunk{Source: "r.md", ChunkType: ctxd.ChunkFile, Content: "a\n````go\nx\n````\n"}},
		{"view no elided", ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: code, Truncated: true, Truncation: ctxd.ViewOutline}},
		{"view elided", ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: code, Truncated: true, Truncation: ctxd.ViewBodies, Elided: []ctxd.LineRange{{Start: 4, End: 9}, {Start: 20, End: 20}}}},
		{"cursor", ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: code, Facts: ctxd.Facts{Cursor: 1234567}}},
		{"selection whole", ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: code, Facts: ctxd.Facts{Selection: sel, SelectedText: "func A() {}", Cursor: 3}}},
		{"selection cut", ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: code, Truncated: true, Truncation: ctxd.ViewMiddle, Elided: []ctxd.LineRange{{Start: 2, End: 2}}, Facts: ctxd.Facts{Selection: sel, SelectedText: "x ```\nfunc A() {}"}}},
		{"selection cut with newline", ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: code, Truncated: true, Truncation: ctxd.ViewSignatures, Facts: ctxd.Facts{Selection: sel, SelectedText: "func A() {}\n"}}},
		{"language", ctxd.Chunk{Source: "x.unknown", ChunkType: ctxd.ChunkFile, Content: code, Facts: ctxd.Facts{Language: "go"}}},
		{"structure", ctxd.Chunk{ChunkType: ctxd.ChunkStructure, Content: "a/\n  a.go\n"}},
		{"dependencies", ctxd.Chunk{ChunkType: ctxd.ChunkDependency, Content: "go 1.26\n"}},
		{"history", ctxd.Chunk{ChunkType: ctxd.ChunkHistory, Content: "abc fix\n"}},
		{"diff", ctxd.Chunk{ChunkType: ctxd.ChunkDiff, Content: "+x\n", Truncated: true, Truncation: ctxd.ViewMiddle}},
		{"unicode", ctxd.Chunk{Source: "ü/ß.go", ChunkType: ctxd.ChunkFile, Content: "// héllo\n\x00\xff\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := Section(tc.c, ctxd.FormatMarkdown), sectionBefore(tc.c); got != want {
				t.Errorf("markdown section changed:\n got %q\nwant %q", got, want)
			}
			for _, format := range []ctxd.Format{ctxd.FormatMarkdown, ctxd.FormatXML} {
				prefix := []byte("kept:")
				got := AppendSection(prefix, tc.c, format)
				if want := "kept:" + Section(tc.c, format); string(got) != want {
					t.Errorf("%s: AppendSection = %q, want %q", format, got, want)
				}
			}
		})
	}
}
