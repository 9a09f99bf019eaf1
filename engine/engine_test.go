package engine

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/config"
	"github.com/ctxd/ctxd/prompt"
	"github.com/ctxd/ctxd/tokens"
)

// newEngine returns an engine for dir with the default configuration (the
// developer's own user file must not leak in).
func newEngine(t testing.TB, dir string) *Engine { return openEngine(t, dir, Options{}) }

// openEngine returns an engine for dir with opts, closed when the test
// ends; without opts.Config, with the default configuration.
func openEngine(t testing.TB, dir string, opts Options) *Engine {
	t.Helper()
	if opts.Config == nil {
		opts.Config = config.Default()
	}
	e, err := New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestBudgetHoldsOnGoroot: on the Go standard library, for budgets of 1k,
// 4k, 8k and 32k tokens, the context never exceeds its budget and
// prompt_tokens is the tokenizer's count of the prompt.
func TestBudgetHoldsOnGoroot(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go standard library")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	e := newEngine(t, root)
	requests := []string{
		"how does the http server handle keep-alive connections",
		"fix the race in sync.Pool when the victim cache is cleared",
		"add a Reverse function to the slices package",
		"write tests for strconv.ParseFloat with hexadecimal input",
	}
	for _, total := range []int{1000, 4000, 8000, 32000} {
		for i, req := range requests {
			t.Run(fmt.Sprintf("budget=%d/%d", total, i), func(t *testing.T) {
				env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: req, TokenBudget: &BudgetRequest{Total: total}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				c := env.Context
				if c.TokensUsed > c.Budget {
					t.Errorf("tokens_used %d > budget %d", c.TokensUsed, c.Budget)
				}
				// The context may take the request's spare share, never
				// more: the prompt fits the two shares together.
				if limit := env.TokenBudget.Context + env.TokenBudget.UserRequest; c.Budget > limit || env.PromptTokens > limit {
					t.Errorf("context budget %d, prompt %d tokens: over the context and request shares %d", c.Budget, env.PromptTokens, limit)
				}
				sum := 0
				for _, ch := range c.Chunks {
					sum += ch.Tokens
				}
				if sum != c.TokensUsed {
					t.Errorf("chunk tokens sum to %d, tokens_used %d", sum, c.TokensUsed)
				}
				counter, err := tokens.Get(env.Model.Encoding)
				if err != nil {
					t.Fatal(err)
				}
				if n := counter.Count(env.Prompt); n != env.PromptTokens {
					t.Errorf("prompt_tokens %d, tokenizer says %d", env.PromptTokens, n)
				}
				if len(c.Chunks) == 0 {
					t.Error("no context at all")
				}
				if total >= 4000 && c.Utilization < 0.5 {
					t.Errorf("utilization %.2f: budget badly used (skipped: %v)", c.Utilization, c.Skipped)
				}
			})
		}
	}
}

// TestLargeFileAtBodiesLevel: with a 4k budget, a large open file from the
// Go standard library is included as its bodies view (imports, types,
// signatures and docs kept, bodies collapsed), which still parses, rather
// than cut blindly.
func TestLargeFileAtBodiesLevel(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go standard library")
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	e := newEngine(t, root)
	const file = "net/http/cookie.go"
	env, err := e.BuildPrompt(t.Context(), PromptRequest{
		UserRequest: "explain this file",
		OpenFiles:   []ctxd.OpenFile{{Path: file}},
		TokenBudget: &BudgetRequest{Total: 4000},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := chunkOf(env, file)
	if got == nil {
		t.Fatalf("%s not included; skipped: %v", file, env.Context.Skipped)
	}
	if got.Truncation != ctxd.ViewBodies || !got.Truncated || len(got.Elided) == 0 || got.OriginalTokens <= got.Tokens {
		t.Fatalf("%s: truncation %q, elided %v, %d of %d tokens", file, got.Truncation, got.Elided, got.Tokens, got.OriginalTokens)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), file, got.Content, parser.ParseComments); err != nil {
		t.Errorf("the bodies view does not parse: %v", err)
	}
	for _, sig := range []string{"func (c *Cookie) String() string", "func readSetCookies(", "type Cookie struct"} {
		if !strings.Contains(got.Content, sig) {
			t.Errorf("the bodies view lost %q", sig)
		}
	}
	if !strings.Contains(env.Prompt, "## "+file+" (bodies view") {
		t.Error("the prompt does not say the file is a bodies view")
	}
}

// relevanceRepo is a small application whose files each answer one kind
// of request; the requests below name no file.
var relevanceRepo = map[string]string{
	"go.mod":                    "module example.com/app\n\ngo 1.26\n",
	"auth/password.go":          "package auth\n\nimport \"crypto/subtle\"\n\n// HashPassword derives a salted password hash with bcrypt-like cost.\nfunc HashPassword(password string, cost int) ([]byte, error) {\n\treturn deriveKey([]byte(password), cost)\n}\n\n// CheckPassword compares a password with its stored hash in constant time.\nfunc CheckPassword(hash []byte, password string) bool {\n\tgot, _ := deriveKey([]byte(password), 10)\n\treturn subtle.ConstantTimeCompare(hash, got) == 1\n}\n\nfunc deriveKey(p []byte, cost int) ([]byte, error) { return p, nil }\n",
	"billing/invoice.go":        "package billing\n\n// Invoice is a customer invoice with line items.\ntype Invoice struct {\n\tLines   []Line\n\tTaxRate float64\n}\n\n// Line is one invoiced item.\ntype Line struct{ Amount float64 }\n\n// Total returns the invoice total including VAT tax.\nfunc (inv Invoice) Total() float64 {\n\tsum := 0.0\n\tfor _, l := range inv.Lines {\n\t\tsum += l.Amount\n\t}\n\treturn sum * (1 + inv.TaxRate)\n}\n",
	"cache/lru.go":              "package cache\n\nimport \"container/list\"\n\n// LRU is a least-recently-used cache with a fixed capacity.\ntype LRU struct {\n\tcap   int\n\tlist  *list.List\n\titems map[string]*list.Element\n}\n\n// Evict removes the least recently used entry.\nfunc (c *LRU) Evict() {\n\tif e := c.list.Back(); e != nil {\n\t\tc.list.Remove(e)\n\t}\n}\n",
	"router/router.go":          "package router\n\n// Router matches request paths against route patterns with parameters.\ntype Router struct{ routes []route }\n\ntype route struct{ pattern string }\n\n// Match finds the route whose pattern matches the path, e.g. /users/:id.\nfunc (r *Router) Match(path string) (string, map[string]string) {\n\treturn \"\", nil\n}\n",
	"storage/migrate.go":        "package storage\n\n// Migrate applies pending schema migrations to the sqlite database in order.\nfunc Migrate(db DB, migrations []Migration) error {\n\tfor _, m := range migrations {\n\t\tif err := db.Exec(m.SQL); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n}\n\n// Migration is one schema change.\ntype Migration struct{ Version int; SQL string }\n\n// DB runs SQL.\ntype DB interface{ Exec(string) error }\n",
	"mail/smtp.go":              "package mail\n\n// SendEmail delivers a message through the SMTP relay with STARTTLS.\nfunc SendEmail(relay, from, to, subject, body string) error {\n\treturn nil\n}\n",
	"metrics/histogram.go":      "package metrics\n\nimport \"sort\"\n\n// Histogram records latency samples.\ntype Histogram struct{ samples []float64 }\n\n// Percentile returns the p-th percentile of the recorded latencies.\nfunc (h *Histogram) Percentile(p float64) float64 {\n\tsort.Float64s(h.samples)\n\treturn h.samples[int(p*float64(len(h.samples)-1))]\n}\n",
	"settings/env.go":           "package settings\n\nimport \"os\"\n\n// FromEnv reads the service settings from environment variables.\nfunc FromEnv() map[string]string {\n\treturn map[string]string{\"port\": os.Getenv(\"PORT\")}\n}\n",
	"thumbnail/resize.go":       "package thumbnail\n\n// Resize scales an image to fit a bounding box, keeping its aspect ratio.\nfunc Resize(w, h, maxW, maxH int) (int, int) {\n\treturn w, h\n}\n",
	"jobs/backoff.go":           "package jobs\n\nimport \"time\"\n\n// Backoff returns the exponential backoff delay before a retry attempt, with jitter.\nfunc Backoff(attempt int) time.Duration {\n\treturn time.Duration(1<<attempt) * 100 * time.Millisecond\n}\n",
	"geo/distance.go":           "package geo\n\nimport \"math\"\n\n// Haversine returns the great-circle distance in kilometers between two coordinates.\nfunc Haversine(lat1, lon1, lat2, lon2 float64) float64 {\n\treturn 6371 * math.Acos(math.Sin(lat1)*math.Sin(lat2))\n}\n",
	"ratelimit/token_bucket.go": "package ratelimit\n\n// TokenBucket limits request rates: tokens refill at a fixed rate.\ntype TokenBucket struct{ tokens, rate float64 }\n\n// Allow reports whether a request may proceed now.\nfunc (b *TokenBucket) Allow() bool { return b.tokens >= 1 }\n",
	"README.md":                 "# app\n\nA sample application.\n",
}

// TestRelevanceSmoke: requests that name no file still get the file they
// are about into the envelope.
func TestRelevanceSmoke(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, relevanceRepo)
	testutil.GitCommitAll(t, dir)
	e := newEngine(t, dir)
	tests := []struct{ request, want string }{
		{"passwords should be compared in constant time", "auth/password.go"},
		{"the VAT is applied twice on invoices", "billing/invoice.go"},
		{"evict the least recently used entry when the cache is full", "cache/lru.go"},
		{"route patterns with parameters like :id do not match", "router/router.go"},
		{"schema migrations run out of order", "storage/migrate.go"},
		{"emails are sent without STARTTLS", "mail/smtp.go"},
		{"the p99 latency percentile is off by one", "metrics/histogram.go"},
		{"read the port setting from an environment variable", "settings/env.go"},
		{"thumbnails lose their aspect ratio", "thumbnail/resize.go"},
		{"add jitter to the retry backoff", "jobs/backoff.go"},
		{"distance between two coordinates is wrong in kilometers", "geo/distance.go"},
		{"rate limiting lets too many requests through", "ratelimit/token_bucket.go"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: tt.request, TokenBudget: &BudgetRequest{Total: 4000}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rank := -1
			var files []string
			for _, c := range env.Context.Chunks {
				if c.ChunkType != ctxd.ChunkFile {
					continue
				}
				if c.Source == tt.want {
					rank = len(files)
				}
				files = append(files, c.Source)
			}
			if rank < 0 {
				t.Fatalf("%q: %s not in the envelope (got %v)", tt.request, tt.want, files)
			}
			if rank > 2 {
				t.Errorf("%q: %s ranks %d among files %v", tt.request, tt.want, rank+1, files)
			}
		})
	}
}

