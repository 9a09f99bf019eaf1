package editors_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite editors/nvim/doc/ctxd.txt from README.md's Neovim section")

// TestNvimHelpDoc keeps the Neovim help page (:help ctxd) the README's
// Neovim section, rendered as vimdoc: one source, so the two never drift.
// Edit README.md and run go test ./editors -run TestNvimHelpDoc -update.
func TestNvimHelpDoc(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section, err := readmeSection(string(readme), "Neovim")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "nvim/doc/ctxd.txt", []byte(vimdoc(section)), *update)
}

// readmeSection returns the body of the "## name" section.
func readmeSection(readme, name string) (string, error) {
	_, body, ok := strings.Cut(readme, "\n## "+name+"\n")
	if !ok {
		return "", fmt.Errorf("README.md has no ## %s section", name)
	}
	body, _, _ = strings.Cut(body, "\n## ")
	return strings.TrimSpace(body), nil
}

// helpWidth is vimdoc's text width.
const helpWidth = 78

var commandName = regexp.MustCompile(`:(?:\[[^\]]*\])?([A-Za-z]+)`)

// vimdoc renders a README section as a Vim help file: paragraphs wrapped
// at helpWidth, fenced code as help code blocks (">" … "<"), the table of
// commands as tagged entries; pictures and the paragraph that follows
// them (their caption) left out.
func vimdoc(md string) string {
	var b strings.Builder
	title := "*ctxd.txt*  ctxd: prompt-ready context for LLM coding tasks"
	b.WriteString(title + "\n\n")
	b.WriteString(wrap("Generated from the Neovim section of ctxd's README.md by editors/nvimdoc_test.go; edit the README and run `go test ./editors -run TestNvimHelpDoc -update`.", "") + "\n")
	b.WriteString(strings.Repeat("=", helpWidth) + "\n")
	b.WriteString(rightAlign("CTXD", "*ctxd*") + "\n\n")
	lines := strings.Split(md, "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString(wrap(strings.Join(para, " "), "") + "\n\n")
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```"):
			flush()
			lang := strings.TrimPrefix(l, "```")
			_ = lang // ">lang" needs Neovim 0.10; ">" alone works in 0.7
			b.WriteString(">\n")
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				b.WriteString(strings.TrimRight("    "+lines[i], " ") + "\n")
			}
			b.WriteString("<\n\n")
		case strings.HasPrefix(l, "| command"), strings.HasPrefix(l, "|---"):
			flush()
			if strings.HasPrefix(l, "| command") {
				b.WriteString(strings.Repeat("=", helpWidth) + "\n")
				b.WriteString(rightAlign("COMMANDS", "*ctxd-commands*") + "\n\n")
			}
		case strings.HasPrefix(l, "| "):
			cells := strings.Split(strings.Trim(l, "| "), " | ")
			cmd := strings.Trim(cells[0], "`")
			tag := ""
			if m := commandName.FindStringSubmatch(cmd); m != nil {
				tag = "*:" + m[1] + "*"
			}
			if strings.HasPrefix(cmd, ":checkhealth") {
				tag = "*ctxd-health*"
			}
			b.WriteString(rightAlign(cmd, tag) + "\n")
			b.WriteString(wrap(strings.Join(cells[1:], " "), "    ") + "\n\n")
		case strings.HasPrefix(l, "!["):
			// A picture, and the paragraph after the pictures that
			// describes them, have no place in a text page.
			flush()
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || strings.HasPrefix(lines[i+1], "![")) {
				i++
			}
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
			}
		case strings.TrimSpace(l) == "":
			flush()
		default:
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
	b.WriteString("vim:tw=78:ts=8:ft=help:norl:\n")
	return b.String()
}

// rightAlign puts tag at the right edge of a helpWidth line after text.
func rightAlign(text, tag string) string {
	if tag == "" {
		return text
	}
	pad := helpWidth - len(text) - len(tag)
	if pad < 1 {
		return text + "\n" + strings.Repeat(" ", helpWidth-len(tag)) + tag
	}
	return text + strings.Repeat(" ", pad) + tag
}

// wrap fills text into lines of at most helpWidth, each starting with
// indent.
func wrap(text, indent string) string {
	var lines []string
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > helpWidth {
			lines = append(lines, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
