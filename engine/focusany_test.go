package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestFocusLadderOneWord: a large file told as open, whose definitions
// hold the request's words one at a time ("Add escape logic for the
// header": redirectSlash reads a header, no function escapes anything).
// Without a definition holding two of the words the file had no ladder
// (the first commit touched every function, so no history either) and
// the fitter bought its bodies view, redirectSlash's body collapsed; with
// the definitions holding one word ranked, redirectSlash is focused and
// shown whole within the budget (BENCHMARKS.md "hdefch": the oracle's
// bodies views of open answer files without a ladder).
func TestFocusLadderOneWord(t *testing.T) {
	for _, tc := range []struct {
		lang, path, fn string
		src            string
	}{
		{"go", "pay/router.go", "func redirectSlash(c *Ctx) {",
			"package pay\n\n// Ctx is one request's context.\ntype Ctx struct {\n\tPath string\n\tHeaders map[string]string\n}\n" + filler("go", 30) +
				"\n// redirectSlash redirects a path without its trailing slash.\nfunc redirectSlash(c *Ctx) {\n\tp := c.Path\n\tif prefix := c.Headers[\"X-Forwarded-Prefix\"]; prefix != \"\" {\n\t\tp = prefix + \"/\" + p\n\t}\n\tif len(p) > 1 && p[len(p)-1] == '/' {\n\t\tp = p[:len(p)-1]\n\t}\n\tc.Path = p // header prefix applied\n}\n" +
				strings.ReplaceAll(filler("go", 12), "helper", "mixer")},
		{"python", "pay/router.py", "def redirect_slash(ctx):",
			"\"\"\"Routing.\"\"\"\n" + filler("python", 30) +
				"\n\ndef redirect_slash(ctx):\n    \"\"\"Redirect a path without its trailing slash.\"\"\"\n    p = ctx.path\n    prefix = ctx.headers.get(\"X-Forwarded-Prefix\")\n    if prefix:\n        p = prefix + \"/\" + p\n    if len(p) > 1 and p.endswith(\"/\"):\n        p = p[:-1]\n    ctx.path = p  # header prefix applied\n" +
				strings.ReplaceAll(filler("python", 12), "_helper", "_mixer")},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			checkFunctionShown(t, tc.path, tc.fn, tc.src, "Add escape logic for header")
		})
	}
}

// checkFunctionShown builds a repository holding path (src), tells the
// file as open with request at 2,000 and 3,000 tokens, and fails unless
// the file is placed truncated (else the budget tests nothing) with every
// line of the function whose first line is fn visible.
func checkFunctionShown(t *testing.T, path, fn, src, request string) {
	t.Helper()
	lines := strings.Split(src, "\n")
	first := slices.Index(lines, fn) + 1
	if first == 0 {
		t.Fatal("no such function")
	}
	last := first
	for last < len(lines) && strings.TrimSpace(lines[last]) != "" && lines[last] != "}" {
		last++
	}
	if lines[last] == "}" {
		last++
	}
	checkLinesShown(t, path, fn, last-first+1, src, request)
}
