// Command test runs ctxd's whole test suite and ends with a summary that
// names every suite skipped because a tool it needs is not installed, so
// an `ok` never hides an untested editor plugin or interop client.
//
//	go run ./scripts/test                 # what README.md and .ci/run run
//	go run ./scripts/test ./editors/...   # some packages
//	go run ./scripts/test -short          # flags go to go test
//
// It runs `go test -race -json` with the given flags and packages, prints
// what plain `go test` prints (the ok/FAIL line of each package, the
// output of failed tests, build errors), then the summary. Under CI=true a
// skipped suite fails the run (the tests themselves fail then too: see
// testutil.Missing). The exit code is go test's, or 1 when CI skipped a
// suite.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"
)

// missingMarker, noRaceMarker and envDriver are testutil's
// MissingMarker, NoRaceMarker and EnvDriver (scripts/ does not import test
// helpers; TestMarkerInStep keeps them equal).
const (
	missingMarker = "[missing tool] "
	noRaceMarker  = "[norace] "
	envDriver     = "CTXD_TEST_DRIVER"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	s := newSummary(stdout)
	code := goTest(testArgs(args), s, stderr)
	// The second pass: the tests testutil.NoRace deferred, without -race.
	if again := s.noRaceArgs(args); again != nil {
		fmt.Fprintf(stdout, "\n=== again without -race (single-goroutine tests; -race finds nothing there): %d tests\n", len(s.noRace))
		if c := goTest(again, s, stderr); c != 0 && code == 0 {
			code = c
		}
	}
	return s.print(stdout, time.Since(start), code, os.Getenv("CI") == "true")
}

// goTest runs go test -json with args, feeding its events to s, and
// returns its exit code.
func goTest(args []string, s *summary, stderr io.Writer) int {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Env = append(os.Environ(), envDriver+"=1")
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "test:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "test:", err)
		return 1
	}
	s.read(out)
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// noRaceArgs returns the arguments of the second pass: the caller's
// flags (and their values: -timeout 45m) without -race and -run, a -run
// naming the deferred tests, and their packages; nil when no test was
// deferred.
func (s *summary) noRaceArgs(args []string) []string {
	if len(s.noRace) == 0 {
		return nil
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "-race"), strings.HasPrefix(a, "-run="):
		case a == "-run":
			i++ // and its value
		case strings.HasPrefix(a, "-"), !isPackage(a):
			out = append(out, a)
		}
	}
	names, pkgs := map[string]bool{}, map[string]bool{}
	for _, sk := range s.noRace {
		names[sk.test] = true
		pkgs[sk.pkg] = true
	}
	out = append(out, "-run", "^("+strings.Join(sortedKeys(names), "|")+")$")
	return append(out, sortedKeys(pkgs)...)
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// isPackage reports an argument that names packages (./..., a path with
// a slash); any other that is no flag is the value of the flag before it.
func isPackage(a string) bool {
	return !strings.HasPrefix(a, "-") && (strings.HasPrefix(a, ".") || strings.Contains(a, "/"))
}

// testArgs puts -race and ./... in front of the caller's flags and
// packages unless the caller chose otherwise (-race=false, or named
// packages).
func testArgs(args []string) []string {
	race, pkgs := true, false
	for _, a := range args {
		if strings.HasPrefix(a, "-race") {
			race = false // the caller's own -race or -race=false decides
		}
		if isPackage(a) {
			pkgs = true
		}
	}
	var out []string
	if race {
		out = append(out, "-race")
	}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-timeout") }) {
		// go test's 10 minutes per package is cmd/ctxd's time under
		// -race on a loaded machine; a hang still ends.
		out = append(out, "-timeout=30m")
	}
	out = append(out, args...)
	if !pkgs {
		out = append(out, "./...")
	}
	return out
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output events
}

// skip is one skipped test and the reason it gave.
type skip struct {
	pkg, test, reason string
}

type summary struct {
	w io.Writer
	// output holds each running test's lines until it ends: printed if it
	// fails, searched for the reason if it skips.
	output map[string][]string
	// missing are the tests skipped for a missing tool; noRace those
	// deferred to the pass without -race; others the rest (-short,
	// development data not on this machine).
	missing, noRace, others []skip
	passed, failed          []string
	elapsed                 map[string]float64
}

func newSummary(w io.Writer) *summary {
	return &summary{w: w, output: map[string][]string{}, elapsed: map[string]float64{}}
}

// read consumes the JSON stream, printing what plain go test would.
func (s *summary) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(s.w, "%s\n", line) // not JSON: pass it through
			continue
		}
		s.event(e)
	}
}

