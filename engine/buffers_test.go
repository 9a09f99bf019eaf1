package engine

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/pack"
)

// TestBufferRuleEveryDoor: an editor's buffer of a git-ignored file that
// exists on disk is read by one rule (tree.OverlayKept) at every door:
// gathered from the buffer by buildPrompt, packed from it, and re-read
// from it on resume (refused there once the buffer is closed, as an
// ignored file a checkpoint names); a secret file's buffer is gathered
// only when the user names the file, never packed unnamed, and refused on
// resume even while it is open (a checkpoint is not the user).
func TestBufferRuleEveryDoor(t *testing.T) {
	e, root := sessionEngine(t)
	ctx := t.Context()
	const token = "ghp_Zq8xW3mN5vB7kL2pR9tY4uH6jF1dS0aQ3eXc"
	testutil.WriteFiles(t, root, map[string]string{
		".gitignore":   "gen/\n",
		"gen/rates.go": "package gen\n\n// Rate is the tax rate on disk.\nvar Rate = 19\n",
		".env":         "GITHUB_TOKEN=disk-value\n",
	})
	testutil.GitCommitAll(t, root)
	edited := "package gen\n\n// Rate is the tax rate, edited in the editor.\nvar Rate = 21\n"
	for p, text := range map[string]string{"gen/rates.go": edited, ".env": "GITHUB_TOKEN=" + token + "\n"} {
		if err := e.SetBuffer(p, text); err != nil {
			t.Fatal(err)
		}
	}

	// buildPrompt: the ignored file from its buffer, the secret one not
	// without a name.
	env, err := e.BuildPrompt(ctx, PromptRequest{UserRequest: "change the tax Rate in gen/rates.go", SessionID: "s-ignored", Patterns: []string{"gen/rates.go", "cart/price.go"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := chunkOf(env, "gen/rates.go"); c == nil || !strings.Contains(c.Content, "edited in the editor") {
		t.Fatalf("buildPrompt: gen/rates.go not gathered from its buffer: %+v", c)
	}
	if hasSource(env, ".env") {
		t.Error("buildPrompt gathered .env's buffer unnamed")
	}

	// pack: the same workspace.
	r, err := e.Pack(ctx, pack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	packed := map[string]string{}
	for _, f := range r.Files {
		packed[f.Path] = f.Content
	}
	if !strings.Contains(packed["gen/rates.go"], "edited in the editor") {
		t.Errorf("pack: gen/rates.go %q, want its buffer", packed["gen/rates.go"])
	}
	if _, ok := packed[".env"]; ok {
		t.Error("pack packed .env's buffer unnamed")
	}

	// resume: the ignored file is re-read from its buffer.
	res, err := e.ResumeSession(ctx, ResumeRequest{SessionID: "s-ignored"})
	if err != nil {
		t.Fatal(err)
	}
	st := statusOf(res, "gen/rates.go")
	if st.Status != SourceUnchanged || !st.Included {
		t.Errorf("resume with the buffer open: gen/rates.go %+v, want unchanged and included (warnings %v)", st, res.Warnings)
	}
	if c := chunkOf(res.Envelope, "gen/rates.go"); c == nil || !strings.Contains(c.Content, "edited in the editor") {
		t.Errorf("resume: gen/rates.go not rebuilt from its buffer: %+v", c)
	}
	if err := e.CloseBuffer("gen/rates.go"); err != nil {
		t.Fatal(err)
	}
	res, err = e.ResumeSession(ctx, ResumeRequest{SessionID: "s-ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if st := statusOf(res, "gen/rates.go"); st.Status != SourceRefused || hasSource(res.Envelope, "gen/rates.go") {
		t.Errorf("resume with the buffer closed: gen/rates.go %+v, want refused (an ignored file a checkpoint names)", st)
	}

	// A secret file the user names is gathered from its buffer,
	// redacted; resume refuses it although it is open.
	env, err = e.BuildPrompt(ctx, PromptRequest{UserRequest: "check the token setup", SessionID: "s-secret", Patterns: []string{".env"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := chunkOf(env, ".env"); c == nil || !strings.Contains(c.Content, "REDACTED") || strings.Contains(c.Content, token) || strings.Contains(c.Content, "disk-value") {
		t.Fatalf("buildPrompt naming .env: %+v, want its buffer, redacted", c)
	}
	res, err = e.ResumeSession(ctx, ResumeRequest{SessionID: "s-secret"})
	if err != nil {
		t.Fatal(err)
	}
	if st := statusOf(res, ".env"); st.Status != SourceRefused || hasSource(res.Envelope, ".env") {
		t.Errorf("resume: .env %+v, want refused while its buffer is open", st)
	}
}

func statusOf(res *ResumeResult, src string) SourceStatus {
	for _, s := range res.Sources {
		if s.Source == src {
			return s
		}
	}
	return SourceStatus{}
}
