// Package prompt renders a fitted context and a request into the prompt a
// model reads, in markdown or xml. Rendering is split per chunk (Section)
// so the compressor can count each chunk exactly as it will appear.
//
// Layout (the design's build_prompt): a context header, the project
// structure, file contents in score order, dependencies, recent changes and
// uncommitted changes, then the request and the task instructions.
package prompt

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/ctxd/ctxd"
)

// Header opens every prompt that has context.
const Header = "Here is the relevant context for your task:"

// Instructions are the closing task instructions per task type.
var Instructions = map[ctxd.TaskType]string{
	ctxd.TaskImplement: "As an implement task, please write the code the request asks for. Follow the conventions of the files shown, keep the change focused and complete, and add or update tests where the project has them. Where a file is shown truncated, ask for the elided lines instead of guessing them.",
	ctxd.TaskDebug:     "As a debug task, please find the root cause before proposing a fix: name the file and line, explain why it fails, then give the smallest fix and a test that would have caught it.",
	ctxd.TaskRefactor:  "As a refactor task, please restructure the code without changing its behaviour. Update every caller shown that depends on what changes, keep public APIs unless the request says otherwise, and keep the tests passing.",
	ctxd.TaskTest:      "As a test task, please write tests that follow the project's existing test conventions. Cover the main paths, edge cases and failure paths of the code under test, and do not change that code unless the request asks for it.",
	ctxd.TaskAnalyze:   "As an analyze task, please explain what the code does and how its parts fit together, citing files and lines. Do not write code unless the request asks for it.",
}

// analyzeChange closes an analyze task whose request asks for a change
// (an explicit task type over "why does this reject X? make it accept
// X"): the instructions never forbid the code the request asks for.
const analyzeChange = "As an analyze task, please explain what the code does and how its parts fit together, citing files and lines, then write the change the request asks for."

// instructions returns the closing instructions of a task; asksChange
// says the request asks for a change (query.Query.AsksChange).
func instructions(task ctxd.TaskType, asksChange bool) string {
	if task == ctxd.TaskAnalyze && asksChange {
		return analyzeChange
	}
	return Instructions[task]
}

// sectionOrder places chunk types in the prompt: structure first, then
// files, dependencies, history and the diff.
var sectionOrder = map[ctxd.ChunkType]int{
	ctxd.ChunkStructure:  0,
	ctxd.ChunkFile:       1,
	ctxd.ChunkDependency: 2,
	ctxd.ChunkHistory:    3,
	ctxd.ChunkDiff:       4,
}

