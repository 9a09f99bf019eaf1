package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestForgedCheckpoint is failure 6 of issue 11: a checkpoint listing
// .env, id_rsa and .npmrc as chunk sources, committed with git add -f.
// After a fresh clone, resume (by id and the no-id resume editors offer)
// never puts the victim's local secrets into the prompt; an untracked
// checkpoint naming them is resumed without re-reading them.
func TestForgedCheckpoint(t *testing.T) {
	attacker := testutil.GitRepo(t, sampleRepo)
	testutil.WriteFiles(t, attacker, map[string]string{"id_rsa": "attacker key\n", ".npmrc": "//registry.npmjs.org/:_authToken=attacker\n"})
	if out, errOut, code := runCtxd(t, attacker, "", nil, "prompt", "--session", "evil", "--open", ".env", "--open", "id_rsa", "--open", ".npmrc", "--pattern", "README.md", "summarize the configuration"); code != 0 {
		t.Fatalf("prompt: %d %s%s", code, out, errOut)
	}
	// Untracked, in the attacker's own tree: the secret files are not re-read.
	out, errOut, code := runCtxd(t, attacker, "", nil, "sessions", "resume", "evil", "--prompt")
	if code != 0 || strings.Contains(out, "super-secret-value") || strings.Contains(out, "attacker key") || !strings.Contains(out, "refused") {
		t.Errorf("untracked forged checkpoint: exit %d\n%s%s", code, out, errOut)
	}
	testutil.Git(t, attacker, "add", "-f", ".ctxd/sessions/evil")
	testutil.Git(t, attacker, "commit", "-q", "-m", "add session")

	victim := filepath.Join(t.TempDir(), "victim")
	cmd := exec.Command("git", "clone", "-q", attacker, victim)
	cmd.Env = append(os.Environ(), testutil.GitEnv()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	testutil.WriteFiles(t, victim, map[string]string{".env": "VICTIM_TOKEN=victim-secret-4242\n", "id_rsa": "victim private key\n", ".npmrc": "//registry.npmjs.org/:_authToken=victim-npm-token\n"})
	for _, args := range [][]string{
		{"sessions", "resume", "evil", "--prompt"},
		{"sessions", "resume", "--prompt", "--json"},
		{"sessions", "resume", "--json"},
	} {
		out, errOut, _ := runCtxd(t, victim, "", nil, args...)
		for _, s := range []string{"victim-secret-4242", "victim private key", "victim-npm-token"} {
			if strings.Contains(out+errOut, s) {
				t.Errorf("%v leaked %q:\n%s%s", args, s, out, errOut)
			}
		}
		if args[2] == "evil" && !strings.Contains(out+errOut, "tracked by git") {
			t.Errorf("%v: no word of the tracked checkpoint:\n%s%s", args, out, errOut)
		}
	}
}
