// Command lexrank prints the lexical ranking of a request over a
// directory (workspace/tree's index), each hit's score split by field
// and its role, for reading why a file ranks where it does.
//
//	go run ./scripts/lexrank DIR "request" [N] [path...]
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: lexrank DIR request [N] [path...]")
		os.Exit(2)
	}
	n := 30
	if len(os.Args) > 3 {
		n, _ = strconv.Atoi(os.Args[3])
	}
	w, err := tree.Open(os.Args[1], tree.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer w.Close()
	q := query.Parse(os.Args[2])
	fmt.Printf("words %q tests %v\n", q.Words, q.AboutTests)
	hits, err := w.Rank(context.Background(), q, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	want := map[string]bool{}
	for _, p := range os.Args[min(4, len(os.Args)):] {
		want[p] = true
	}
	for i, h := range hits {
		if i < n || want[h.Path] {
			m := h.Match
			fmt.Printf("%4d %8.3f path %.2f content %.2f defs %.2f %s %.2f  %s\n", i+1, h.Score, m.Path, m.Content, m.Definitions, m.Role, m.Prior, h.Path)
		}
	}
}
