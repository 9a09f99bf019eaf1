//go:build linux

package proxy_test

import (
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestHarnessRemovesState: scripts/proxyharness.py (the proxy measurement
// scripts' shared part) stops the proxy it started and removes its state
// directory however the script ends: after stopping the proxy itself, on
// an error, on SIGTERM, and when the proxy does not start (215 ctxd-proxy-*
// directories had piled up in /tmp).
func TestHarnessRemovesState(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		// Not testutil.Missing: .ci/run does not install python3 (the
		// scripts are the developers' measurements, not ctxd's).
		t.Skip(testutil.MissingMarker + "python3 is not installed (the proxy measurement scripts need it)")
	}
	scripts, err := filepath.Abs("../scripts")
	if err != nil {
		t.Fatal(err)
	}
	const start = "import sys, time, proxyharness as h\nup, _ = h.start_upstream()\np, _, _ = h.start_proxy(up)\nprint(p.pid, flush=True)\n"
	tests := []struct {
		name   string
		script string
		ctxd   string // $CTXD; "" is the ctxd built for the tests
		term   bool   // send SIGTERM once the script printed the proxy's pid
	}{
		{"stopped", start + "p.terminate(); p.wait()\n", "", false},
		{"error", start + "raise ValueError('a failing measurement')\n", "", false},
		{"sigterm", start + "time.sleep(60)\n", "", true},
		{"no start", start, "/bin/false", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.CommandContext(t.Context(), py, "-c", tt.script)
			cmd.Dir = scripts
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "CTXD="+cmp.Or(tt.ctxd, ctxdBin))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var line [32]byte
			n, _ := out.Read(line[:])
			pid, _ := strconv.Atoi(strings.TrimSpace(string(line[:n])))
			if tt.term {
				if pid == 0 {
					t.Fatalf("no pid printed: %q", line[:n])
				}
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			err = cmd.Wait()
			if tt.name == "stopped" && err != nil {
				t.Errorf("script: %v", err)
			}
			if tt.name != "stopped" && err == nil {
				t.Errorf("script exited 0, want the failure")
			}
			left, _ := filepath.Glob(filepath.Join(tmp, "ctxd-proxy-*"))
			if len(left) > 0 {
				t.Errorf("state directories left: %v", left)
			}
			if pid > 0 {
				// The proxy is the script's child: gone once the script
				// waited for it, whatever stopped the script.
				deadline := time.Now().Add(5 * time.Second)
				for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
					t.Errorf("proxy %d still running (%v)", pid, err)
				}
			}
		})
	}
}
