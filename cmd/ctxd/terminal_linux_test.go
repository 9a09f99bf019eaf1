package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal and returns its two ends: what the
// process under test reads as a terminal (tty), and the other end.
func openPTY(t *testing.T) (tty, ptm *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlock the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("name the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty, ptm
}

// TestRewriteFromTerminal: ctxd compress and ctxd optimize typed with no
// FILE and no redirect read the terminal and waited, silently; they are a
// usage error naming what to give. A FILE still works with a terminal on
// standard input.
func TestRewriteFromTerminal(t *testing.T) {
	tty, _ := openPTY(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "req.json")
	if err := os.WriteFile(file, []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"compress", "optimize"} {
		for _, args := range [][]string{{name, "--state-dir", dir}, {name, "--state-dir", dir, file}} {
			cmd := exec.Command(binary, args...)
			cmd.Env = append(os.Environ(), "CTXD_CONFIG="+filepath.Join(dir, "none.toml"))
			var out, errOut bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("ctxd %v with a terminal on stdin still waits after 20 s", args)
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if len(args) == 3 {
				want := "ctxd " + name + ": no request: give FILE or pipe one in (< request.json); - reads it from the terminal\n"
				if code != 2 || !bytes.HasPrefix(errOut.Bytes(), []byte(want)) || out.Len() != 0 {
					t.Errorf("ctxd %s at a terminal: exit %d, stdout %q, stderr %q; want exit 2 and %q", name, code, out.String(), errOut.String(), want)
				}
				continue
			}
			if code != 0 || !bytes.Contains(out.Bytes(), []byte(`"hi"`)) {
				t.Errorf("ctxd %s FILE at a terminal: exit %d, stdout %q, stderr %q", name, code, out.String(), errOut.String())
			}
		}
	}
}
