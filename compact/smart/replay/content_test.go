package replay

// Realistic tool output for the corpus generator, from a seeded
// generator: source files, test and build output, compiler errors, panics
// and tracebacks, diffs, repository navigation, noisy and binary-looking
// output. Nothing here is copied from anywhere; it is written to look like
// what agents read.

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g *gen) n(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

var (
	nouns = []string{"server", "parser", "config", "token", "session", "cache", "index", "request", "handler", "router",
		"store", "queue", "worker", "batch", "record", "schema", "stream", "buffer", "client", "limit", "budget", "chunk",
		"window", "report", "metric", "plan", "segment", "artifact", "encoder", "lexer", "node", "graph", "event", "ledger"}
	verbs = []string{"parse", "load", "build", "apply", "resolve", "fetch", "encode", "decode", "flush", "merge", "split",
		"scan", "read", "write", "close", "open", "validate", "render", "count", "score", "emit", "reset", "drain", "sync"}
	adjs = []string{"next", "last", "raw", "full", "partial", "pending", "stale", "fresh", "empty", "total", "max", "min"}
)

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func (g *gen) noun() string { return g.pick(nouns...) }
func (g *gen) verb() string { return g.pick(verbs...) }

// ident returns a camelCase identifier: verbNoun or adjNoun.
func (g *gen) ident(exported bool) string {
	a, b := g.verb(), g.noun()
	if g.r.IntN(3) == 0 {
		a = g.pick(adjs...)
	}
	if exported {
		return title(a) + title(b)
	}
	return a + title(b)
}

// goSource writes a Go file of package pkg with about funcs functions.
func (g *gen) goSource(pkg string, funcs int) string {
	var sb strings.Builder
	typ := title(g.noun())
	fmt.Fprintf(&sb, "// Package %s %ss %ss for the service.\npackage %s\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"fmt\"\n\t\"sync\"\n)\n\n", pkg, g.verb(), g.noun(), pkg)
	fmt.Fprintf(&sb, "// %s holds the state of one %s.\ntype %s struct {\n\tmu      sync.Mutex\n\titems   map[string]int\n\tlimit   int\n\tpending []string\n}\n\n", typ, strings.ToLower(typ), typ)
	fmt.Fprintf(&sb, "var errClosed = errors.New(\"%s: closed\")\n\n", pkg)
	for range funcs {
		name := g.ident(true)
		arg := g.noun()
		fmt.Fprintf(&sb, "// %s %ss the %s and reports how many %ss it saw.\n", name, g.verb(), arg, g.noun())
		fmt.Fprintf(&sb, "func (s *%s) %s(ctx context.Context, %s string) (int, error) {\n", typ, name, arg)
		fmt.Fprintf(&sb, "\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n")
		for range g.n(2, 6) {
			switch g.r.IntN(5) {
			case 0:
				fmt.Fprintf(&sb, "\tif err := ctx.Err(); err != nil {\n\t\treturn 0, fmt.Errorf(\"%s %%s: %%w\", %s, err)\n\t}\n", strings.ToLower(name), arg)
			case 1:
				fmt.Fprintf(&sb, "\tif len(s.pending) >= s.limit {\n\t\treturn len(s.pending), errClosed\n\t}\n")
			case 2:
				fmt.Fprintf(&sb, "\tfor k, v := range s.items {\n\t\tif v > %d {\n\t\t\ts.pending = append(s.pending, k)\n\t\t}\n\t}\n", g.n(1, 99))
			case 3:
				fmt.Fprintf(&sb, "\ts.items[%s] += %d\n", arg, g.n(1, 9))
			default:
				fmt.Fprintf(&sb, "\t%s := %s(%s)\n\t_ = %s\n", g.ident(false), g.pick("strings.TrimSpace", "strings.ToLower", "len", "fmt.Sprint"), arg, g.ident(false))
			}
		}
		fmt.Fprintf(&sb, "\treturn len(s.items), nil\n}\n\n")
	}
	return sb.String()
}

// pySource writes a Python module.
func (g *gen) pySource(funcs int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\"\"\"%s %ss.\"\"\"\n\nimport json\nimport logging\nfrom dataclasses import dataclass, field\n\nlog = logging.getLogger(__name__)\n\n\n@dataclass\nclass %s:\n    name: str\n    items: dict = field(default_factory=dict)\n    limit: int = %d\n\n", title(g.noun()), g.verb(), title(g.noun()), g.n(8, 512))
	for range funcs {
		fmt.Fprintf(&sb, "    def %s_%s(self, %s):\n", g.verb(), g.noun(), g.noun())
		for range g.n(2, 5) {
			switch g.r.IntN(3) {
			case 0:
				fmt.Fprintf(&sb, "        if len(self.items) > self.limit:\n            raise ValueError(\"%s over limit\")\n", g.noun())
			case 1:
				fmt.Fprintf(&sb, "        log.debug(\"%s %%s\", self.name)\n", g.verb())
			default:
				fmt.Fprintf(&sb, "        self.items[%q] = json.dumps(self.items)\n", g.noun())
			}
		}
		fmt.Fprintf(&sb, "        return len(self.items)\n\n")
	}
	return sb.String()
}

