package prompt

import (
	"encoding/xml"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite golden files")

func sampleEnvelope(format string) *ctxd.Envelope {
	return &ctxd.Envelope{
		TaskType:    ctxd.TaskDebug,
		UserRequest: "fix the nil map write in cache.go",
		Format:      ctxd.Format(format),
		Context: ctxd.CompressedContext{Chunks: []ctxd.Chunk{
			{Source: "cache.go", ChunkType: ctxd.ChunkFile, Content: "package cache\n\nvar m map[string]int\n\nfunc Put(k string) { m[k]++ }\n"},
			{Source: "git:diff", ChunkType: ctxd.ChunkDiff, Content: "--- a/cache.go\n+++ b/cache.go\n@@ -1 +1 @@\n-x\n+y"},
			{Source: "structure", ChunkType: ctxd.ChunkStructure, Content: "cache.go\nREADME.md\n"},
			{Source: "doc/notes.md", ChunkType: ctxd.ChunkFile, Content: "Use ```go fences``` like this:\n```go\nx := 1\n```\n"},
			{Source: "big.go", ChunkType: ctxd.ChunkFile, Truncated: true, Truncation: ctxd.ViewBodies,
				Elided: []ctxd.LineRange{{Start: 3, End: 12}}, Content: "package big\n\nfunc Big() { /* ... 10 lines */ }\n"},
			{Source: "deps", ChunkType: ctxd.ChunkDependency, Content: "go.mod: module example.com/cache (go 1.26)\n"},
			{Source: "git:log", ChunkType: ctxd.ChunkHistory, Content: "abc1234 2026-11-01 Ann: add cache\n"},
		}},
	}
}

func TestBuildGolden(t *testing.T) {
	for _, format := range []string{string(ctxd.FormatMarkdown), string(ctxd.FormatXML)} {
		t.Run(format, func(t *testing.T) {
			testutil.GoldenFile(t, "prompt."+format, []byte(Build(sampleEnvelope(format), false)), *update)
		})
	}
}

func TestBuildIsSectionsPlusRequest(t *testing.T) {
	for _, format := range []ctxd.Format{ctxd.FormatMarkdown, ctxd.FormatXML} {
		env := sampleEnvelope(string(format))
		got := Build(env, false)
		for _, c := range env.Context.Chunks {
			if !strings.Contains(got, Section(c, format)) {
				t.Errorf("%s: prompt lacks the section of %s", format, c.Source)
			}
		}
		want := Request(env.UserRequest, env.TaskType, false, format)
		if format == ctxd.FormatXML {
			want += "</prompt>\n"
		}
		if !strings.HasSuffix(got, want) {
			t.Errorf("%s: prompt does not end with the request", format)
		}
	}
}

func TestNoContext(t *testing.T) {
	env := &ctxd.Envelope{TaskType: ctxd.TaskAnalyze, UserRequest: "hi", Format: ctxd.FormatMarkdown}
	got := Build(env, false)
	if strings.Contains(got, Header) || !strings.Contains(got, "## Request\nhi\n") {
		t.Errorf("prompt without context:\n%s", got)
	}
}

func TestFence(t *testing.T) {
	tests := []struct{ text, want string }{
		{"plain", "```"},
		{"```go\nx\n```", "````"},
		{"  ````\n", "`````"},
		{"inline ``` is fine", "```"},
		{"", "```"},
		{"a\n\t ``````` x ```````````\nb", "````````"},
		{"x ````\n````", "`````"},
		{"no newline at the end\n  \t``", "```"},
		{"\r\n```` windows line", "`````"},
		{"a\r\n\r```` after a carriage return", "```"},
	}
	for _, tt := range tests {
		if got := Fence(tt.text); got != tt.want {
			t.Errorf("Fence(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if got, want := Fence(tt.text), splitFence(tt.text); got != want {
			t.Errorf("Fence(%q) = %q, the line split gives %q", tt.text, got, want)
		}
	}
}

// splitFence is Fence as first written, by splitting every line.
func splitFence(text string) string {
	longest := 0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, " \t")
		n := 0
		for n < len(line) && line[n] == '`' {
			n++
		}
		longest = max(longest, n)
	}
	return strings.Repeat("`", max(3, longest+1))
}

func FuzzFence(f *testing.F) {
	f.Add("```go\nx\n```")
	f.Add("a ``\n  ````` b\n\t`")
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := Fence(text), splitFence(text); got != want {
			t.Fatalf("Fence(%q) = %q, the line split gives %q", text, got, want)
		}
	})
}

