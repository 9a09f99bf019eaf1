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

// dumpRes are ReadDump's expressions, compiled on its first call (not at
// every ctxd start: the binary links eval for `ctxd eval`).
var dumpRes = sync.OnceValue(func() [4]*regexp.Regexp {
	return [4]*regexp.Regexp{
		regexp.MustCompile(`^commit ([0-9a-f]+) `),
		regexp.MustCompile(`^  (\S+) rank=\S+ bm25rank=\S+ view=(\S+) bm25=(true|false) seen=\[([0-9 ]*)\] hidden=\[([0-9 ]*)\]`),
		regexp.MustCompile(`^    focus def (\d+) score ([0-9.]+):`),
		regexp.MustCompile(`^    tokens \d+ of (\d+),`),
	}
})

// ReadDump reads back a file dumpCase wrote (`eval recall --dump`): its
// commit and answer files, for the offline scripts (scripts/outside,
// scripts/defrank, scripts/ceiling). The writer and this reader change together
// (TestReadDump writes one and reads it).
func ReadDump(path string) (commit string, answers []DumpAnswer, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	res := dumpRes()
	commitRe, answerRe, defRe, tokensRe := res[0], res[1], res[2], res[3]
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		l := sc.Text()
		if m := commitRe.FindStringSubmatch(l); m != nil && commit == "" {
			commit = m[1]
		} else if m := answerRe.FindStringSubmatch(l); m != nil {
			answers = append(answers, DumpAnswer{Path: m[1], View: m[2], BM25: m[3] == "true", Seen: dumpInts(m[4]), Hidden: dumpInts(m[5])})
		} else if m := tokensRe.FindStringSubmatch(l); m != nil && len(answers) > 0 {
			answers[len(answers)-1].Whole, _ = strconv.Atoi(m[1])
		} else if m := defRe.FindStringSubmatch(l); m != nil && len(answers) > 0 {
			line, _ := strconv.Atoi(m[1])
			score, _ := strconv.ParseFloat(m[2], 64)
			a := &answers[len(answers)-1]
			a.FocusDefs = append(a.FocusDefs, DumpDef{Line: line, Score: score})
		} else if strings.HasPrefix(l, "included") {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return commit, answers, nil
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