func (s *summary) event(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.w, e.Output)
	case e.Test == "":
		// Package-level lines: the ok/FAIL/? line and anything printed
		// outside a test (a panic in TestMain, a timeout), which go test
		// prints too; the PASS/FAIL line before ok/FAIL it does not.
		if e.Action == "fail" || strings.HasPrefix(e.Output, "FAIL") {
			// Tests that never ended (the binary timed out, panicked or
			// was killed): their output is the reason, print it first.
			for _, k := range sortedKeys(s.unfinished(e.Package)) {
				s.printTest(k)
			}
		}
		if e.Action == "output" && e.Output != "PASS\n" && e.Output != "FAIL\n" {
			fmt.Fprint(s.w, e.Output)
		}
		switch e.Action {
		case "pass":
			if !slices.Contains(s.passed, e.Package) && !slices.Contains(s.failed, e.Package) {
				s.passed = append(s.passed, e.Package)
			}
			s.elapsed[e.Package] += e.Elapsed
		case "fail":
			s.passed = slices.DeleteFunc(s.passed, func(p string) bool { return p == e.Package })
			if !slices.Contains(s.failed, e.Package) {
				s.failed = append(s.failed, e.Package)
			}
			s.elapsed[e.Package] += e.Elapsed
		}
	case e.Action == "output":
		s.output[key] = append(s.output[key], e.Output)
	case e.Action == "fail":
		s.printTest(key)
	case e.Action == "skip":
		sk := skip{pkg: e.Package, test: e.Test, reason: reason(s.output[key])}
		if r, ok := strings.CutPrefix(sk.reason, missingMarker); ok {
			sk.reason = r
			s.missing = append(s.missing, sk)
		} else if strings.HasPrefix(sk.reason, noRaceMarker) {
			s.noRace = append(s.noRace, sk)
		} else {
			s.others = append(s.others, sk)
		}
		delete(s.output, key)
	case e.Action == "pass":
		delete(s.output, key)
	}
}

// printTest prints a test's output as go test does for a failure, and
// forgets it.
func (s *summary) printTest(key string) {
	for _, l := range s.output[key] {
		if !strings.HasPrefix(l, "=== ") { // RUN, PAUSE, CONT: -v only
			fmt.Fprint(s.w, l)
		}
	}
	delete(s.output, key)
}

// unfinished returns the keys of pkg's tests with output and no end.
func (s *summary) unfinished(pkg string) map[string]bool {
	ks := map[string]bool{}
	for k := range s.output {
		if strings.HasPrefix(k, pkg+" ") {
			ks[k] = true
		}
	}
	return ks
}

// reason is the message a skipped test logged: its last line that is not
// go test's own (=== RUN, --- SKIP), without the file:line prefix.
func reason(lines []string) string {
	r := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			t = t[i+2:]
		}
		if strings.HasPrefix(t, missingMarker) || strings.HasPrefix(t, noRaceMarker) || !strings.HasPrefix(r, missingMarker) && !strings.HasPrefix(r, noRaceMarker) {
			r = t
		}
	}
	return r
}

// print writes the summary and returns the exit code.
func (s *summary) print(w io.Writer, took time.Duration, code int, ci bool) int {
	fmt.Fprintf(w, "\n=== summary: %d packages passed, %d failed, in %s\n", len(s.passed), len(s.failed), took.Round(time.Second))
	if len(s.failed) > 0 {
		fmt.Fprintf(w, "failed: %s\n", strings.Join(s.failed, " "))
	}
	slow := append(append([]string(nil), s.passed...), s.failed...)
	sort.Slice(slow, func(i, j int) bool { return s.elapsed[slow[i]] > s.elapsed[slow[j]] })
	if len(slow) > 5 {
		slow = slow[:5]
	}
	if len(slow) > 0 {
		fmt.Fprint(w, "slowest:")
		for _, p := range slow {
			fmt.Fprintf(w, " %s %.1fs;", strings.TrimPrefix(p, "github.com/ctxd/ctxd/"), s.elapsed[p])
		}
		fmt.Fprintln(w)
	}
	if len(s.noRace) > 0 {
		fmt.Fprintf(w, "%d tests ran without -race, in the second pass (testutil.NoRace)\n", len(s.noRace))
	}
	if len(s.others) > 0 {
		fmt.Fprintf(w, "%d tests skipped by design (-short, or development data not on this machine: go test -v shows each)\n", len(s.others))
	}
	if len(s.missing) == 0 {
		fmt.Fprintln(w, "no suite skipped for a missing tool")
		if code != 0 {
			fmt.Fprintln(w, "FAIL")
		} else {
			fmt.Fprintln(w, "ok")
		}
		return code
	}
	fmt.Fprintf(w, "%d suites NOT run because a tool is missing (.ci/run installs them all):\n", len(s.missing))
	for _, m := range s.missing {
		fmt.Fprintf(w, "  SKIP %s %s: %s\n", strings.TrimPrefix(m.pkg, "github.com/ctxd/ctxd/"), m.test, m.reason)
	}
	if ci {
		fmt.Fprintln(w, "FAIL: suites were skipped under CI=true")
		if code == 0 {
			code = 1
		}
		return code
	}
	if code != 0 {
		fmt.Fprintln(w, "FAIL")
	} else {
		fmt.Fprintf(w, "ok, except the %d suites above\n", len(s.missing))
	}
	return code
}
