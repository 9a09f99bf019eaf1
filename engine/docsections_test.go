package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

// cliRepo is a command-line library shaped like commander.js: the
// command class in a module of many methods (requiredOption among them,
// and the check that reports a missing mandatory option), and a readme
// spelled Readme.md, of many sections, too large to fit an 8k context
// beside the code, with a translation (Readme_zh-CN.md). Each section's
// prose repeats the library's words (option, command, error), as a
// README does.
func cliRepo() map[string]string {
	var code strings.Builder
	code.WriteString("// The command class.\nexport class Command {\n  constructor(name) {\n    this.name = name;\n    this.options = [];\n  }\n")
	for i := range 24 {
		fmt.Fprintf(&code, "\n  /** helper%d mixes a value. */\n  helper%d(x) {\n    const a = x * %d;\n    if (a > 100) {\n      return a - %d;\n    }\n    return a + %d;\n  }\n", i, i, i+3, i, i*7)
	}
	code.WriteString(`
  /** Add a required option which must have a value after parsing. */
  requiredOption(flags, description) {
    return this._optionEx({ mandatory: true }, flags, description); // requiredOptionMarker
  }

  /** Display an error message if a mandatory option does not have a value. */
  _checkForMissingMandatoryOptions() {
    for (const option of this.options) {
      if (option.mandatory && this.getOptionValue(option.name) === undefined) {
        this.error("error: required option '" + option.flags + "' not specified"); // missingMarker
      }
    }
  }
`)
	for i := range 24 {
		fmt.Fprintf(&code, "\n  /** mixer%d mixes a value. */\n  mixer%d(x) {\n    const a = x * %d;\n    if (a > 100) {\n      return a - %d;\n    }\n    return a + %d;\n  }\n", i, i, i+3, i, i*7)
	}
	code.WriteString("}\n")

	section := func(level int, title, lead string, n int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n\n%s\n\n", strings.Repeat("#", level), title, lead)
		for i := range 3 * n {
			fmt.Fprintf(&b, "Paragraph %d about %s: a program declares each option and command once, and the parser reads the command line into the option values before the action runs.\n\n", i, strings.ToLower(title))
		}
		fmt.Fprintf(&b, "```js\n# not a heading: a comment in a sample about %s\nprogram.option('-d, --debug', 'output extra debugging');\n```\n\n", strings.ToLower(title))
		return b.String()
	}
	var readme strings.Builder
	readme.WriteString("Commander\n=========\n\nThe complete solution for command-line interfaces.\n\n")
	readme.WriteString(section(2, "Installation", "Install with npm.", 12))
	readme.WriteString(section(2, "Options", "Options are defined with the `.option()` method.", 10))
	readme.WriteString(section(3, "Common option types, boolean and value", "The two most used option types are a boolean option and an option which takes its value.", 12))
	readme.WriteString(section(3, "Default option value", "You can specify a default value for an option.", 12))
	readme.WriteString(section(3, "Required option", "You may specify a required (mandatory) option using `.requiredOption()`: the program shows an error when it is missing after parsing (requiredSectionMarker).", 3))
	readme.WriteString(section(3, "Variadic option", "You may make an option variadic by appending `...` to the value placeholder (variadicSectionMarker).", 12))
	readme.WriteString(section(2, "Commands", "You can specify (sub)commands using `.command()`.", 14))
	readme.WriteString(section(2, "Automated help", "The help information is auto-generated based on the information commander already knows.", 14))
	readme.WriteString(section(2, "Custom event listeners", "You can execute custom actions by listening to command and option events.", 14))
	readme.WriteString(section(2, "Bits and pieces", "Parsing configuration, legacy options and exit overrides.", 14))
	zh := strings.NewReplacer("Paragraph", "段落", "Required option", "必需选项", "Install with npm.", "使用 npm 安装。").Replace(readme.String())
	return map[string]string{
		"package.json":      "{\n  \"name\": \"commander\",\n  \"version\": \"14.0.0\",\n  \"main\": \"./index.js\"\n}\n",
		"index.js":          "export { Command } from './lib/command.js';\n",
		"lib/command.js":    code.String(),
		"Readme.md":         readme.String(),
		"Readme_zh-CN.md":   zh,
		"examples/pizza.js": "import { Command } from '../index.js';\n\nconst program = new Command('pizza');\nprogram.option('-p, --peppers', 'Add peppers');\nprogram.parse();\n",
	}
}

