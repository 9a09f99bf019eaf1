package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestPromptRedactsSecretsInFiles: secrets inside ordinary files of several
// languages (the fake keys of secrets/testdata) never reach the prompt or
// the chunks; the rest of those files does, and the envelope lists each
// redaction without the secret. A kubeconfig named explicitly is read and
// redacted too.
func TestPromptRedactsSecretsInFiles(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	files := map[string]string{}
	for name, dst := range map[string]string{"config.py": "app/config.py", "signing.go": "signing/signing.go", "values.yaml": "chart/values.yaml", "kubeconfig": "deploy/kubeconfig"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "secrets", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[dst] = string(b)
	}
	dir := testutil.GitRepo(t, files)
	// With the state directory's index/ present, the first run persists
	// the texts it found clean (secrets-clean.bin) and the second loads
	// them: the second run must still redact every secret.
	if err := os.MkdirAll(filepath.Join(dir, ".ctxd", "index"), 0o755); err != nil {
		t.Fatal(err)
	}
	secretsIn := []string{"AKIA454ML6LG4TJFCZ4K", "biheyEd7P4zDL+ak6J0kGODKdinZnLXicaBAg8WY", "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX", "Vq8rT2mZ9xKp4LwNe7Hs",
		"uUbmqUcRCfO3nxEKJvYin6NFJSbnvBZCrrQr8ifVD", "sk_live_iAPyhzAnar3ZLt4bnlz2MPKgcjnCqaXN", "xoxb-546111393095-5972979262243-0NpUmkVO8JmR8y4EMfAdggcG", "eyJhbGciOiJSUzI1NiIsImtpZCI6IjRrbW9ZcTNXZmJ3In0"}
	rest := []string{"def upload_invoice(path):", "func VerifyWebhook(body []byte, sig string) bool", `channel: "#checkout-alerts"`, "current-context: prod"}
	for _, format := range []string{"markdown", "xml"} {
		out, errOut, code := runCtxd(t, dir, "", nil, "prompt", "--json", "--format", format, "--budget", "30000",
			"--pattern", "app/config.py", "--pattern", "signing/signing.go", "--pattern", "chart/values.yaml", "--open", "deploy/kubeconfig", "explain the upload and signing code")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, s := range secretsIn {
			if strings.Contains(out, s) {
				t.Errorf("%s: output holds secret %q", format, s)
			}
		}
		var env struct {
			Prompt     string
			Redactions []struct {
				Source string
				Line   int
				Rule   string
			}
		}
		if err := json.Unmarshal([]byte(out), &env); err != nil {
			t.Fatal(err)
		}
		for _, s := range rest {
			if !strings.Contains(env.Prompt, s) && !strings.Contains(env.Prompt, xmlEscape(s)) {
				t.Errorf("%s: prompt lost %q", format, s)
			}
		}
		rules := map[string]bool{}
		for _, r := range env.Redactions {
			rules[r.Source+" "+r.Rule] = true
		}
		for _, want := range []string{"app/config.py aws-access-token", "app/config.py github-pat", "app/config.py url-password", "signing/signing.go private-key", "chart/values.yaml stripe-access-token", "chart/values.yaml slack-bot-token", "deploy/kubeconfig jwt"} {
			if !rules[want] {
				t.Errorf("%s: no redaction %q in %v", format, want, env.Redactions)
			}
		}
		if !strings.Contains(env.Prompt, "[REDACTED aws-access-token]") {
			t.Errorf("%s: no marker in the prompt", format)
		}
		if _, err := os.Stat(filepath.Join(dir, ".ctxd", "index", "secrets-clean.bin")); err != nil {
			t.Errorf("%s: the clean set was not persisted: %v", format, err)
		}
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// TestCompressRedactSecrets: with --redact-secrets, compress and optimize
// rewrite a conversation whose tool output holds keys without them;
// without it, the conversation passes as it was.
func TestCompressRedactSecrets(t *testing.T) {
	t.Parallel() // a subprocess per case: overlaps on two cores
	b, err := os.ReadFile(filepath.Join("..", "..", "secrets", "testdata", "config.py"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{
		map[string]any{"role": "user", "content": "read config.py"},
		map[string]any{"role": "assistant", "content": "here it is:\n" + string(b)},
		map[string]any{"role": "user", "content": "what region does it use?"},
	}})
	dir := t.TempDir()
	for _, cmd := range []string{"compress", "optimize"} {
		out, errOut, code := runCtxd(t, dir, string(body), nil, cmd, "--redact-secrets", "-")
		if code != 0 {
			t.Fatalf("%s: exit %d %s", cmd, code, errOut)
		}
		if strings.Contains(out, "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX") || !strings.Contains(out, "[REDACTED github-pat]") || !strings.Contains(errOut, "redacted github-pat") {
			t.Errorf("%s --redact-secrets:\n%s\n%s", cmd, out, errOut)
		}
		out, _, _ = runCtxd(t, dir, string(body), nil, cmd, "-")
		if !strings.Contains(out, "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX") {
			t.Errorf("%s without the flag changed the conversation", cmd)
		}
	}
}