// lines numbers a file's lines as a read tool shows them ("  12\tcode").
func numbered(src string) string {
	var sb strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		fmt.Fprintf(&sb, "%6d\t%s\n", i+1, l)
	}
	return sb.String()
}

// testRun is go test -v output for tests; failing maps a test to its
// failure line ("parser_test.go:41: got 3, want 4").
func (g *gen) goTest(pkg string, tests []string, failing map[string]string) string {
	var sb strings.Builder
	for _, t := range tests {
		fmt.Fprintf(&sb, "=== RUN   %s\n", t)
		if f, ok := failing[t]; ok {
			fmt.Fprintf(&sb, "    %s\n--- FAIL: %s (0.%02ds)\n", f, t, g.n(0, 40))
		} else {
			fmt.Fprintf(&sb, "--- PASS: %s (0.%02ds)\n", t, g.n(0, 9))
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(&sb, "FAIL\nFAIL\t%s\t%d.%03ds\nFAIL\n", pkg, g.n(0, 2), g.n(0, 999))
	} else {
		fmt.Fprintf(&sb, "PASS\nok  \t%s\t%d.%03ds\n", pkg, g.n(0, 2), g.n(0, 999))
	}
	return sb.String()
}

func (g *gen) testNames(n int) []string {
	var ts []string
	for range n {
		ts = append(ts, "Test"+g.ident(true)+g.pick("", "_Empty", "_Large", "_Concurrent", "_Error"))
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// goBuildErrors is go build output with compiler errors.
func goBuildErrors(pkg string, errs []string) string {
	return "# " + pkg + "\n" + strings.Join(errs, "\n") + "\n"
}

// goPanic is a panic with a goroutine trace through frames.
func (g *gen) goPanic(msg string, frames []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "panic: %s\n\ngoroutine %d [running]:\n", msg, g.n(1, 40))
	for _, f := range frames {
		fn, loc, _ := strings.Cut(f, "@")
		fmt.Fprintf(&sb, "%s(...)\n\t%s +0x%x\n", fn, loc, g.n(16, 900))
	}
	fmt.Fprintf(&sb, "exit status 2\n")
	return sb.String()
}

// pyTraceback is a Python traceback ending in err.
func (g *gen) pyTraceback(frames []string, err string) string {
	var sb strings.Builder
	sb.WriteString("Traceback (most recent call last):\n")
	for _, f := range frames {
		file, rest, _ := strings.Cut(f, ":")
		line, fn, _ := strings.Cut(rest, ":")
		fmt.Fprintf(&sb, "  File \"%s\", line %s, in %s\n    %s = self.%s_%s(%s)\n", file, line, fn, g.noun(), g.verb(), g.noun(), g.noun())
	}
	sb.WriteString(err + "\n")
	return sb.String()
}

// pytest is pytest output with failures.
func (g *gen) pytest(files []string, failing map[string]string) string {
	var sb strings.Builder
	total, failed := 0, 0
	fmt.Fprintf(&sb, "============================= test session starts ==============================\nplatform linux -- Python 3.12.%d, pytest-8.%d.0, pluggy-1.5.0\nrootdir: /work/app\ncollected %d items\n\n", g.n(0, 4), g.n(0, 3), len(files)*8)
	for _, f := range files {
		marks := []byte(strings.Repeat(".", 8))
		for k := range failing {
			if strings.HasPrefix(k, f) {
				marks[g.n(0, 7)] = 'F'
			}
		}
		total += 8
		failed += strings.Count(string(marks), "F")
		fmt.Fprintf(&sb, "%s %s %*s[%3d%%]\n", f, marks, 60-len(f)-len(marks), "", total*100/(len(files)*8))
	}
	if len(failing) > 0 {
		sb.WriteString("\n=================================== FAILURES ===================================\n")
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range failing {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			fmt.Fprintf(&sb, "____________________________ %s ____________________________\n\n    def %s():\n>       assert %s\nE       %s\n\n%s: AssertionError\n", k, k[strings.LastIndex(k, ":")+1:], g.noun(), failing[k], strings.Split(k, "::")[0]+":"+fmt.Sprint(g.n(10, 200)))
		}
		sb.WriteString("=========================== short test summary info ============================\n")
		for _, k := range keys {
			fmt.Fprintf(&sb, "FAILED %s - %s\n", k, failing[k])
		}
	}
	fmt.Fprintf(&sb, "========================= %d failed, %d passed in %d.%02ds =========================\n", failed, total-failed, g.n(0, 9), g.n(0, 99))
	return sb.String()
}

// gitDiff writes a unified diff of a file: hunks that change a few lines
// of src.
func (g *gen) gitDiff(path, src string, hunks int) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	var sb strings.Builder
	fmt.Fprintf(&sb, "diff --git a/%s b/%s\nindex %07x..%07x 100644\n--- a/%s\n+++ b/%s\n", path, path, g.r.Uint32()>>4, g.r.Uint32()>>4, path, path)
	step := max(len(lines)/(hunks+1), 8)
	for h := 1; h <= hunks && h*step+6 < len(lines); h++ {
		at := h * step
		del := g.n(1, 3)
		add := g.n(1, 5)
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@ func %s\n", at-2, 3+del+3, at-2, 3+add+3, g.ident(true))
		for _, l := range lines[at-3 : at] {
			sb.WriteString(" " + l + "\n")
		}
		for _, l := range lines[at : at+del] {
			sb.WriteString("-" + l + "\n")
		}
		for range add {
			fmt.Fprintf(&sb, "+\t%s := s.%s(ctx, %s)\n", g.ident(false), g.ident(true), g.noun())
		}
		for _, l := range lines[at+del : at+del+3] {
			sb.WriteString(" " + l + "\n")
		}
	}
	return sb.String()
}

// gitStatus is git status output.
func gitStatus(branch string, modified, untracked []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "On branch %s\nYour branch is up to date with 'origin/%s'.\n\nChanges not staged for commit:\n  (use \"git add <file>...\" to update what will be committed)\n  (use \"git restore <file>...\" to discard changes in working directory)\n", branch, branch)
	for _, m := range modified {
		fmt.Fprintf(&sb, "\tmodified:   %s\n", m)
	}
	if len(untracked) > 0 {
		sb.WriteString("\nUntracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n")
		for _, u := range untracked {
			fmt.Fprintf(&sb, "\t%s\n", u)
		}
	}
	sb.WriteString("\nno changes added to commit (use \"git add\" and/or \"git commit -a\")\n")
	return sb.String()
}

