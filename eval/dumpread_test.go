package eval

import (
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/google/go-cmp/cmp"
)

// TestReadDump: what dumpCase writes, ReadDump reads back (the offline
// scripts' one reader of the dump).
func TestReadDump(t *testing.T) {
	dir := t.TempDir()
	c := Case{Commit: "0123456789abcdef0123456789abcdef01234567", Request: "fix the parser", Answer: []string{"a.go", "b.go"}}
	a := ctxd.Chunk{Source: "a.go", ChunkType: ctxd.ChunkFile, Content: "package a\n", Truncation: ctxd.ViewFocus, Score: 900, OriginalTokens: 1200,
		Elided: []ctxd.LineRange{{Start: 10, End: 20}}}
	a.Facts.FocusLines = []int{3, 30}
	a.Facts.FocusDefs = []ctxd.DefScore{{Line: 3, Score: 9.82, Why: []string{"parser"}}, {Line: 30, Score: 4.5}}
	a.Tokens = 310
	other := ctxd.Chunk{Source: "c.go", ChunkType: ctxd.ChunkFile, Content: "package c\n", Tokens: 40, OriginalTokens: 40}
	env := &ctxd.Envelope{TaskType: ctxd.TaskDebug, Context: ctxd.CompressedContext{Budget: 6500, Chunks: []ctxd.Chunk{a, other},
		Skipped: []ctxd.Skipped{{Source: "d.go", Reason: "over budget", Tokens: 9000, Score: 12}}}}
	changed := map[string][]int{"a.go": {5, 12, 31}, "b.go": {7}}
	if err := dumpCase(dir, 0, c, 8000, env, changed, []string{"b.go"}, []string{"b.go", "a.go"}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDump(filepath.Join(dir, "01-0123456789ab-8000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Dump{
		Commit:  c.Commit,
		Context: 6500,
		Answers: []DumpAnswer{
			{Path: "a.go", View: string(ctxd.ViewFocus), Seen: []int{5, 31}, Hidden: []int{12}, Whole: 1200, FocusDefs: []DumpDef{{3, 9.82}, {30, 4.5}}},
			{Path: "b.go", View: "-", Hidden: []int{7}, BM25: true},
		},
		Included: []DumpChunk{{Source: "a.go", Tokens: 310, Answer: true}, {Source: "c.go", Tokens: 40}},
		Skipped:  []string{"d.go"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("dump (-want +got):\n%s", d)
	}
}
