package engine

import (
	"fmt"
	"strings"
	"testing"
)

// TestFocusLadderNamedWord: a large file told as open, where the
// function the request's word names (content for "default chunk size for
// .content much bigger", requests 62d2ea8) holds that word alone, and a
// dozen other functions hold it too (too many for tree.RankAny), two of
// them beside the request's other words (iter_content: chunk, size).
// Without the name rule the function was in no ladder step and the views
// collapsed its body; with it (tree.DefTerms.RankNamed, byName) it joins
// the ladder and its body is shown within the budget (BENCHMARKS.md
// "hdefin").
func TestFocusLadderNamedWord(t *testing.T) {
	var users strings.Builder
	for i := range 6 {
		fmt.Fprintf(&users, "\n    def read%d(self):\n        \"\"\"Read part %d.\"\"\"\n        data = self.raw.read(%d)\n        self._content_seen = True\n        return data\n", i, i, 100+i)
	}
	goUsers := strings.Builder{}
	for i := range 6 {
		fmt.Fprintf(&goUsers, "\n// read%d reads part %d.\nfunc (r *Response) read%d() []byte {\n\tdata := r.raw.Read(%d)\n\tr.contentSeen = true\n\treturn data\n}\n", i, i, i, 100+i)
	}
	for _, tc := range []struct {
		lang, path, fn string
		src            string
	}{
		{"python", "web/models.py", "    def content(self):",
			"\"\"\"Models.\"\"\"\n" + filler("python", 30) +
				"\n\n\nclass Response:\n    \"\"\"A response.\"\"\"\n\n    def iter_content(self, chunk_size=1):\n        \"\"\"Iterate over the content in chunks of chunk_size.\"\"\"\n        while True:\n            chunk = self.raw.read(chunk_size)\n            if not chunk:\n                break\n            yield chunk\n\n    def iter_lines(self, chunk_size=512):\n        \"\"\"Iterate over the content's lines, reading chunk_size at a time.\"\"\"\n        for chunk in self.iter_content(chunk_size):\n            yield from chunk.splitlines()\n" +
				users.String() +
				"\n    def content(self):\n        \"\"\"The body as bytes.\"\"\"\n        if self._content is None:\n            parts = list(self.iter_content())\n            self._content = b\"\".join(parts)\n        return self._content\n" +
				strings.ReplaceAll(filler("python", 12), "_helper", "_mixer")},
		{"go", "web/models.go", "func (r *Response) Content() []byte {",
			"package web\n\n// Response is a response.\ntype Response struct {\n\traw         Reader\n\tcontent     []byte\n\tcontentSeen bool\n}\n" + filler("go", 30) +
				"\n// IterContent calls fn with the content in chunks of chunkSize.\nfunc (r *Response) IterContent(chunkSize int, fn func([]byte)) {\n\tfor {\n\t\tchunk := r.raw.Read(chunkSize)\n\t\tif len(chunk) == 0 {\n\t\t\treturn\n\t\t}\n\t\tfn(chunk)\n\t}\n}\n" +
				"\n// IterLines calls fn with the content's lines, reading chunkSize at a time.\nfunc (r *Response) IterLines(chunkSize int, fn func([]byte)) {\n\tr.IterContent(chunkSize, func(chunk []byte) {\n\t\tfor _, l := range splitLines(chunk) {\n\t\t\tfn(l)\n\t\t}\n\t})\n}\n" +
				goUsers.String() +
				"\n// Content returns the body as bytes.\nfunc (r *Response) Content() []byte {\n\tif r.content == nil {\n\t\tvar parts []byte\n\t\tr.IterContent(1, func(p []byte) { parts = append(parts, p...) })\n\t\tr.content = parts\n\t}\n\treturn r.content\n}\n" +
				strings.ReplaceAll(filler("go", 12), "helper", "mixer")},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			checkFunctionShown(t, tc.path, tc.fn, tc.src, "default chunk size for .content much bigger")
		})
	}
}