// TestIgnoredAndSecretFilesNeverAppear: gitignored files and secret files
// stay out of envelopes, whatever the request says; a secret named
// explicitly as an open file is the one exception.
func TestIgnoredAndSecretFilesNeverAppear(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"main.go":             "package main\n\n// Config loads the API key.\nfunc main() {}\n",
		".gitignore":          "build/\n*.log\n",
		"build/out.go":        "package build // IGNORED-BUILD\n",
		"debug.log":           "IGNORED-LOG api key\n",
		".env":                "API_KEY=SECRET-ENV\n",
		".env.production":     "API_KEY=SECRET-ENV-PROD\n",
		"certs/server.pem":    "-----BEGIN PRIVATE KEY----- SECRET-PEM\n",
		"certs/server.key":    "SECRET-KEY\n",
		"deploy/id_rsa":       "SECRET-RSA\n",
		".git-credentials":    "https://user:SECRET-CRED@example.com\n",
		"config/settings.yml": "api_key_file: .env\n",
	})
	testutil.GitCommitAll(t, dir)
	e := newEngine(t, dir)
	forbidden := []string{"IGNORED-BUILD", "IGNORED-LOG", "SECRET-ENV", "SECRET-PEM", "SECRET-KEY", "SECRET-RSA", "SECRET-CRED"}
	requests := []string{
		"where is the API key loaded from .env and server.key",
		"explain the build output and debug.log",
		"read id_rsa and .git-credentials",
	}
	for _, req := range requests {
		for _, patterns := range [][]string{nil, {"**"}, {"**/*"}} {
			env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: req, Patterns: patterns, TokenBudget: &BudgetRequest{Total: 32000}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range forbidden {
				if strings.Contains(env.Prompt, s) {
					t.Errorf("request %q patterns %v: %s leaked into the prompt", req, patterns, s)
				}
			}
			for _, c := range env.Context.Chunks {
				if strings.HasPrefix(c.Source, "build/") || strings.HasSuffix(c.Source, ".log") || strings.Contains(c.Source, ".env") {
					t.Errorf("chunk %s gathered", c.Source)
				}
			}
		}
	}
	// Named explicitly: the user asked for it.
	env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "what is in this file", OpenFiles: []ctxd.OpenFile{{Path: ".env"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(env.Prompt, "SECRET-ENV") {
		t.Error("an explicitly opened secret file was not included")
	}
}

func TestBudgetResolution(t *testing.T) {
	e := newEngine(t, t.TempDir())
	half := ctxd.Shares{System: 0, Context: 0.5, Request: 0.25, Response: 0.25}
	tests := []struct {
		name    string
		br      *BudgetRequest
		want    ctxd.Budget
		wantErr string
		window  int // the model's context window; 8192 (gpt-4's) when 0
		output  int // the model's output limit; none when 0
	}{
		{"default", nil, ctxd.Budget{Total: 8000, System: 800, Context: 4000, UserRequest: 800, Response: 2400}, "", 0, 0},
		{"default for a 128k window", nil, ctxd.Budget{Total: 16000, System: 1600, Context: 8000, UserRequest: 1600, Response: 4800}, "", 128_000, 0},
		{"default for a 1M window", nil, ctxd.Budget{Total: 32000, System: 3200, Context: 16000, UserRequest: 3200, Response: 9600}, "", 1_048_576, 0},
		{"a total wins over the window", &BudgetRequest{Total: 1000}, ctxd.Budget{Total: 1000, System: 100, Context: 500, UserRequest: 100, Response: 300}, "", 1_048_576, 0},
		{"total", &BudgetRequest{Total: 1000}, ctxd.Budget{Total: 1000, System: 100, Context: 500, UserRequest: 100, Response: 300}, "", 0, 0},
		{"context only", &BudgetRequest{Context: 6000}, ctxd.Budget{Total: 10000, System: 800, Context: 6000, UserRequest: 800, Response: 2400}, "", 0, 0},
		{"shares", &BudgetRequest{Total: 1000, Shares: &half}, ctxd.Budget{Total: 1000, System: 0, Context: 500, UserRequest: 250, Response: 250}, "", 0, 0},
		{"all parts agree", &BudgetRequest{Total: 10, System: 1, Context: 5, UserRequest: 1, Response: 3}, ctxd.Budget{Total: 10, System: 1, Context: 5, UserRequest: 1, Response: 3}, "", 0, 0},
		{"parts disagree", &BudgetRequest{Total: 11, System: 1, Context: 5, UserRequest: 1, Response: 3}, ctxd.Budget{}, "sum to 10 but total is 11", 0, 0},
		{"negative", &BudgetRequest{Response: -1}, ctxd.Budget{}, "token_budget.response", 0, 0},
		{"bad shares", &BudgetRequest{Shares: &ctxd.Shares{Context: 2}}, ctxd.Budget{}, "shares", 0, 0},
		// The response share beyond the model's output limit goes to the
		// context; parts the caller sets stay as set.
		{"response capped by the output limit", &BudgetRequest{Total: 128_000}, ctxd.Budget{Total: 128_000, System: 12_800, Context: 64_000 + 38_400 - 16_384, UserRequest: 12_800, Response: 16_384}, "", 128_000, 16_384},
		{"default capped", nil, ctxd.Budget{Total: 16000, System: 1600, Context: 8000 + 4800 - 4096, UserRequest: 1600, Response: 4096}, "", 128_000, 4096},
		{"explicit response kept", &BudgetRequest{Context: 6000, Response: 30_000}, ctxd.Budget{Total: 37_600, System: 800, Context: 6000, UserRequest: 800, Response: 30_000}, "", 0, 16_384},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			window := tt.window
			if window == 0 {
				window = 8192
			}
			got, parts, err := e.budget(tt.br, ctxd.Model{ContextWindow: window, MaxOutput: tt.output})
			if wantInvalid(t, err, tt.wantErr) {
				return
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if want := tt.br != nil && tt.br.System+tt.br.Context+tt.br.UserRequest+tt.br.Response > 0; parts != want {
				t.Errorf("parts set = %v, want %v", parts, want)
			}
		})
	}
}

