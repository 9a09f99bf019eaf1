package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestMarkerInStep(t *testing.T) {
	if missingMarker != testutil.MissingMarker || noRaceMarker != testutil.NoRaceMarker || envDriver != testutil.EnvDriver {
		t.Fatalf("markers %q %q %q, testutil's %q %q %q", missingMarker, noRaceMarker, envDriver, testutil.MissingMarker, testutil.NoRaceMarker, testutil.EnvDriver)
	}
}

// stream returns what `go test -json` printed for three packages
// (testdata/stream.jsonl): one with a suite skipped for a missing tool and
// one skipped for -short, one with a failing test, one without tests.
func stream(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name     string
		ci       bool
		goCode   int
		wantCode int
		want     []string // lines that must be there
		not      []string // text that must not
	}{
		{
			name: "local", goCode: 1, wantCode: 1,
			want: []string{
				"ok  \tgithub.com/ctxd/ctxd/editors\t2.5s",
				"    count_test.go:12: got 3, want 4",
				"--- FAIL: TestCount (0.01s)",
				"FAIL\tgithub.com/ctxd/ctxd/tokens\t0.3s",
				"?   \tgithub.com/ctxd/ctxd/internal/memo\t[no test files]",
				"panic: test timed out after 10m0s\nFAIL\tgithub.com/ctxd/ctxd/server\t600.1s",
				"=== summary: 1 packages passed, 2 failed, in 3s",
				"failed: github.com/ctxd/ctxd/tokens github.com/ctxd/ctxd/server",
				"1 tests skipped by design (-short, or development data not on this machine: go test -v shows each)",
				"1 tests ran without -race, in the second pass (testutil.NoRace)",
				"1 suites NOT run because a tool is missing (.ci/run installs them all):",
				"  SKIP editors TestNeovim: nvim is not installed (Neovim 0.7 or newer: apt-get install neovim)",
			},
			not: []string{"=== RUN", "TestOK", "reads the Go standard library", "PASS\n"},
		},
		{
			name: "ci fails on a skipped suite", ci: true, goCode: 0, wantCode: 1,
			want: []string{"FAIL: suites were skipped under CI=true"},
		},
		{
			name: "local passes with the skips listed", goCode: 0, wantCode: 0,
			want: []string{"ok, except the 1 suites above"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s := newSummary(&out)
			s.read(strings.NewReader(stream(t)))
			code := s.print(&out, 3e9, tt.goCode, tt.ci)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d", code, tt.wantCode)
			}
			got := out.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w+"\n") {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("output has %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestTestArgs(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{nil, "-race -timeout=30m ./..."},
		{[]string{"-short"}, "-race -timeout=30m -short ./..."},
		{[]string{"-race=false", "-timeout", "5m", "./tokens"}, "-race=false -timeout 5m ./tokens"},
		{[]string{"-run", "TestX", "./editors/..."}, "-race -timeout=30m -run TestX ./editors/..."},
	}
	for _, tt := range tests {
		if got := strings.Join(testArgs(tt.in), " "); got != tt.want {
			t.Errorf("testArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCIRunsTheReadmeCommand keeps the README's test command and the one
// .ci/run runs the same.
func TestCIRunsTheReadmeCommand(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(readme), "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 2 {
		t.Fatalf("README's first block has %d commands, want 2 (run, test): %q", len(lines), lines)
	}
	if !strings.Contains(string(ci), "\n"+lines[1]+"\n") {
		t.Errorf(".ci/run does not run the README's test command %q", lines[1])
	}
}

func TestNoRaceArgs(t *testing.T) {
	s := newSummary(io.Discard)
	s.read(strings.NewReader(stream(t)))
	got := strings.Join(s.noRaceArgs([]string{"-race", "-short", "-run", "TestX", "-count=1", "./..."}), " ")
	if want := "-short -count=1 -run ^(TestProps)$ github.com/ctxd/ctxd/editors"; got != want {
		t.Errorf("second pass %q, want %q", got, want)
	}
	// A flag's value given apart stays with it (the pass failed with
	// `invalid value "-run" for flag -timeout`).
	got = strings.Join(s.noRaceArgs([]string{"-timeout", "45m", "-count", "1", "-run", "TestX", "./engine"}), " ")
	if want := "-timeout 45m -count 1 -run ^(TestProps)$ github.com/ctxd/ctxd/editors"; got != want {
		t.Errorf("second pass %q, want %q", got, want)
	}
	if s := newSummary(io.Discard); s.noRaceArgs(nil) != nil {
		t.Errorf("a second pass without deferred tests")
	}
}