// Order sorts chunks into prompt order, keeping score order within a type.
// cs must be in score order.
func Order(cs []ctxd.Chunk) []ctxd.Chunk {
	out := append([]ctxd.Chunk(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool {
		return rank(out[i].ChunkType) < rank(out[j].ChunkType)
	})
	return out
}

func rank(t ctxd.ChunkType) int {
	if r, ok := sectionOrder[t]; ok {
		return r
	}
	return len(sectionOrder)
}

// Build renders the whole prompt for an envelope: its fitted chunks, its
// request and its task type, in env.Format; asksChange says the request
// asks for a change (see Request).
func Build(env *ctxd.Envelope, asksChange bool) string {
	var b strings.Builder
	chunks := Order(env.Context.Chunks)
	xml := env.Format == ctxd.FormatXML
	if xml {
		// One root element, so the prompt is a well-formed document.
		b.WriteString("<prompt>\n")
	}
	if len(chunks) > 0 {
		if xml {
			b.WriteString("<context>\n")
		} else {
			b.WriteString(Header)
			b.WriteString("\n\n")
		}
		for _, c := range chunks {
			b.WriteString(Section(c, env.Format))
		}
		if xml {
			b.WriteString("</context>\n\n")
		}
	}
	b.WriteString(Request(env.UserRequest, env.TaskType, asksChange, env.Format))
	if xml {
		b.WriteString("</prompt>\n")
	}
	return b.String()
}

// Frame is the text a prompt with context holds beside its sections and
// its request (the header, or the XML wrappers): a budget that lets the
// context fill the request's spare share counts it too.
func Frame(format ctxd.Format) string {
	if format == ctxd.FormatXML {
		return "<prompt>\n<context>\n</context>\n\n</prompt>\n"
	}
	return Header + "\n\n"
}

// Request renders the request and the task instructions; asksChange says
// the request asks for a change, so the instructions do not forbid code.
func Request(request string, task ctxd.TaskType, asksChange bool, format ctxd.Format) string {
	instr := instructions(task, asksChange)
	if format == ctxd.FormatXML {
		return "<request>\n" + xmlText(request, "request") + "\n</request>\n\n<instructions>\n" + xmlText(instr, "instructions") + "\n</instructions>\n"
	}
	return "---\n## Request\n" + request + "\n\n## Instructions\n" + instr + "\n"
}

// Section renders one chunk as it appears in the prompt. Its token count is
// the chunk's cost against the context budget.
func Section(c ctxd.Chunk, format ctxd.Format) string {
	if format == ctxd.FormatXML {
		return xmlSection(c)
	}
	b := appendMarkdownSection(make([]byte, 0, len(c.Content)+len(c.Source)+48), c)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not used again
}

// AppendSection appends Section(c, format) to dst and returns the
// extended buffer. The fitter renders every candidate view of every chunk
// only to count it: a buffer it reuses spares a new string each time.
func AppendSection(dst []byte, c ctxd.Chunk, format ctxd.Format) []byte {
	if format == ctxd.FormatXML {
		return append(dst, xmlSection(c)...)
	}
	return appendMarkdownSection(dst, c)
}

func appendMarkdownSection(b []byte, c ctxd.Chunk) []byte {
	title, lang := heading(c)
	b = append(b, "## "...)
	b = append(b, title...)
	b = appendTruncNote(b, c)
	b = append(b, '\n')
	b = appendFocus(b, c, lang)
	b = appendFenced(b, c.Content, lang)
	return append(b, '\n')
}

// heading is a section's title and the language of its fence: a name for
// the workspace-wide chunks, else the escaped source path (names are data)
// and its language.
func heading(c ctxd.Chunk) (title, lang string) {
	switch c.ChunkType {
	case ctxd.ChunkStructure:
		return "Project Structure", "text"
	case ctxd.ChunkDependency:
		return "Dependencies", "text"
	case ctxd.ChunkHistory:
		return "Recent Changes", "text"
	case ctxd.ChunkDiff:
		return "Uncommitted Changes", "diff"
	}
	return ctxd.EscapeName(c.Source), Language(c)
}

// appendFenced appends text in a fence that no line of it can close, with
// lang after the opening fence, and a newline after the closing one.
func appendFenced(b []byte, text, lang string) []byte {
	fence := Fence(text)
	b = append(b, fence...)
	b = append(b, lang...)
	b = append(b, '\n')
	b = append(b, text...)
	if !strings.HasSuffix(text, "\n") {
		b = append(b, '\n')
	}
	b = append(b, fence...)
	return append(b, '\n')
}

// appendTruncNote appends, for a truncated chunk, its view and the lines
// it elides: " (bodies view, 12 lines elided)".
func appendTruncNote(b []byte, c ctxd.Chunk) []byte {
	if !c.Truncated {
		return b
	}
	b = append(b, " ("...)
	b = append(b, c.Truncation...)
	b = append(b, " view"...)
	if n := elidedLines(c); n > 0 {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, " lines elided"...)
	}
	return append(b, ')')
}

// appendFocus appends where the editor's cursor and selection are in a
// file: "Cursor: line N" and "Selection: lines A-B", with the selected
// text in its own fence when the file's view is cut (a whole file has it
// in place). It is part of the section, so its tokens count against the
// budget.
func appendFocus(b []byte, c ctxd.Chunk, lang string) []byte {
	f := &c.Facts
	if s := f.Selection; s != nil {
		b = append(b, "Selection: lines "...)
		b = strconv.AppendInt(b, int64(s.Start), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(s.End), 10)
		if c.Truncated && f.SelectedText != "" {
			b = append(b, ", selected text:\n"...)
			b = appendFenced(b, f.SelectedText, lang)
		} else {
			b = append(b, '\n')
		}
	}
	if f.Cursor > 0 {
		b = append(b, "Cursor: line "...)
		b = strconv.AppendInt(b, int64(f.Cursor), 10)
		b = append(b, '\n')
	}
	return b
}

