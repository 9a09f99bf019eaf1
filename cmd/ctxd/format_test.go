package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestXMLPromptOfOwnTree is failure 11 of issue 11: `ctxd prompt --format
// xml` on this repository's own tree (Go code full of <, &, backticks and
// XML in strings) is a well-formed document with a single root that
// encoding/xml parses strictly.
func TestXMLPromptOfOwnTree(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
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

// TestPromptOpenFromSubdirectory: `cd sub && ctxd prompt --open file:LINE`
// resolves the file from the current directory.
func TestPromptOpenFromSubdirectory(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	out, errOut, code := runCtxd(t, filepath.Join(dir, "cart"), "", nil, "prompt", "--json", "--open", "cart.go:10", "explain Total")
	if code != 0 || strings.Contains(out+errOut, "no such file") || !strings.Contains(out, `"open": true`) {
		t.Errorf("exit %d:\n%.2000s\n%s", code, out, errOut)
	}
}

// TestPromptOpenUnderRoot: `ctxd prompt --root REPO --open cart/cart.go:10`
// run outside the repository takes the path under the root.
func TestPromptOpenUnderRoot(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	out, errOut, code := runCtxd(t, t.TempDir(), "", nil, "prompt", "--root", dir, "--json", "--open", "cart/cart.go:10", "explain Total")
	if code != 0 || strings.Contains(out+errOut, "outside") || !strings.Contains(out, `"open": true`) {
		t.Errorf("exit %d:\n%.2000s\n%s", code, out, errOut)
	}
}

// TestHelpListsFlags: `ctxd help prompt` prints the command's flags.
func TestHelpListsFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"help", "prompt"}, &IO{In: strings.NewReader(""), Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-budget", "-open", "-format", "-json"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("help prompt lacks %s:\n%s", f, out.String())
		}
	}
}

// TestUnknownModelSaysFallback: an unknown model name says which default
// window it fell back to.
func TestUnknownModelSaysFallback(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	out, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--model", "frobnicator-9", "explain Total")
	if code != 0 || !strings.Contains(out+errOut, `unknown model "frobnicator-9": fell back to the default window of 8192 tokens`) {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
}

// TestPromptExplain: --explain prints on stderr each included chunk with
// its view, tokens and largest score terms, and each skipped one with its
// reason; stdout stays the prompt alone.
func TestPromptExplain(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	dir := testutil.GitRepo(t, sampleRepo)
	out, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--explain", "--budget", "1200", "explain how Total is computed in the cart")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "included:") || !strings.Contains(errOut, "included:") {
		t.Fatalf("explanation not on stderr alone:\nstdout %.300s\nstderr %s", out, errOut)
	}
	js, _, code := runCtxd(t, dir, "", nil, "prompt", "--json", "--budget", "1200", "explain how Total is computed in the cart")
	var env ctxd.Envelope
	if code != 0 || json.Unmarshal([]byte(js), &env) != nil || len(env.Context.Chunks) == 0 {
		t.Fatalf("envelope: exit %d %.300s", code, js)
	}
	for _, c := range env.Context.Chunks {
		if !regexp.MustCompile(`(?m)^\s+\d+\. ` + regexp.QuoteMeta(c.Source) + ` +\d+ tok .*score `).MatchString(errOut) {
			t.Errorf("chunk %s is not explained:\n%s", c.Source, errOut)
		}
	}
	for _, s := range env.Context.Skipped {
		if !strings.Contains(errOut, s.Source) || !strings.Contains(errOut, s.Reason) {
			t.Errorf("skipped %s (%s) is not explained:\n%s", s.Source, s.Reason, errOut)
		}
	}
}