// TestHowToSeesDocSection: a question about how to use the project sees
// the readme's section that answers it verbatim, whole, beside the code,
// not the whole readme and not its translation, within an 8k budget; on
// main the readme, too large to fit, was left out. A request to fix the
// code keeps the readme out of its focus: no section views, no how-to
// term.
func TestHowToSeesDocSection(t *testing.T) {
	files := cliRepo()
	dir := testutil.GitRepo(t, files)
	e := newEngine(t, dir)
	readme := files["Readme.md"]
	sectionLines := func(title string) (from, to int) {
		for _, s := range markdownSections(readme) {
			if s.title == title {
				return s.start, s.end
			}
		}
		t.Fatalf("no section %q", title)
		return 0, 0
	}
	tests := []struct {
		name    string
		request string
		section string // the section shown whole; "" for none
	}{
		{"how do I", "how do I make an option required and show an error when it is missing", "Required option"},
		{"how to", "how to give an option a default value", "Default option value"},
		{"is there a way", "is there a way to make an option variadic?", "Variadic option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, got, order := promptTarget(t, e, PromptRequest{UserRequest: tt.request}, "Readme.md")
			from, to := sectionLines(tt.section)
			for l := from; l <= to; l++ {
				if strings.TrimSpace(strings.Split(readme, "\n")[l-1]) == "" {
					continue
				}
				if !visibleLine(got, readme, l) {
					t.Fatalf("Readme.md at %q (%d tokens) hides line %d of section %q (elided %v); included %v", got.Truncation, got.Tokens, l, tt.section, got.Elided, order)
				}
			}
			if !got.Truncated || got.Tokens > 2000 {
				t.Errorf("Readme.md at %q, %d tokens: want its sections, not the whole readme", got.Truncation, got.Tokens)
			}
			for _, other := range []string{"Installation", "Commands", "Custom event listeners"} {
				f, _ := sectionLines(other)
				if visibleLine(got, readme, f+2) {
					t.Errorf("Readme.md shows section %q's text (line %d), which does not answer %q", other, f+2, tt.request)
				}
			}
			if c := chunkOf(env, "Readme_zh-CN.md"); c != nil {
				t.Errorf("the readme's translation is included beside it (%s, %d tokens)", c.Truncation, c.Tokens)
			}
			if chunkOf(env, "lib/command.js") == nil {
				t.Errorf("the code is not beside the readme; included %v", order)
			}
		})
	}

	t.Run("fix request", func(t *testing.T) {
		env, got, order := promptTarget(t, e, PromptRequest{UserRequest: "fix the error shown when a required option is missing: it names the wrong flag"}, "lib/command.js")
		code := files["lib/command.js"]
		if n := markerLine(code, "missingMarker"); !visibleLine(got, code, n) {
			t.Errorf("lib/command.js at %q hides the check's line %d; included %v", got.Truncation, n, order)
		}
		if c := chunkOf(env, "Readme.md"); c != nil {
			if c.Facts.DocSections || len(c.Facts.FocusDefs) > 0 || c.Truncation == ctxd.ViewFocusOnly {
				t.Errorf("a fix request's readme has section focus (%v, %s)", c.Facts.FocusDefs, c.Truncation)
			}
			for _, term := range c.ScoreBreakdown {
				if strings.HasPrefix(term.Reason, "how-to") {
					t.Errorf("a fix request's readme scored as a how-to's: %v", term)
				}
			}
		}
	})
}