// TestConfiguredBudgetWins: a budget.total from the configuration is
// kept whatever the model's window.
func TestConfiguredBudgetWins(t *testing.T) {
	cfg := config.Default()
	cfg.Budget.Total = 12000
	cfg.Set("budget.total", "file")
	e := openEngine(t, t.TempDir(), Options{Config: cfg})
	for _, window := range []int{8192, 128_000, 1_048_576} {
		if b, _, err := e.budget(nil, ctxd.Model{ContextWindow: window}); err != nil || b.Total != 12000 {
			t.Errorf("window %d: budget %+v, %v; want the configured 12000", window, b, err)
		}
	}
}

func TestPlan(t *testing.T) {
	e := newEngine(t, t.TempDir())
	long := strings.Repeat("panic: boom at main.go:12\n", 400)
	tests := []struct {
		name     string
		req      PromptRequest
		check    func(t *testing.T, p *plan)
		errField string
	}{
		{"missing request", PromptRequest{}, nil, "user_request"},
		{"bad task", PromptRequest{UserRequest: "x", TaskType: "ship"}, nil, "task_type"},
		{"bad format", PromptRequest{UserRequest: "x", Format: "html"}, nil, "format"},
		{"negative window", PromptRequest{UserRequest: "x", ContextWindow: -1}, nil, "context_window"},
		{"window from registry", PromptRequest{UserRequest: "x", Model: "gpt-4"}, func(t *testing.T, p *plan) {
			if p.env.Model.Source != "registry" || p.env.Model.Encoding != "cl100k_base" {
				t.Errorf("model %+v", p.env.Model)
			}
		}, ""},
		{"explicit window wins", PromptRequest{UserRequest: "x", Model: "gpt-4", ContextWindow: 4096, TokenBudget: &BudgetRequest{Total: 8000}}, func(t *testing.T, p *plan) {
			if p.env.Model.Source != "explicit" || p.env.TokenBudget.Total != 4096 || len(p.env.Warnings) == 0 {
				t.Errorf("model %+v budget %+v warnings %v", p.env.Model, p.env.TokenBudget, p.env.Warnings)
			}
		}, ""},
		{"unknown model falls back", PromptRequest{UserRequest: "x", Model: "no-such-model-9"}, func(t *testing.T, p *plan) {
			if p.env.Model.Source != "fallback" {
				t.Errorf("model %+v", p.env.Model)
			}
		}, ""},
		{"loose estimates are said", PromptRequest{UserRequest: "x", Model: "claude-sonnet-4.5"}, func(t *testing.T, p *plan) {
			if p.env.Model.EstimatorConfidence == "exact" || !slices.ContainsFunc(p.env.Warnings, func(w string) bool { return strings.Contains(w, "are estimates") }) {
				t.Errorf("model %+v warnings %v", p.env.Model, p.env.Warnings)
			}
		}, ""},
		{"exact counts say nothing", PromptRequest{UserRequest: "x", Model: "gpt-4o"}, func(t *testing.T, p *plan) {
			if len(p.env.Warnings) != 0 {
				t.Errorf("warnings %v", p.env.Warnings)
			}
		}, ""},
		// A short request leaves the rest of its share (and what the
		// prompt's header does not take) to the context; parts the caller
		// sets are kept as set.
		{"short request leaves its share to the context", PromptRequest{UserRequest: "fix the parser", TokenBudget: &BudgetRequest{Total: 8000}}, func(t *testing.T, p *plan) {
			b := p.env.TokenBudget
			req := p.counter.Count(prompt.Request(p.env.UserRequest, p.env.TaskType, p.query.AsksChange, p.env.Format))
			if want := b.Context + b.UserRequest - req - p.counter.Count(prompt.Frame(p.env.Format)); p.contextBudget != want || want <= b.Context {
				t.Errorf("context budget %d, want %d (share %d, request share %d, request %d tokens)", p.contextBudget, want, b.Context, b.UserRequest, req)
			}
		}, ""},
		{"parts set are kept", PromptRequest{UserRequest: "fix the parser", TokenBudget: &BudgetRequest{Context: 3000}}, func(t *testing.T, p *plan) {
			if p.contextBudget != 3000 {
				t.Errorf("context budget %d, the caller set 3000", p.contextBudget)
			}
		}, ""},
		{"long request borrows from context", PromptRequest{UserRequest: strings.Repeat("word ", 1200), TokenBudget: &BudgetRequest{Total: 8000}}, func(t *testing.T, p *plan) {
			if p.contextBudget >= p.env.TokenBudget.Context || len(p.env.Warnings) == 0 {
				t.Errorf("context budget %d of %d, warnings %v", p.contextBudget, p.env.TokenBudget.Context, p.env.Warnings)
			}
		}, ""},
		// A request longer than its share and half the context's (a
		// pasted log) is cut to that; the context keeps the other half
		// (it kept nothing, and the prompt held the log and no code).
		{"huge request is cut", PromptRequest{UserRequest: long, TokenBudget: &BudgetRequest{Total: 1000}}, func(t *testing.T, p *plan) {
			if p.contextBudget != p.env.TokenBudget.Context-p.env.TokenBudget.Context/2 || p.env.OriginalInput != long || len(p.env.UserRequest) >= len(long) {
				t.Errorf("context %d of %d, request %d bytes", p.contextBudget, p.env.TokenBudget.Context, len(p.env.UserRequest))
			}
			if n := p.counter.Count(p.env.UserRequest); n > p.env.TokenBudget.UserRequest+p.env.TokenBudget.Context/2 {
				t.Errorf("request cut to %d tokens, over its share %d and half the context's %d", n, p.env.TokenBudget.UserRequest, p.env.TokenBudget.Context/2)
			}
		}, ""},
		{"request over half the context is cut", PromptRequest{UserRequest: strings.Repeat("word ", 3600), TokenBudget: &BudgetRequest{Total: 8000}}, func(t *testing.T, p *plan) {
			if p.contextBudget != p.env.TokenBudget.Context-p.env.TokenBudget.Context/2 || p.env.OriginalInput == "" {
				t.Errorf("context %d of %d, cut %v", p.contextBudget, p.env.TokenBudget.Context, p.env.OriginalInput != "")
			}
		}, ""},
		// With too small a budget for half, the request takes the whole
		// context share, as before.
		{"tiny budget", PromptRequest{UserRequest: long, TokenBudget: &BudgetRequest{Total: 200}}, func(t *testing.T, p *plan) {
			if p.contextBudget != 0 || p.env.OriginalInput != long {
				t.Errorf("context %d, cut %v", p.contextBudget, p.env.OriginalInput != "")
			}
		}, ""},
		// A short request over its share at a tiny total takes what it
		// needs from the context, whole: not the whole context share,
		// and no warning that its middle was cut.
		{"short request at a tiny total", PromptRequest{UserRequest: "fix", TokenBudget: &BudgetRequest{Total: 123}}, func(t *testing.T, p *plan) {
			if p.env.OriginalInput != "" || p.contextBudget <= 0 {
				t.Errorf("context %d, cut %v", p.contextBudget, p.env.OriginalInput != "")
			}
			if len(p.env.Warnings) != 1 || strings.Contains(p.env.Warnings[0], "cut") {
				t.Errorf("warnings %q", p.env.Warnings)
			}
		}, ""},
		{"task detected", PromptRequest{UserRequest: "write unit tests for the parser"}, func(t *testing.T, p *plan) {
			if p.env.TaskType != ctxd.TaskTest || p.env.TaskTypeSource != ctxd.SourceDetected {
				t.Errorf("task %s (%s)", p.env.TaskType, p.env.TaskTypeSource)
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := e.plan(tt.req)
			if wantInvalid(t, err, tt.errField) {
				return
			}
			tt.check(t, p)
		})
	}
}

func TestPromptFitsWholeBudget(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, relevanceRepo)
	testutil.GitCommitAll(t, dir)
	e := newEngine(t, dir)
	for _, format := range []ctxd.Format{ctxd.FormatMarkdown, ctxd.FormatXML} {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "explain the whole app", Format: format, TokenBudget: &BudgetRequest{Total: 1500}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if limit := env.TokenBudget.Context + env.TokenBudget.UserRequest; env.PromptTokens > limit {
			t.Errorf("%s: prompt %d tokens > context+request %d", format, env.PromptTokens, limit)
		}
	}
}

