package main

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestXMLPromptOfOwnTree is failure 11 of issue 11: `ctxd prompt --format
// xml` on this repository's own tree (Go code full of <, &, backticks and
// XML in strings) is a well-formed document with a single root that
// encoding/xml parses strictly.
func TestXMLPromptOfOwnTree(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCtxd(t, root, "", nil, "prompt", "--json", "--format", "xml", "--budget", "60000",
		"--pattern", "prompt/*.go", "--pattern", "server/stream.go", "--pattern", "cmd/ctxd/format_test.go", "how is the xml prompt rendered")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var env struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(env.Prompt))
	dec.Strict = true
	depth, roots, files := 0, 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("prompt is not well-formed XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			if tk.Name.Local == "file" {
				files++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || files < 3 {
		t.Errorf("%d root elements, %d files", roots, files)
	}
	// Markdown: every fence that opens a code block closes it.
	out, _, code = runCtxd(t, root, "", nil, "prompt", "--budget", "60000", "--pattern", "prompt/*.go", "--pattern", "cmd/ctxd/format_test.go", "how are fences chosen")
	if code != 0 {
		t.Fatal(out)
	}
	open := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case open == "" && strings.HasPrefix(line, "```"):
			open = strings.TrimRight(line, "abcdefghijklmnopqrstuvwxyz")
		case open != "" && line == open:
			open = ""
		}
	}
	if open != "" {
		t.Errorf("a markdown fence %q never closes", open)
	}
}
