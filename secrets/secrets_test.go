package secrets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The testdata files hold fake keys shaped to match the rules: an AWS key
// pair, a GitHub token and a database URL password in Python, a PEM key in
// a Go constant, Stripe and Slack keys in a Helm values file, a token in a
// kubeconfig.
var cases = []struct {
	file    string
	secrets []string
	rules   []string
	keep    []string
}{
	{"config.py", []string{"AKIA454ML6LG4TJFCZ4K", "biheyEd7P4zDL+ak6J0kGODKdinZnLXicaBAg8WY", "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX", "Vq8rT2mZ9xKp4LwNe7Hs"},
		[]string{"aws-access-token", "github-pat", "url-password"},
		[]string{"def upload_invoice(path):", `region_name="eu-west-1"`, "postgresql://shop_admin:", "@db.internal:5432/shop"}},
	{"signing.go", []string{"uUbmqUcRCfO3nxEKJvYin6NFJSbnvBZCrrQr8ifVD", "-----BEGIN RSA PRIVATE KEY-----"},
		[]string{"private-key"},
		[]string{"func VerifyWebhook(body []byte, sig string) bool {", "const signingKey = `"}},
	{"values.yaml", []string{"sk_live_iAPyhzAnar3ZLt4bnlz2MPKgcjnCqaXN", "xoxb-546111393095-5972979262243-0NpUmkVO8JmR8y4EMfAdggcG"},
		[]string{"stripe-access-token", "slack-bot-token"},
		[]string{"replicaCount: 2", `channel: "#checkout-alerts"`}},
	{"kubeconfig", []string{"eyJhbGciOiJSUzI1NiIsImtpZCI6IjRrbW9ZcTNXZmJ3In0"},
		[]string{"jwt"},
		[]string{"server: https://k8s.internal.example.com:6443", "current-context: prod"}},
}

func TestRedact(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			out, reds := s.Redact(tc.file, string(b))
			checkRedacted(t, out, tc.secrets, tc.keep)
			got := map[string]bool{}
			for _, r := range reds {
				got[r.Rule] = true
				if r.Source != tc.file || r.Line < 1 {
					t.Errorf("redaction %+v", r)
				}
				if !strings.Contains(out, Marker(r.Rule)) {
					t.Errorf("no marker for %s", r.Rule)
				}
				for _, sec := range tc.secrets {
					if strings.Contains(r.Rule+r.Source, sec) {
						t.Errorf("redaction holds the secret")
					}
				}
			}
			for _, r := range tc.rules {
				if !got[r] {
					t.Errorf("no %s redaction in %+v", r, reds)
				}
			}
		})
	}
}

func TestRedactLines(t *testing.T) {
	s, _ := Default()
	b, _ := os.ReadFile("testdata/values.yaml")
	_, reds := s.Redact("v", string(b))
	want := map[string]int{"stripe-access-token": 6, "slack-bot-token": 8}
	for _, r := range reds {
		if w, ok := want[r.Rule]; ok && r.Line != w {
			t.Errorf("%s on line %d, want %d", r.Rule, r.Line, w)
		}
	}
}

// TestRedactScope: a secret is replaced wherever it is found, and again
// where it stands alone elsewhere in the text (used a second time), but not
// inside a longer word on another line; example passwords in URLs are not
// secrets.
func TestRedactScope(t *testing.T) {
	s, _ := Default()
	const pw = "Tr0ub4dor-x9Q"
	for _, tc := range []struct {
		name, text string
		gone, kept []string // substrings that must not / must remain
	}{
		{
			name: "reused elsewhere",
			text: "dsn = \"postgres://app:" + pw + "@db.internal/app\"\n# rotate " + pw + " monthly\nPASS=" + pw + "\n",
			gone: []string{pw},
			kept: []string{"# rotate ", " monthly", "PASS="},
		},
		{
			name: "inside a longer word elsewhere",
			text: "url = \"https://bob:s3cr3tW0rd@example.org/\"\nnot_a_real_s3cr3tW0rd = 1\n",
			gone: []string{"bob:s3cr3tW0rd@"},
			kept: []string{"not_a_real_s3cr3tW0rd = 1"},
		},
		{
			name: "example passwords",
			text: "Proxies with auth: http://user:password@host/ (set to a password value).\n" +
				"redis://:<password>@cache:6379/0 and ftp://anon:xxxxxx@files/ and postgres://u:YourPassword@db/x\n" +
				"auth = ('user', 'not_a_real_password')\n",
			kept: []string{"http://user:password@host/", "set to a password value", "'not_a_real_password'", ":<password>@", ":xxxxxx@", ":YourPassword@"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, reds := s.Redact("f", tc.text)
			checkRedacted(t, out, tc.gone, tc.kept)
			if len(tc.gone) > 0 && len(reds) == 0 {
				t.Error("no redaction reported")
			}
			if len(tc.gone) == 0 && (len(reds) != 0 || out != tc.text) {
				t.Errorf("example passwords redacted: %v\n%s", reds, out)
			}
		})
	}
}

func TestRedactCleanTextUnchanged(t *testing.T) {
	s, _ := Default()
	text := "package main\n\n// token counts tokens; the password field is hashed.\nfunc main() { dsn := \"postgres://user:${DB_PASSWORD}@db/app\"; _ = dsn }\n"
	out, reds := s.Redact("main.go", text)
	if out != text || len(reds) != 0 {
		t.Errorf("clean text changed: %v\n%s", reds, out)
	}
}

// TestRedactConcurrent runs scans in parallel (go test -race).
func TestRedactConcurrent(t *testing.T) {
	s, _ := Default()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for _, tc := range cases {
				b, _ := os.ReadFile(filepath.Join("testdata", tc.file))
				text := string(b) + strings.Repeat("\n", i)
				out, _ := s.Redact(tc.file, text)
				if strings.Contains(out, tc.secrets[0]) {
					t.Errorf("%s leaked", tc.file)
				}
			}
		}(i)
	}
	wg.Wait()
}