func BenchmarkBuildPromptGoroot(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	req := PromptRequest{UserRequest: "how does the http server handle keep-alive connections"}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			e := newEngine(b, root)
			if _, err := e.BuildPrompt(b.Context(), req, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		e := newEngine(b, root)
		if _, err := e.BuildPrompt(b.Context(), req, nil); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := e.BuildPrompt(b.Context(), req, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A context budget too small for any chunk builds a prompt without
// context, and a warning says so (not only the skipped list).
func TestNoContextFitsWarns(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"main.go":  "package main\n\n// Timeout says how long to wait.\ntype Timeout struct{ Connect, Read int }\n\nfunc main() {}\n",
		"other.go": "package main\n\nfunc other() int { return 1 }\n",
	})
	e := newEngine(t, dir)
	for _, tt := range []struct {
		context int
		warn    bool
	}{{10, true}, {4000, false}} {
		env, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: "explain Timeout", TokenBudget: &BudgetRequest{Context: tt.context}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(env.Warnings, "\n"), "no context fits")
		if got != tt.warn || tt.warn && len(env.Context.Chunks) != 0 {
			t.Errorf("context %d: warning %v (want %v), %d chunks; warnings %q", tt.context, got, tt.warn, len(env.Context.Chunks), env.Warnings)
		}
	}
}