// grep is grep -rn output: hits in files.
func (g *gen) grep(word string, files []string, hits int) string {
	var sb strings.Builder
	for range hits {
		f := files[g.r.IntN(len(files))]
		fmt.Fprintf(&sb, "%s:%d:\t%s := s.%s(ctx, %s) // %s\n", f, g.n(3, 400), g.ident(false), word, g.noun(), g.verb())
	}
	return sb.String()
}

// tree lists a repository's files like find . -type f.
func tree(files []string) string {
	s := slices.Clone(files)
	slices.Sort(s)
	return "./" + strings.Join(s, "\n./") + "\n"
}

// lsLong is ls -la output.
func (g *gen) lsLong(names []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "total %d\ndrwxr-xr-x  %d dev dev  4096 Mar  3 10:12 .\ndrwxr-xr-x  9 dev dev  4096 Mar  3 09:58 ..\n", g.n(40, 400), len(names)+2)
	for _, n := range names {
		fmt.Fprintf(&sb, "-rw-r--r--  1 dev dev %5d Mar  %d %02d:%02d %s\n", g.n(200, 40000), g.n(1, 3), g.n(8, 18), g.n(0, 59), n)
	}
	return sb.String()
}

// npmBuild is a webpack/tsc build with colours, progress redraws and
// repeated warnings; errs are TypeScript errors at the end.
func (g *gen) npmBuild(modules int, errs []string) string {
	var sb strings.Builder
	sb.WriteString("\x1b[1m> app@1.4.2 build\x1b[22m\n\x1b[1m> tsc -p . && webpack --mode production\x1b[22m\n\n")
	for i := range modules {
		fmt.Fprintf(&sb, "\x1b[2K\x1b[1G\x1b[36m[webpack]\x1b[39m %3d%% building %d/%d modules %d active \x1b[90m./src/%s/%s.ts\x1b[39m\r", i*100/modules, i, modules, g.n(1, 4), g.noun(), g.ident(false))
		if i%10 == 9 {
			sb.WriteString("\n")
		}
	}
	sb.WriteString("\n")
	for range g.n(6, 14) {
		sb.WriteString("\x1b[33mWARNING\x1b[39m in asset size limit: The following asset(s) exceed the recommended size limit (244 KiB).\n")
	}
	for _, e := range errs {
		fmt.Fprintf(&sb, "\x1b[31mERROR\x1b[39m in %s\n", e)
	}
	if len(errs) == 0 {
		fmt.Fprintf(&sb, "webpack 5.9%d.0 compiled \x1b[32msuccessfully\x1b[39m in %d ms\n", g.n(0, 9), g.n(800, 9000))
	} else {
		fmt.Fprintf(&sb, "webpack 5.9%d.0 compiled with \x1b[31m%d errors\x1b[39m in %d ms\nnpm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n", g.n(0, 9), len(errs), g.n(800, 9000))
	}
	return sb.String()
}