func BenchmarkRedactCold(b *testing.B) {
	s, _ := Default()
	src, _ := os.ReadFile("testdata/config.py")
	text := strings.Repeat(string(src), 50)
	for i := 0; b.Loop(); i++ {
		s.mu.Lock()
		clear(s.cache)
		s.mu.Unlock()
		s.Redact("x", text)
	}
}

func BenchmarkRedactWarm(b *testing.B) {
	s, _ := Default()
	src, _ := os.ReadFile("testdata/config.py")
	text := strings.Repeat(string(src), 50)
	s.Redact("x", text)
	for b.Loop() {
		s.Redact("x", text)
	}
}

func TestRedactJSON(t *testing.T) {
	s, _ := Default()
	b, _ := os.ReadFile("testdata/signing.go")
	c, _ := os.ReadFile("testdata/config.py")
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{
		map[string]any{"role": "user", "content": "here is the file:\n" + string(b)},
		map[string]any{"role": "tool", "content": string(c)},
	}})
	out, reds, err := s.RedactJSON("messages", body)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatalf("not JSON: %s", out)
	}
	for _, sec := range []string{"uUbmqUcRCfO3nxEKJvYin6NFJSbnvBZCrrQr8ifVD", "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX", "AKIA454ML6LG4TJFCZ4K"} {
		if strings.Contains(string(out), sec) {
			t.Errorf("still holds %q", sec)
		}
	}
	if len(reds) < 3 || !strings.Contains(string(out), "func VerifyWebhook") {
		t.Errorf("redactions %v\n%s", reds, out)
	}
	clean := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}`)
	if out, reds, _ := s.RedactJSON("m", clean); string(out) != string(clean) || reds != nil {
		t.Errorf("clean body changed: %s", out)
	}
}

// FuzzReplaceSecrets: whatever the findings, no secret is left on a line
// where it was found, everything outside the replaced occurrences is kept
// in order, and a standalone occurrence on any line is replaced.
func FuzzReplaceSecrets(f *testing.F) {
	f.Add("key = abcdefgh12\nuse abcdefgh12 here\nxabcdefgh12\n", "abcdefgh12", 1, "ab", 3)
	f.Add("a:password@h\nset a password\nnot_password\n", "password", 1, "pass", 2)
	f.Add("", "x", 1, "", 1)
	f.Fuzz(func(t *testing.T, text, s1 string, l1 int, s2 string, l2 int) {
		var fs []finding
		for _, f := range []finding{{secret: s1, line: l1, rule: "r1"}, {secret: s2, line: l2, rule: "r2"}} {
			// (A secret inside a marker would be found in the output's markers.)
			if f.secret != "" && !strings.Contains(Marker("r1")+Marker("r2"), f.secret) {
				fs = append(fs, f)
			}
		}
		out := replaceSecrets(text, fs, false)
		// Removing the markers leaves a subsequence of the text.
		rest := strings.ReplaceAll(strings.ReplaceAll(out, Marker("r1"), ""), Marker("r2"), "")
		i := 0
		for k := 0; k < len(rest); k++ {
			for i < len(text) && text[i] != rest[k] {
				i++
			}
			if i == len(text) {
				t.Fatalf("output is not the text with occurrences replaced:\n%q\n%q", text, out)
			}
			i++
		}
		if len(fs) == 0 && out != text {
			t.Fatalf("no findings, text changed")
		}
		// A finding alone: its line keeps no occurrence.
		if len(fs) == 1 {
			lines := strings.Split(out, "\n")
			if n := strings.Count(text, "\n"); n == strings.Count(out, "\n") && fs[0].line >= 1 && fs[0].line <= len(lines) &&
				!strings.Contains(fs[0].secret, "\n") && strings.Contains(strings.Split(text, "\n")[fs[0].line-1], fs[0].secret) &&
				strings.Contains(lines[fs[0].line-1], fs[0].secret) {
				t.Fatalf("secret left on its line %d: %q", fs[0].line, lines[fs[0].line-1])
			}
		}
	})
}

// TestRedactSourceKeepsLines: RedactSource hides what Redact hides and
// keeps the line count, so a PEM key's lines do not shift the symbols
// after it.
func TestRedactSourceKeepsLines(t *testing.T) {
	s, _ := Default()
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			out, reds := s.RedactSource(tc.file, b)
			if len(reds) == 0 {
				t.Fatal("no redaction")
			}
			for _, sec := range tc.secrets {
				if strings.Contains(string(out), sec) {
					t.Errorf("still holds %q", sec)
				}
			}
			inLines, outLines := strings.Split(string(b), "\n"), strings.Split(string(out), "\n")
			if len(inLines) != len(outLines) {
				t.Fatalf("%d lines, want %d", len(outLines), len(inLines))
			}
			for _, k := range tc.keep {
				for i, l := range inLines {
					if strings.Contains(l, k) && !strings.Contains(outLines[i], k) {
						t.Errorf("line %d lost %q", i+1, k)
					}
				}
			}
		})
	}
}

// checkRedacted fails the test when the redacted text out still holds a
// secret of gone or lost a text of kept.
func checkRedacted(t *testing.T, out string, gone, kept []string) {
	t.Helper()
	for _, g := range gone {
		if strings.Contains(out, g) {
			t.Errorf("redacted text still holds %q:\n%s", g, out)
		}
	}
	for _, k := range kept {
		if !strings.Contains(out, k) {
			t.Errorf("redacted text lost %q:\n%s", k, out)
		}
	}
}
