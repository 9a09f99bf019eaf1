package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestRunCondenses: ctxd run passes a short output through whole and
// cuts a long one to its head, tail and critical lines (verbatim, with
// their line numbers; repeats folded), storing the whole behind a
// reference that ctxd rehydrate reads back; the exit code is the
// command's, and standard output and error are read together in order.
func TestRunCondenses(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	out, errOut, code := runCtxd(t, dir, "", nil, "run", "--state-dir", state, "--", "sh", "-c", "echo hi; echo there >&2")
	if code != 0 || out != "hi\nthere\n" || errOut != "" {
		t.Errorf("short output: exit %d %q %q", code, out, errOut)
	}
	script := `for i in $(seq 200); do echo "ok   example.com/pkg$i 0.01s"; done
echo "--- FAIL: TestCart (0.00s)"
echo "    cart_test.go:12: got 90, want 85" >&2
for i in $(seq 50); do echo "progress line"; done
exit 3`
	out, errOut, code = runCtxd(t, dir, "", nil, "run", "--state-dir", state, "--session", "s1", "--", "sh", "-c", script)
	if code != 3 {
		t.Errorf("exit %d, want the command's 3 (%s)", code, errOut)
	}
	for _, want := range []string{"ok   example.com/pkg1 0.01s\n", "| --- FAIL: TestCart (0.00s)\n", "|     cart_test.go:12: got 90, want 85\n", "[previous line repeated", "or run: ctxd rehydrate --state-dir " + state + " --session s1 "} {
		if !strings.Contains(out, want) {
			t.Errorf("condensed output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n > 60 {
		t.Errorf("condensed output has %d lines, want at most about 60", n)
	}
	m := regexp.MustCompile(`sha256=([0-9a-f]{16})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no reference in:\n%s", out)
	}
	full, errOut, code := runCtxd(t, dir, "", nil, "rehydrate", "--state-dir", state, "--session", "s1", m[1], "199-202")
	if code != 0 || full != "ok   example.com/pkg199 0.01s\nok   example.com/pkg200 0.01s\n--- FAIL: TestCart (0.00s)\n    cart_test.go:12: got 90, want 85\n" {
		t.Errorf("rehydrate: exit %d %q %s", code, full, errOut)
	}
	if _, errOut, code := runCtxd(t, dir, "", nil, "run", "--", filepath.Join(dir, "no-such-command")); code != 127 || !strings.Contains(errOut, "no-such-command") {
		t.Errorf("missing command: exit %d %q", code, errOut)
	}
	if _, errOut, code := runCtxd(t, dir, "", nil, "run", "echo", "hi"); code != 2 || !strings.Contains(errOut, "want a command after --") {
		t.Errorf("no --: exit %d %q", code, errOut)
	}
}

// TestRunRedacts: with secrets.redact_conversation in the workspace's
// configuration, or --redact-secrets, ctxd run's output (printed whole or
// condensed, and the whole stored behind the reference) carries no
// secret: the request flow's redaction, as compress and the proxy apply
// it. Without either switch the output is the command's, byte for byte.
func TestRunRedacts(t *testing.T) {
	const pat, akid = "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX", "AKIA454ML6LG4TJFCZ4K" // fakes
	echo := "echo token=" + pat + "; echo aws_access_key_id = " + akid
	long := "seq 1 100; " + echo + "; echo '--- FAIL: TestPush'; seq 1 100"
	configured := testutil.GitRepo(t, map[string]string{".ctxd.toml": "[secrets]\nredact_conversation = true\n", "main.go": "package main\n"})
	plain := testutil.GitRepo(t, map[string]string{"main.go": "package main\n"})
	tests := []struct {
		name   string
		dir    string
		flags  []string
		script string
	}{
		{"config, short", configured, nil, echo},
		{"config, long", configured, nil, long},
		{"flag, short", plain, []string{"--redact-secrets"}, echo},
		{"flag, long", plain, []string{"--redact-secrets"}, long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"run", "--lines", "20"}, tt.flags...), "--", "sh", "-c", tt.script)
			out, errOut, code := runCtxd(t, tt.dir, "", nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, s := range []string{pat, akid} {
				if strings.Contains(out, s) || strings.Contains(errOut, s) {
					t.Errorf("%s printed raw:\n%s", s[:4], out)
				}
			}
			if !strings.Contains(errOut, "redacted github-pat") || !strings.Contains(errOut, "redacted aws-access-token") {
				t.Errorf("no redactions on stderr: %s", errOut)
			}
			// The whole output stored behind the reference (the long
			// one's) is the redacted one.
			stored := out
			filepath.WalkDir(filepath.Join(tt.dir, ".ctxd"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					stored += string(b)
				}
				return nil
			})
			if strings.Contains(stored, pat) || strings.Contains(stored, akid) {
				t.Error("a secret stored raw under .ctxd")
			}
			if !strings.Contains(stored, "[REDACTED github-pat]") {
				t.Errorf("no marker printed or stored:\n%s", out)
			}
		})
	}
	out, _, code := runCtxd(t, plain, "", nil, "run", "--", "sh", "-c", echo)
	if code != 0 || !strings.Contains(out, pat) {
		t.Errorf("without a switch: exit %d, output changed: %q", code, out)
	}
}
