package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// runCtxdTimeout is runCtxd with a deadline (none when d is 0), for a
// command that serves until it is stopped when it does not fail (the
// proxy): it returns the exit code, or -1 when the deadline stopped it.
func runCtxdTimeout(t *testing.T, dir, stdin string, env []string, d time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx := context.Background()
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CTXD_CONFIG="+filepath.Join(t.TempDir(), "none.toml"), "CTXD_STATE_DIR=",
		"CTXD_SMART_CONTEXT_SHADOW=", "CTXD_SMART_CONTEXT_CANARY_PERCENT=")
	cmd.Env = append(cmd.Env, env...) // a CTXD_CONFIG here wins: the last value of a name
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), errOut.String(), -1
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestBadConfigRefusedEveryCommand: a configuration file that does not
// load stops every command that reads it, naming the file, the line and
// the key, as ctxd config and ctxd prompt do. The proxy started with it
// (and went on without its context_window and
// secrets.redact_conversation), compress and optimize rewrote without
// it, all saying nothing.
func TestBadConfigRefusedEveryCommand(t *testing.T) {
	repo := testutil.GitRepo(t, sampleRepo)
	request := `{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}`
	for _, cfg := range []struct{ name, text, want string }{
		{"bad value", "model = 5\n", `:1: key "model": cannot decode TOML integer (want string)`},
		{"typo", "[secrets]\nredact_conversaton = true\n", `:2: key "secrets.redact_conversaton": unknown key (did you mean redact_conversation?)`},
	} {
		file := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(file, []byte(cfg.text), 0o644); err != nil {
			t.Fatal(err)
		}
		env := []string{"CTXD_CONFIG=" + file}
		for _, c := range []struct {
			name  string
			stdin string
			args  []string
		}{
			{"config", "", []string{"config"}},
			{"prompt", "", []string{"prompt", "fix Total"}},
			{"proxy", "", []string{"proxy", "--upstream", "http://127.0.0.1:9", "--listen", "127.0.0.1:0"}},
			{"compress", request, []string{"compress"}},
			{"optimize", request, []string{"optimize"}},
		} {
			t.Run(cfg.name+"/"+c.name, func(t *testing.T) {
				out, errOut, code := runCtxdTimeout(t, repo, c.stdin, env, 30*time.Second, c.args...)
				if code != 1 || !strings.Contains(errOut, file+cfg.want) {
					t.Errorf("ctxd %s: exit %d, stderr %q; want exit 1 and %q", strings.Join(c.args, " "), code, errOut, file+cfg.want)
				}
				if out != "" {
					t.Errorf("stdout %q, want nothing", out)
				}
			})
		}
	}
}

// TestEvalRecallRepoMistakes: a --repo eval recall cannot replay is a
// usage error saying why. Each was git's message: "git log in DIR: exit
// status 128: fatal: not a git repository (or any of the parent
// directories): .git", exit 1 (and three lines for a repository without
// a commit).
func TestEvalRecallRepoMistakes(t *testing.T) {
	plain := t.TempDir()
	empty := t.TempDir()
	testutil.GitInit(t, empty)
	file := filepath.Join(plain, "notes.txt")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runFailures(t, plain, []cliFailure{
		{"missing", []string{"eval", "recall", "--repo", filepath.Join(plain, "nosuch"), "--commits", "1"}, 2, "nosuch: no such directory"},
		{"a file", []string{"eval", "recall", "--repo", file, "--commits", "1"}, 2, "notes.txt: not a directory"},
		{"not git", []string{"eval", "recall", "--repo", plain, "--commits", "1"}, 2, plain + ": not a git repository (eval recall replays the commits of a repository's history)"},
		{"no commit", []string{"eval", "recall", "--repo", empty, "--commits", "1"}, 2, empty + ": the repository has no commit to replay"},
	})
}

// TestOpenFileOverSizeCap: a file the user opens that is over the size
// cap is skipped with the setting that raises the cap, as ctxd tokens
// and pack say it; the warning named the cap alone.
func TestOpenFileOverSizeCap(t *testing.T) {
	dir := testutil.GitRepo(t, map[string]string{
		".ctxd.toml": "[gather]\nmax_file_bytes = 4096\n",
		"a.go":       "package a\n",
		"big.go":     "package a\n\n" + strings.Repeat("var x = 1\n", 500),
	})
	for _, args := range [][]string{
		{"prompt", "--open", "big.go:100", "fix x"},
		{"prompt", "--pattern", "big.go", "fix x"},
	} {
		out, errOut, code := runCtxd(t, dir, "", nil, args...)
		want := "ctxd: skipped big.go: over the size cap (5011 bytes, the cap 4096): raise gather.max_file_bytes in .ctxd.toml to read it\n"
		if code != 0 || !strings.Contains(errOut, want) || !strings.Contains(out, "## Request") {
			t.Errorf("ctxd %s: exit %d, stderr %q; want exit 0, a prompt and %q", strings.Join(args, " "), code, errOut, want)
		}
	}
}