// TestMarkdownSections reads headings as a reader does: ATX and setext,
// not the '#' lines of a fenced code block, each section up to the next
// heading.
func TestMarkdownSections(t *testing.T) {
	text := strings.Join([]string{
		"Title",           // 1
		"=====",           // 2
		"intro",           // 3
		"## Install ##",   // 4
		"```sh",           // 5
		"# not a heading", // 6
		"```",             // 7
		"Usage",           // 8
		"-----",           // 9
		"#nospace",        // 10: no heading
		"    # indented",  // 11: code, no heading
		"### Flags",       // 12
		"text",            // 13
	}, "\n") + "\n"
	want := []mdSection{
		{start: 1, end: 3, level: 1, title: "Title"},
		{start: 4, end: 7, level: 2, title: "Install"},
		{start: 8, end: 11, level: 2, title: "Usage"},
		{start: 12, end: 13, level: 3, title: "Flags"},
	}
	if d := cmp.Diff(want, markdownSections(text), cmp.AllowUnexported(mdSection{})); d != "" {
		t.Errorf("markdownSections (-want +got):\n%s", d)
	}
	// A page's introduction, before its first heading, is a section.
	intro := "\nStartup and shutdown handlers.\n\n## State\nstate\n"
	want = []mdSection{{start: 1, end: 3, title: "(introduction)"}, {start: 4, end: 5, level: 2, title: "State"}}
	if d := cmp.Diff(want, markdownSections(intro), cmp.AllowUnexported(mdSection{})); d != "" {
		t.Errorf("markdownSections of an introduction (-want +got):\n%s", d)
	}
}

// TestBestSections: the section whose heading and text hold the
// request's words wins; a word every section holds picks none.
func TestBestSections(t *testing.T) {
	text := cliRepo()["Readme.md"]
	secs := markdownSections(text)
	tests := []struct {
		request string
		want    []string
	}{
		{"how do I make an option required and show an error when it is missing", []string{"Required option"}},
		{"how do I set up the option", nil}, // "option" is everywhere, "set" nowhere
	}
	for _, tt := range tests {
		t.Run(tt.request, func(t *testing.T) {
			var got []string
			for _, s := range bestSections(text, secs, tree.TermsOf(query.Parse(tt.request).Words)) {
				got = append(got, s.sec.title)
			}
			if len(tt.want) == 0 && len(got) > 0 || len(tt.want) > 0 && (len(got) == 0 || got[0] != tt.want[0]) {
				t.Errorf("best sections %q, want %q first", got, tt.want)
			}
			if slices.Contains(got, "Installation") {
				t.Errorf("Installation chosen: %q", got)
			}
		})
	}
}

// TestFixCut: a reduced document cut to a head and a tail reports the
// document's lines it hides, not the view's.
func TestFixCut(t *testing.T) {
	d := docFocus{elided: []ctxd.LineRange{{Start: 1, End: 3}, {Start: 8, End: 10}}, lines: 10, tokens: 900}
	// The view: marker, lines 4-7, marker; the cut hides its lines 3-4
	// (the document's 5 and 6).
	c := &ctxd.Chunk{Truncated: true, Truncation: ctxd.ViewMiddle, Elided: []ctxd.LineRange{{Start: 3, End: 4}}}
	d.fixCut(c)
	want := []ctxd.LineRange{{Start: 1, End: 3}, {Start: 5, End: 6}, {Start: 8, End: 10}}
	if diff := cmp.Diff(want, c.Elided); diff != "" {
		t.Errorf("elided (-want +got):\n%s", diff)
	}
	if c.OriginalTokens != 900 {
		t.Errorf("original tokens %d, want the document's 900", c.OriginalTokens)
	}
}

// TestReducedDocLines: a reduced document's line count is the file's, so
// a cut of it never reports a line past the end.
func TestReducedDocLines(t *testing.T) {
	for _, tt := range []struct {
		text string
		want int
	}{{"", 0}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"a\n\n", 2}} {
		if got := lineCount(tt.text); got != tt.want {
			t.Errorf("lineCount(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}