func TestXMLClosingTagIsWrapped(t *testing.T) {
	c := ctxd.Chunk{Source: "t.html", ChunkType: ctxd.ChunkFile, Content: "a</file>b]]>c"}
	got := Section(c, ctxd.FormatXML)
	if !strings.Contains(got, "<![CDATA[a</file>b]]]]><![CDATA[>c]]>") {
		t.Errorf("unexpected CDATA form:\n%s", got)
	}
}

func TestEveryTaskHasInstructions(t *testing.T) {
	for _, task := range ctxd.TaskTypes {
		if Instructions[task] == "" {
			t.Errorf("no instructions for %s", task)
		}
	}
}

// TestInstructionsNeverForbidAskedCode: a request that asks for a change
// never gets instructions that forbid code, whatever its task type.
func TestInstructionsNeverForbidAskedCode(t *testing.T) {
	for _, task := range ctxd.TaskTypes {
		for _, format := range []ctxd.Format{ctxd.FormatMarkdown, ctxd.FormatXML} {
			got := Request("why does this reject X? make it accept X", task, true, format)
			if strings.Contains(strings.ToLower(got), "do not write code") {
				t.Errorf("%s, %s: the instructions forbid the code the request asks for:\n%s", task, format, got)
			}
			if task != ctxd.TaskAnalyze && got != Request("why does this reject X? make it accept X", task, false, format) {
				t.Errorf("%s, %s: a change request changed the instructions of a task that writes code", task, format)
			}
		}
	}
	if got := Request("how does the cache expire entries?", ctxd.TaskAnalyze, false, ctxd.FormatMarkdown); !strings.Contains(got, "Do not write code") {
		t.Errorf("a question lost its analyze instructions:\n%s", got)
	}
}

// TestSectionFocus: a file's section names the cursor and the selection,
// and carries the selected text when its view is cut.
func TestSectionFocus(t *testing.T) {
	c := ctxd.Chunk{Source: "a/b.go", ChunkType: ctxd.ChunkFile, Content: "package b\n\nfunc F() {}\n",
		Facts: ctxd.Facts{Cursor: 3, Selection: &ctxd.LineRange{Start: 3, End: 3}, SelectedText: "func F() {}\n"}}
	md := Section(c, ctxd.FormatMarkdown)
	if !strings.Contains(md, "Selection: lines 3-3\nCursor: line 3\n") || strings.Count(md, "func F() {}") != 1 {
		t.Errorf("whole file:\n%s", md)
	}
	c.Truncated, c.Truncation, c.Content = true, ctxd.ViewOutline, "package b\n"
	md = Section(c, ctxd.FormatMarkdown)
	if !strings.Contains(md, "Selection: lines 3-3, selected text:\n```go\nfunc F() {}\n```\n") {
		t.Errorf("cut file:\n%s", md)
	}
	x := Section(c, ctxd.FormatXML)
	if !strings.Contains(x, `selection="3-3" cursor="3"`) || !strings.Contains(x, "<selection>\nfunc F() {}\n</selection>") {
		t.Errorf("xml:\n%s", x)
	}
}

// TestXMLWellFormed: code holding markup, "]]>", control characters and
// odd paths still renders a document encoding/xml parses, with one root,
// whose text is the chunk's content.
func TestXMLWellFormed(t *testing.T) {
	contents := []string{
		"if a < b && c > d { return \"</file>\" }\n",
		"x := \"]]>\" + \"<![CDATA[\"\n",
		"bell\x07 and nul\x00 bytes\n",
		"plain text\n",
		"</context></prompt>",
	}
	for i, content := range contents {
		env := &ctxd.Envelope{TaskType: ctxd.TaskAnalyze, UserRequest: "why <b> & </request>?", Format: ctxd.FormatXML,
			Context: ctxd.CompressedContext{Chunks: []ctxd.Chunk{{Source: `dir/a"b&<c>.go`, ChunkType: ctxd.ChunkFile, Content: content}}}}
		got := Build(env, false)
		text, roots := parseXML(t, got)
		if roots != 1 {
			t.Errorf("%d: %d root elements:\n%s", i, roots, got)
		}
		want := strings.Map(xmlChar, content)
		if !strings.Contains(text, strings.TrimSpace(want)) {
			t.Errorf("%d: parsed text lacks the content %q:\n%s", i, want, text)
		}
	}
}

// parseXML decodes doc strictly and returns its character data and the
// number of top-level elements.
func parseXML(t *testing.T, doc string) (string, int) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	dec.Strict = true
	var text strings.Builder
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(tk)) != "" {
				t.Fatalf("text outside the root: %q", tk)
			}
			text.Write(tk)
		}
	}
	return text.String(), roots
}
