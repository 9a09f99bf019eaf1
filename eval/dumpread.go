package eval

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// DumpAnswer is one answer file of a dump (dumpCase's "answer:" part): its
// view, its changed lines seen and hidden, whether BM25 showed it, its
// whole tokens (0 when it is not in the context), and the focus
// definitions chosen in it with their scores.
type DumpAnswer struct {
	Path, View   string
	Seen, Hidden []int
	BM25         bool
	Whole        int
	FocusDefs    []DumpDef
}

// DumpDef is a focus definition of an answer file: its first line and
// its score.
type DumpDef struct {
	Line  int
	Score float64
}

// Dump is one file dumpCase wrote (`eval recall --dump`): the commit, the
// context budget, the answer files, and the included and skipped chunks.
type Dump struct {
	Commit  string
	Context int // the context part of the budget, in tokens
	Answers []DumpAnswer
	// Included are the context's chunks in score order.
	Included []DumpChunk
	// Skipped are the sources the fitter left out.
	Skipped []string
}

// DumpChunk is an included chunk: its source, its tokens in the context
// and whether it is an answer file's.
type DumpChunk struct {
	Source string
	Tokens int
	Answer bool
}

// dumpRes are ReadDump's expressions, compiled on its first call (not at
// every ctxd start: the binary links eval for `ctxd eval`).
var dumpRes = sync.OnceValue(func() [7]*regexp.Regexp {
	return [7]*regexp.Regexp{
		regexp.MustCompile(`^commit ([0-9a-f]+) `),
		regexp.MustCompile(`^  (\S+) rank=\S+ bm25rank=\S+ view=(\S+) bm25=(true|false) seen=\[([0-9 ]*)\] hidden=\[([0-9 ]*)\]`),
		regexp.MustCompile(`^    focus def (\d+) score ([0-9.]+):`),
		regexp.MustCompile(`^    tokens \d+ of (\d+),`),
		regexp.MustCompile(`^commit \S+  budget \d+ \(context (\d+),`),
		regexp.MustCompile(`^([* ]) (\S+)\s+\S+\s+(\d+)/\d+\s+score`),
		regexp.MustCompile(`^  (\S+)\s+\d+ score `),
	}
})

// ReadDump reads back a file dumpCase wrote, for the offline scripts
// (scripts/outside, scripts/defrank, scripts/ceiling): their one reader of
// the dump. The writer and this reader change together (TestReadDump
// writes one and reads it).
func ReadDump(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res := dumpRes()
	commitRe, answerRe, defRe, tokensRe, headRe, includedRe, skippedRe := res[0], res[1], res[2], res[3], res[4], res[5], res[6]
	d := &Dump{}
	part := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "commit ") && d.Commit == "":
			if m := commitRe.FindStringSubmatch(l); m != nil {
				d.Commit = m[1]
			}
			if m := headRe.FindStringSubmatch(l); m != nil {
				d.Context, _ = strconv.Atoi(m[1])
			}
			continue
		case l == "answer:", l == "included (score order):", l == "skipped:":
			part = l
			continue
		case strings.HasPrefix(l, "bm25 whole files:"):
			part = ""
		}
		switch part {
		case "answer:":
			if m := answerRe.FindStringSubmatch(l); m != nil {
				d.Answers = append(d.Answers, DumpAnswer{Path: m[1], View: m[2], BM25: m[3] == "true", Seen: dumpInts(m[4]), Hidden: dumpInts(m[5])})
			} else if m := tokensRe.FindStringSubmatch(l); m != nil && len(d.Answers) > 0 {
				d.Answers[len(d.Answers)-1].Whole, _ = strconv.Atoi(m[1])
			} else if m := defRe.FindStringSubmatch(l); m != nil && len(d.Answers) > 0 {
				line, _ := strconv.Atoi(m[1])
				score, _ := strconv.ParseFloat(m[2], 64)
				a := &d.Answers[len(d.Answers)-1]
				a.FocusDefs = append(a.FocusDefs, DumpDef{Line: line, Score: score})
			}
		case "included (score order):":
			if m := includedRe.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[3])
				d.Included = append(d.Included, DumpChunk{Source: m[2], Tokens: n, Answer: m[1] == "*"})
			}
		case "skipped:":
			if m := skippedRe.FindStringSubmatch(l); m != nil {
				d.Skipped = append(d.Skipped, m[1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Commit == "" {
		return nil, fmt.Errorf("%s: not a dump of eval recall (no commit line)", path)
	}
	return d, nil
}

func dumpInts(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