// TestPromptEmptyWorkspace: a prompt in a workspace with no file to read
// (an empty directory, a wrong --root, everything ignored) says so; it
// printed the request under an empty tree and nothing on stderr.
func TestPromptEmptyWorkspace(t *testing.T) {
	empty := t.TempDir()
	ignored := testutil.GitRepo(t, map[string]string{".gitignore": "*\n", "a.go": "package a\n"})
	full := testutil.GitRepo(t, sampleRepo)
	for _, tc := range []struct {
		name string
		args []string
		warn bool
	}{
		{"empty directory", []string{"prompt", "--root", empty, "fix the login bug"}, true},
		{"every file ignored", []string{"prompt", "--root", ignored, "fix the login bug"}, true},
		{"a repository", []string{"prompt", "--root", full, "fix the login bug"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, t.TempDir(), "", nil, tc.args...)
			got := strings.Contains(errOut, "has no file to read (empty, or every file ignored): the prompt holds no code")
			if code != 0 || got != tc.warn || !strings.Contains(out, "fix the login bug") {
				t.Errorf("exit %d, warned %v (want %v), stderr %q", code, got, tc.warn, errOut)
			}
		})
	}
}

// TestPromptBinaryStdin: REQUEST '-' refuses standard input that is
// binary (a core dump or an archive redirected by mistake was a request
// of thousands of tokens of noise); a log with colour codes is text.
func TestPromptBinaryStdin(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	binaryIn := "\x7fELF\x02\x01\x01\x00\x00\x00" + strings.Repeat("\x00\x01\x02\xff", 100)
	out, errOut, code := runCtxd(t, dir, binaryIn, nil, "prompt", "-")
	want := "ctxd prompt: standard input is binary (410 bytes), not text: REQUEST '-' reads the task as text, such as an error log\n"
	if code != 2 || !strings.HasPrefix(errOut, want) || out != "" {
		t.Errorf("binary stdin: exit %d, stdout %d bytes, stderr %q; want exit 2 and %q", code, len(out), errOut, want)
	}
	log := "--- FAIL: TestTotal (0.00s)\n    \x1b[31mcart_test.go:7: got 1\x1b[0m\n"
	out, errOut, code = runCtxd(t, dir, log, nil, "prompt", "-")
	if code != 0 || !strings.Contains(out, "cart_test.go:7") {
		t.Errorf("a coloured log: exit %d, stderr %q, stdout without the log:\n%s", code, errOut, out)
	}
}

// TestPromptNamesSecretFile: a request that names a secret file of the
// workspace ("the password in .env") is told how to include it: a
// mention never gathers one, and the prompt came without it, silent. An
// opened one is in the context and not warned of; a name no file has
// is not either.
func TestPromptNamesSecretFile(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo) // .env holds API_KEY
	warn := "ctxd: the request names .env, a secret file, which a mention does not gather: opening it reads it (--open .env, or open_files; values a secret rule matches are redacted)\n"
	// A nested dotfile, named as a location, absolute or with Windows'
	// separator: the request's file names are query's (FileNames).
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", ".npmrc"), []byte("//registry.example.com/:_authToken=npm-token-value\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	npmrc := strings.ReplaceAll(warn, ".env", "config/.npmrc")
	for _, tc := range []struct {
		name string
		args []string
		warn string // "": none
	}{
		{"named", []string{"prompt", "why is API_KEY in .env rejected?"}, warn},
		{"named with ./", []string{"prompt", "why is API_KEY in ./.env rejected"}, warn},
		{"opened", []string{"prompt", "--open", ".env", "why is API_KEY in .env rejected?"}, ""},
		{"no such file", []string{"prompt", "why is API_KEY in .env.local rejected?"}, ""},
		{"not named", []string{"prompt", "why is API_KEY rejected?"}, ""},
		{"nested", []string{"prompt", "the token in config/.npmrc is rejected"}, npmrc},
		{"nested at a line", []string{"prompt", "the auth token at config/.npmrc:1 is rejected"}, npmrc},
		{"nested absolute", []string{"prompt", "why is " + filepath.Join(dir, "config", ".npmrc") + " ignored"}, npmrc},
		{"nested with backslash", []string{"prompt", `why is config\.npmrc ignored`}, npmrc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCtxd(t, dir, "", nil, tc.args...)
			if code != 0 || tc.warn != "" && !strings.Contains(errOut, tc.warn) || tc.warn == "" && strings.Contains(errOut, "a secret file") {
				t.Errorf("exit %d, stderr %q; want the warning %q", code, errOut, tc.warn)
			}
			if tc.name != "opened" && strings.Contains(out, "super-secret-value") {
				t.Errorf("the secret's value in the prompt:\n%s", out)
			}
		})
	}
}

// TestRewriteNotJSON: compress and optimize given a file that is not JSON
// (a source file, plain text) say where it stops being JSON, as they do
// for JSON cut short; it was "request is required and must be a JSON
// object", the words for an empty body.
func TestRewriteNotJSON(t *testing.T) {
	dir := testutil.GitRepo(t, sampleRepo)
	want := "the request body is not valid JSON at line 1, column 1, byte 0: invalid character 'p' looking for beginning of value; want a JSON object"
	for _, args := range [][]string{{"compress", "cart/cart.go"}, {"optimize", "cart/cart.go"}, {"compress", "-"}} {
		stdin := ""
		if args[1] == "-" {
			stdin = "package cart\n"
		}
		out, errOut, code := runCtxd(t, dir, stdin, nil, args...)
		if code != 1 || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("ctxd %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(args, " "), code, out, errOut, want)
		}
	}
}
