package replay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/testutil"
)

// TestReplayStrict replays the checked-in corpus and requires every
// strict gate: integrity, recall, JSON, references, coverage, no success
// regression.
func TestReplayStrict(t *testing.T) {
	testutil.NoRace(t) // one goroutine: compact/smart's TestConcurrentOptimize is the race test
	c, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), c, Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.Print(&out); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	if !rep.Metrics.Passed {
		t.Errorf("replay did not pass: %v", rep.Failures)
	}
	if rep.Metrics.EligibleLongSessions < 12 {
		t.Errorf("%d long sessions, want at least 12", rep.Metrics.EligibleLongSessions)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, body, want string }{
		{"not json", `{"name":`, "load session"},
		{"unknown field", `{"name":"a","session_id":"s","format":"openai-chat","top":{},"turns":[{"append":[]}],"extra":1}`, "unknown field"},
		{"no turns", `{"name":"a","session_id":"s","format":"openai-chat","top":{},"turns":[]}`, "turns are required"},
		{"bad format", `{"name":"a","session_id":"s","format":"xml","top":{},"turns":[{"append":[]}]}`, "format"},
		{"bad damage", `{"name":"a","session_id":"s","format":"openai-chat","top":{},"turns":[{"append":[],"damage":[{"op":"burn","sha256":"x"}]}]}`, "damage"},
		{"bad seed", `{"name":"a","session_id":"s","format":"openai-chat","top":{},"turns":[{"append":[]}],"seed_artifacts":[{"content":"x","state":"lost"}]}`, "seed artifact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".json")
			os.WriteFile(p, []byte(tt.body), 0o644)
			if _, err := Load(p); err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ctxd.ErrInvalidParams) {
				t.Errorf("err = %v, want invalid params mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "nothing")); err == nil {
		t.Error("a missing path loaded")
	}
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), "no *.json") {
		t.Errorf("empty dir: %v", err)
	}
}

func TestRequestsGrowByAppending(t *testing.T) {
	c, err := Load(filepath.Join(corpusDir, "01-go-test-fix-loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := c.Sessions[0].Requests()
	for i := 1; i < len(reqs); i++ {
		// Each request is the previous one with items appended: the bytes
		// before the closing "]}" are a prefix.
		prev := reqs[i-1][:len(reqs[i-1])-2]
		if !bytes.HasPrefix(reqs[i], prev) {
			t.Fatalf("request %d does not extend request %d", i+1, i)
		}
	}
}

func FuzzSession(f *testing.F) {
	b, err := os.ReadFile(filepath.Join(corpusDir, "04-multi-file-refactor.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b[:min(len(b), 4000)])
	f.Add([]byte(`{"name":"a","session_id":"s","format":"openai-chat","top":{"model":"x"},"continued":true,"turns":[{"append":[{"role":"user","content":"hi"}],"previous_response_id":"r"}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		p := filepath.Join(dir, "s.json")
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err != nil {
			return
		}
		for _, s := range c.Sessions {
			s.Requests()
		}
	})
}

// TestPrintMissedTargets: the strict gates' "passed: true" never stands
// bare above a missed target; each target says met or MISSED.
func TestPrintMissedTargets(t *testing.T) {
	tests := []struct {
		name    string
		targets map[string]bool
		want    []string
	}{
		{"all met", map[string]bool{"reduction": true}, []string{"passed: true\n", "target_reduction: met\n"}},
		{"one missed", map[string]bool{"reduction": true, "recall": false}, []string{
			"passed: true (strict gates only; missed: target_recall)\n", "target_recall: MISSED\n", "target_reduction: met\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Report{Metrics: Metrics{Passed: true}, Targets: tt.targets}
			var b strings.Builder
			if err := r.Print(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}