// TestUserRequestBound: a request's text over MaxUserRequestBytes is
// refused as invalid params, naming the limit, before any work; one at
// the limit is served.
func TestUserRequestBound(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, dir)
	// Padded with blanks: the bound, not the cost of many words, is
	// tested here.
	at := "explain A" + strings.Repeat(" ", MaxUserRequestBytes-len("explain A"))
	if _, err := e.Gather(t.Context(), PromptRequest{UserRequest: at}, nil); err != nil {
		t.Fatalf("a request of %d bytes: %v", len(at), err)
	}
	over := at + strings.Repeat("x", MaxUserRequestBytes-len(at)+1)
	_, err := e.BuildPrompt(t.Context(), PromptRequest{UserRequest: over}, nil)
	if !errors.Is(err, ctxd.ErrInvalidParams) || !strings.Contains(err.Error(), fmt.Sprint(MaxUserRequestBytes)) {
		t.Fatalf("a request of %d bytes: %v, want invalid params naming the limit", len(over), err)
	}
}

// wantInvalid checks err against a table row: when want is set, err must
// be an invalid-params error naming it (and wantInvalid reports true: the
// row is done); otherwise err must be nil.
func wantInvalid(t *testing.T, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ctxd.ErrInvalidParams) {
			t.Fatalf("err %v, want an invalid-params error naming %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}

// TestMinBudgetHint: the least total a refusal names holds the request,
// and one token less does not (it was computed from the rounded parts of
// the refused total: 123 named where 82 worked).
func TestMinBudgetHint(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, relevanceRepo)
	e := newEngine(t, dir)
	re := regexp.MustCompile(`minimum total budget for it at these shares is (\d+)`)
	for _, req := range []string{"fix", "explain how the cart total is computed with the discount and the tax rules"} {
		for _, total := range []int{1, 5, 20} {
			_, err := e.plan(PromptRequest{UserRequest: req, TokenBudget: &BudgetRequest{Total: total}})
			m := re.FindStringSubmatch(fmt.Sprint(err))
			if !errors.Is(err, ctxd.ErrOverBudget) || m == nil {
				t.Fatalf("%q at %d: %v", req, total, err)
			}
			least, _ := strconv.Atoi(m[1])
			if _, err := e.plan(PromptRequest{UserRequest: req, TokenBudget: &BudgetRequest{Total: least}}); err != nil {
				t.Errorf("%q at the named %d: %v", req, least, err)
			}
			if _, err := e.plan(PromptRequest{UserRequest: req, TokenBudget: &BudgetRequest{Total: least - 1}}); err == nil {
				t.Errorf("%q at %d, one under the named least, is not refused", req, least-1)
			}
		}
	}
}
