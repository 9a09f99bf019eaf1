//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestParseRecursor: a walk that moves to fresh copies of the tree every
// few nodes (recursorEvery) builds the same nodes and reports the same
// leaves as one that never does, with and without shallow subtrees.
func TestParseRecursor(t *testing.T) {
	type file struct {
		name string
		src  []byte
	}
	var files []file
	for _, in := range goldenInputs(t) {
		files = append(files, file{in.path, in.src})
	}
	// Larger Go files (the smaller one alone under the race detector), and
	// a file with a syntax error (missing and error nodes).
	large := []string{"src/net/http/server.go", "src/unicode/tables.go"}
	if testutil.RaceEnabled || testing.Short() {
		large = large[:1]
	}
	for _, p := range large {
		b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), p))
		if err != nil {
			t.Logf("skipped: %v", err)
			continue
		}
		files = append(files, file{p, b})
	}
	if b, err := os.ReadFile("testdata/golden/server.go"); err == nil {
		files = append(files, file{"broken.go", append(b[:len(b)/2:len(b)/2], []byte("\nfunc (x {\n")...)})
	}
	defer func(v int) { recursorEvery = v }(recursorEvery)
	for _, f := range files {
		lang := Detect(f.name, f.src)
		g, ok := grammarFor(lang)
		if !ok {
			t.Fatalf("%s: no grammar for %q", f.name, lang)
		}
		spec := specs[lang]
		for _, shallow := range []bool{false, true} {
			walk := func(every int) string {
				recursorEvery = every
				var sb strings.Builder
				leaf := func(typ string, start, end int) { fmt.Fprintf(&sb, "L %s %d %d\n", typ, start, end) }
				var sf func(*node) int
				if shallow {
					sf = spec.shallowFunc(f.src)
				}
				root, err := g.parse(context.Background(), f.src, time.Minute, sf, leaf)
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				dumpNode(&sb, root, 0)
				return sb.String()
			}
			want := walk(1 << 30)
			everies := []int{1, 3, 100}
			if len(f.src) > 64<<10 {
				everies = []int{997, 5000} // the path replays are long in flat lists
			}
			for _, every := range everies {
				if got := walk(every); got != want {
					t.Errorf("%s (shallow %v): the walk with a fresh tree every %d nodes differs", f.name, shallow, every)
				}
			}
		}
	}
}

func dumpNode(sb *strings.Builder, n *node, depth int) {
	fmt.Fprintf(sb, "%d %s %q %d %d %v %v %v %d\n", depth, n.typ, n.field, n.start, n.end, n.named, n.missing, n.hasError, n.idx)
	for _, k := range n.kids {
		if k.parent != n {
			sb.WriteString("bad parent\n")
		}
		dumpNode(sb, k, depth+1)
	}
}