func xmlSection(c ctxd.Chunk) string {
	tag := "file"
	attrs := ""
	switch c.ChunkType {
	case ctxd.ChunkStructure:
		tag = "structure"
	case ctxd.ChunkDependency:
		tag = "dependencies"
	case ctxd.ChunkHistory:
		tag = "history"
	case ctxd.ChunkDiff:
		tag = "diff"
	default:
		attrs = " path=\"" + xmlAttr(ctxd.EscapeName(c.Source)) + "\""
		if l := Language(c); l != "" {
			attrs += " language=\"" + xmlAttr(l) + "\""
		}
	}
	if c.Truncated {
		attrs += " truncated=\"" + xmlAttr(string(c.Truncation)) + "\""
		if n := elidedLines(c); n > 0 {
			attrs += fmt.Sprintf(" elided_lines=\"%d\"", n)
		}
	}
	if s := c.Facts.Selection; s != nil {
		attrs += fmt.Sprintf(" selection=\"%d-%d\"", s.Start, s.End)
	}
	if c.Facts.Cursor > 0 {
		attrs += fmt.Sprintf(" cursor=\"%d\"", c.Facts.Cursor)
	}
	content := xmlText(c.Content, tag)
	var b strings.Builder
	b.Grow(len(content) + 64)
	fmt.Fprintf(&b, "<%s%s>\n", tag, attrs)
	if c.Truncated && c.Facts.SelectedText != "" {
		b.WriteString("<selection>\n" + xmlText(c.Facts.SelectedText, "selection") + "</selection>\n")
	}
	b.WriteString(content)
	if !strings.HasSuffix(content, "\n") {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "</%s>\n", tag)
	return b.String()
}

// xmlText keeps text readable (models read raw code best): text without
// markup characters goes as is; text with "<" or "&" goes in CDATA, with
// any "]]>" split across sections, so the prompt stays well-formed XML.
// Characters XML forbids (control characters but tab and newlines) become
// U+FFFD.
func xmlText(text, _ string) string {
	text = strings.Map(xmlChar, text)
	if !strings.ContainsAny(text, "<&") && !strings.Contains(text, "]]>") {
		return text
	}
	return "<![CDATA[" + strings.ReplaceAll(text, "]]>", "]]]]><![CDATA[>") + "]]>"
}

// xmlChar maps a rune XML 1.0 does not allow to U+FFFD.
func xmlChar(r rune) rune {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return r
	case r < 0x20, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
		return '\uFFFD'
	}
	return r
}

// xmlAttr escapes an attribute value (quoted with ").
func xmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;").Replace(strings.Map(xmlChar, s))
}

func elidedLines(c ctxd.Chunk) int {
	n := 0
	for _, r := range c.Elided {
		n += r.End - r.Start + 1
	}
	return n
}

// Fence returns a markdown code fence longer than any backtick run at the
// start of a line in text, so file contents can never close it early.
//
// The fitter renders every candidate view to count it, so this runs many
// times per request: it looks only at the lines holding a backtick, in
// place (no split).
func Fence(text string) string {
	longest := 0
	for {
		// The line of the next backtick (lines before it have none).
		j := strings.IndexByte(text, '`')
		if j < 0 {
			break
		}
		line := text[strings.LastIndexByte(text[:j], '\n')+1:]
		text = ""
		if k := strings.IndexByte(line, '\n'); k >= 0 {
			line, text = line[:k], line[k+1:]
		}
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		longest = max(longest, n)
	}
	switch longest {
	case 0, 1, 2:
		return "```"
	}
	return strings.Repeat("`", longest+1)
}

// Language returns the fence language of a file chunk: the gatherer's
// language when known, else one guessed from the extension.
func Language(c ctxd.Chunk) string {
	if c.Facts.Language != "" {
		return c.Facts.Language
	}
	return LanguageOf(c.Source)
}

// LanguageOf maps a path's extension to a fence language ("" if unknown).
func LanguageOf(p string) string {
	base := path.Base(p)
	switch base {
	case "Makefile", "makefile", "GNUmakefile":
		return "makefile"
	case "Dockerfile":
		return "dockerfile"
	case "go.mod", "go.sum":
		return "text"
	}
	return extLang[strings.ToLower(path.Ext(base))]
}

var extLang = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".jsx": "jsx", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx", ".rs": "rust",
	".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift", ".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".cs": "csharp",
	".rb": "ruby", ".php": "php", ".scala": "scala", ".lua": "lua", ".sh": "bash", ".bash": "bash", ".zsh": "zsh",
	".sql": "sql", ".html": "html", ".css": "css", ".scss": "scss", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
	".toml": "toml", ".xml": "xml", ".md": "markdown", ".proto": "protobuf", ".vue": "vue", ".svelte": "svelte",
	".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".ml": "ocaml", ".r": "r",
	".dart": "dart", ".zig": "zig", ".tf": "hcl", ".gradle": "groovy", ".s": "asm",
}