// base64File is `base64 FILE` output of n random bytes (76-column lines).
func (g *gen) base64File(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	for len(enc) > 76 {
		sb.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	sb.WriteString(enc + "\n")
	return sb.String()
}

// hexdump is xxd output of n random bytes.
func (g *gen) hexdump(n int) string {
	var sb strings.Builder
	for off := 0; off < n; off += 16 {
		fmt.Fprintf(&sb, "%08x: ", off)
		var ascii []byte
		for i := range 8 {
			a, b := byte(g.r.UintN(256)), byte(g.r.UintN(256))
			fmt.Fprintf(&sb, "%02x%02x", a, b)
			if i < 7 {
				sb.WriteByte(' ')
			}
			for _, c := range []byte{a, b} {
				if c >= 32 && c < 127 {
					ascii = append(ascii, c)
				} else {
					ascii = append(ascii, '.')
				}
			}
		}
		fmt.Fprintf(&sb, "  %s\n", ascii)
	}
	return sb.String()
}

// dockerLogs is container log output with timestamps and repeated health
// checks.
func (g *gen) dockerLogs(lines int, errLine string) string {
	var sb strings.Builder
	for i := range lines {
		ts := fmt.Sprintf("2026-03-03T10:%02d:%02d.%03dZ", i/60%60, i%60, g.n(0, 999))
		switch {
		case i%4 == 0:
			fmt.Fprintf(&sb, "%s INFO  health check ok\n", ts)
		case i == lines*2/3 && errLine != "":
			fmt.Fprintf(&sb, "%s ERROR %s\n", ts, errLine)
		default:
			fmt.Fprintf(&sb, "%s INFO  %s %s in %dms (status=200)\n", ts, g.verb(), g.noun(), g.n(1, 90))
		}
	}
	return sb.String()
}
