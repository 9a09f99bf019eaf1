package mcp_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxd/ctxd/internal/testutil"
)

// ctxdBin is the ctxd binary the tests drive over stdio.
var ctxdBin string

var update = flag.Bool("update", false, "rewrite testdata/tools.golden (the tools/list answer)")

func TestMain(m *testing.M) { testutil.MainWithCtxd(m, "../cmd/ctxd", &ctxdBin) }

// repoFiles is the repository the tools run on.
var repoFiles = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"store/store.go": `// Package store keeps carts.
package store

import "errors"

// ErrFull is returned when a cart is full.
var ErrFull = errors.New("cart is full")

// Store keeps carts in memory.
type Store struct {
	carts map[string][]string
	limit int
}

// New returns an empty store.
func New(limit int) *Store { return &Store{carts: map[string][]string{}, limit: limit} }

// Put adds an item to a cart.
func (s *Store) Put(cart, item string) error {
	if len(s.carts[cart]) >= s.limit {
		return ErrFull
	}
	s.carts[cart] = append(s.carts[cart], item)
	return nil
}
`,
	"main.go": `package main

import (
	"fmt"

	"example.com/shop/store"
)

func main() {
	s := store.New(2)
	if err := s.Put("alice", "apple"); err != nil {
		fmt.Println(err)
	}
}
`,
	"store/store_test.go": `package store

import "testing"

func TestPutFull(t *testing.T) {
	s := New(1)
	s.Put("a", "x")
	if err := s.Put("a", "y"); err != ErrFull {
		t.Fatal(err)
	}
}
`,
}

// chatRequest is a long agent conversation in the OpenAI Chat format:
// tool outputs old enough and large enough to condense.
func chatRequest() map[string]any {
	msgs := []any{
		map[string]any{"role": "system", "content": "You are a coding agent."},
		map[string]any{"role": "user", "content": "Run the tests and fix the failures."},
	}
	for i := range 6 {
		id := "call_" + itoa(i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "run_shell", "arguments": `{"cmd":"cat pkg` + itoa(i) + `/big.go"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": testutil.ToolOutput(i)},
		)
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "Now fix pkg3."})
	return map[string]any{"model": "gpt-4o", "messages": msgs}
}

func itoa(n int) string { return strconv.Itoa(n) }

// connect starts `ctxd mcp --root repo` and connects the Go SDK client.
func connect(t *testing.T, repo string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(ctxdBin, "mcp", "--root", repo, "--state-dir", filepath.Join(t.TempDir(), "state"))
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "ctxd-test", Version: "1"}, opts)
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to ctxd mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// callOK is [call] for a call that must succeed: a tool error fails the
// test with the tool's message.
func callOK(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s: %s", name, text(t, res))
	}
	return res
}

func text(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

func structured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func TestGoClient(t *testing.T) {
	repo := testutil.GitRepo(t, repoFiles)
	var progMu sync.Mutex
	var progress []string
	cs := connect(t, repo, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			progMu.Lock()
			progress = append(progress, req.Params.Message)
			progMu.Unlock()
		},
	})

	if got := cs.InitializeResult().ServerInfo.Name; got != "ctxd" {
		t.Errorf("server name %q, want ctxd", got)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tl.Name)
		}
	}
	// The model-facing contract (names, descriptions, schemas) is a
	// golden file: a change to it is a reviewed change.
	listed := slices.Clone(tools.Tools)
	slices.SortFunc(listed, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	golden, err := json.MarshalIndent(listed, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "tools.golden"), append(golden, '\n'), *update)
	want := "build_context compact_history count_tokens find_symbol outline rehydrate"
	if got := strings.Join(slices.Sorted(slices.Values(names)), " "); got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}

	t.Run("build_context", func(t *testing.T) {
		params := &sdk.CallToolParams{Name: "build_context", Arguments: map[string]any{
			"request": "fix Store.Put returning ErrFull too early", "task": "debug", "budget": 4000,
			"open_files": []any{map[string]any{"path": "store/store.go", "line": 20}},
		}}
		params.SetProgressToken("build-1")
		res, err := cs.CallTool(t.Context(), params)
		if err != nil || res.IsError {
			t.Fatalf("build_context: %v %s", err, text(t, res))
		}
		if p := text(t, res); !strings.Contains(p, "func (s *Store) Put") {
			t.Errorf("prompt lacks the open file's Put:\n%s", p)
		}
		var out struct {
			TaskType string `json:"task_type"`
			Chunks   []struct {
				Source string `json:"source"`
				View   string `json:"view"`
				Tokens int    `json:"tokens"`
			} `json:"chunks"`
		}
		structured(t, res, &out)
		if out.TaskType != "debug" || len(out.Chunks) == 0 || out.Chunks[0].Tokens == 0 {
			t.Errorf("summary = %+v", out)
		}
		found := false
		for _, c := range out.Chunks {
			found = found || c.Source == "store/store.go"
		}
		if !found {
			t.Errorf("summary chunks %+v lack store/store.go", out.Chunks)
		}
		progMu.Lock()
		defer progMu.Unlock()
		if len(progress) == 0 {
			t.Errorf("no progress notifications for a call with a progress token")
		}
	})

	t.Run("find_symbol", func(t *testing.T) {
		res := callOK(t, cs, "find_symbol", map[string]any{"name": "Store.Put"})
		var out struct {
			Definitions []struct {
				Path string `json:"path"`
				Line int    `json:"line"`
			} `json:"definitions"`
			References []struct {
				Path string `json:"path"`
				Line int    `json:"line"`
			} `json:"references"`
		}
		structured(t, res, &out)
		if len(out.Definitions) != 1 || out.Definitions[0].Path != "store/store.go" || out.Definitions[0].Line != 19 {
			t.Errorf("definitions = %+v, want store/store.go:19", out.Definitions)
		}
		refs := map[string]bool{}
		for _, r := range out.References {
			refs[r.Path+":"+itoa(r.Line)] = true
		}
		if !refs["main.go:11"] || !refs["store/store_test.go:7"] {
			t.Errorf("references = %+v, want main.go:11 and store/store_test.go:7", out.References)
		}
	})

	t.Run("outline", func(t *testing.T) {
		res := callOK(t, cs, "outline", map[string]any{"path": "store/store.go", "level": "signatures"})
		var out struct {
			Language string `json:"language"`
			Symbols  []struct {
				Name string `json:"name"`
			} `json:"symbols"`
			View string `json:"view"`
		}
		structured(t, res, &out)
		if out.Language != "go" || len(out.Symbols) < 4 {
			t.Errorf("outline = %+v", out)
		}
		if !strings.Contains(out.View, "func (s *Store) Put(cart, item string) error") || strings.Contains(out.View, "append(s.carts") {
			t.Errorf("signatures view:\n%s", out.View)
		}
	})

	t.Run("count_tokens", func(t *testing.T) {
		res := call(t, cs, "count_tokens", map[string]any{"text": "hello world", "model": "gpt-4o"})
		var out struct {
			Tokens int  `json:"tokens"`
			Exact  bool `json:"exact"`
		}
		structured(t, res, &out)
		if out.Tokens != 2 || !out.Exact || !strings.Contains(text(t, res), "exact") {
			t.Errorf("gpt-4o count = %+v %q, want 2 exact", out, text(t, res))
		}
		res = call(t, cs, "count_tokens", map[string]any{"text": "hello world", "model": "claude-sonnet-4"})
		structured(t, res, &out)
		if out.Exact || !strings.Contains(text(t, res), "estimated") {
			t.Errorf("claude count = %+v %q, want an estimate said so", out, text(t, res))
		}
		// A name the registry does not know is counted with the fallback
		// encoding, not its tokenizer (it said "exact").
		out.Exact = true
		res = call(t, cs, "count_tokens", map[string]any{"text": "hello world", "model": "my-gateway-alias"})
		structured(t, res, &out)
		if out.Exact || !strings.Contains(text(t, res), "estimated") {
			t.Errorf("unknown model count = %+v %q, want an estimate said so", out, text(t, res))
		}
		// One token is "1 token", not "1 tokens".
		res = call(t, cs, "count_tokens", map[string]any{"text": "hello", "model": "gpt-4o"})
		if got := text(t, res); !strings.HasPrefix(got, "1 token (exact, o200k_base encoding") {
			t.Errorf("one token: %q, want it said in the singular", got)
		}
	})

	t.Run("compact_history and rehydrate", func(t *testing.T) {
		res := callOK(t, cs, "compact_history", map[string]any{"request": chatRequest(), "smart": true, "session": "mcp-test", "window": 128000})
		var out struct {
			Session string `json:"session"`
			Report  struct {
				Applied   bool `json:"applied"`
				Artifacts []struct {
					SHA256 string `json:"sha256"`
				} `json:"artifacts"`
			} `json:"report"`
		}
		structured(t, res, &out)
		body := text(t, res)
		if out.Session != "mcp-test" || !json.Valid([]byte(body)) || !out.Report.Applied || len(out.Report.Artifacts) == 0 {
			t.Fatalf("session %q, valid %v, report %+v", out.Session, json.Valid([]byte(body)), out.Report)
		}
		if len(body) >= len(testutil.JSON(t, chatRequest())) || !strings.Contains(body, "[ctxd:ref sha256=") {
			t.Errorf("smart compaction did not shrink the request behind references")
		}
		// The first condensed output is tool output 0; read back lines
		// 2-3 by the marker's hash prefix.
		marker := body[strings.Index(body, "[ctxd:ref"):]
		marker = marker[:strings.Index(marker, "]")+1]
		res = callOK(t, cs, "rehydrate", map[string]any{"session": "mcp-test", "reference": marker, "lines": "2-3"})
		lines := strings.SplitAfter(testutil.ToolOutput(0), "\n")
		if got, want := text(t, res), lines[1]+lines[2]; got != want {
			t.Errorf("rehydrate lines 2-3 = %q, want %q", got, want)
		}
		// The pruner (no smart) stores what it condenses too: its
		// references rehydrate under the session it reports, the
		// derived one when none is given.
		for _, session := range []string{"mcp-prune", ""} {
			args := map[string]any{"request": chatRequest(), "window": 20000}
			if session != "" {
				args["session"] = session
			}
			res = callOK(t, cs, "compact_history", args)
			body := text(t, res)
			if len(body) >= len(testutil.JSON(t, chatRequest())) {
				t.Errorf("fit to a 20000-token window did not shrink the request")
			}
			structured(t, res, &out)
			if out.Session == "" || (session != "" && out.Session != session) {
				t.Fatalf("pruner session = %q, want %q (or a derived one)", out.Session, session)
			}
			i := strings.Index(body, "[ctxd:ref")
			if i < 0 {
				t.Fatalf("pruned request has no reference: %.300s", body)
			}
			marker := body[i:]
			marker = marker[:strings.Index(marker, "]")+1]
			res = call(t, cs, "rehydrate", map[string]any{"session": out.Session, "reference": marker})
			if res.IsError {
				t.Fatalf("rehydrate pruner reference %s: %s", marker, text(t, res))
			}
			got := text(t, res)
			found := false
			for j := range 6 {
				found = found || got == testutil.ToolOutput(j)
			}
			if !found {
				t.Errorf("pruner reference rehydrated to %d bytes that are no tool output of the request: %.200q", len(got), got)
			}
		}
	})

	t.Run("compact_history takes the vocabulary's names beside the older ones", func(t *testing.T) {
		res := callOK(t, cs, "compact_history", map[string]any{"request": chatRequest(), "smart": true, "session_id": "mcp-vocab", "context_window": 128000})
		var out struct {
			Session string `json:"session"`
		}
		structured(t, res, &out)
		if out.Session != "mcp-vocab" {
			t.Errorf("session = %q, want the session_id given (mcp-vocab)", out.Session)
		}
		res = call(t, cs, "compact_history", map[string]any{"request": chatRequest(), "session_id": "mcp-vocab", "session": "mcp-vocab"})
		if res.IsError {
			t.Errorf("both names with one value: %s", text(t, res))
		}
	})

	t.Run("compact_history of a model with no known window shows none and says so", func(t *testing.T) {
		// request.NoWindow (1073741824) is what the run assumes, no number
		// to report; the report says the window is unknown and how to give
		// it. A given window is shown, with no warning.
		for _, smart := range []bool{false, true} {
			req := chatRequest()
			req["model"] = "acme-9000"
			res := callOK(t, cs, "compact_history", map[string]any{"request": req, "smart": smart})
			var out struct {
				Report map[string]any `json:"report"`
			}
			structured(t, res, &out)
			w, _ := out.Report["warnings"].([]any)
			if _, ok := out.Report["context_window"]; ok {
				t.Errorf("smart %v: context_window %v shown", smart, out.Report["context_window"])
			}
			if _, ok := out.Report["model_context_window_tokens"]; ok {
				t.Errorf("smart %v: model_context_window_tokens %v shown", smart, out.Report["model_context_window_tokens"])
			}
			if len(w) != 1 || !strings.Contains(fmt.Sprint(w[0]), "context window unknown") || !strings.Contains(fmt.Sprint(w[0]), "context_window") {
				t.Errorf("smart %v: warnings %v, want the window unknown and how to give it", smart, out.Report["warnings"])
			}
			res = callOK(t, cs, "compact_history", map[string]any{"request": req, "smart": smart, "context_window": 64000})
			out.Report = nil
			structured(t, res, &out)
			if _, ok := out.Report["warnings"]; ok {
				t.Errorf("smart %v with a window: warnings %v", smart, out.Report["warnings"])
			}
		}
	})

	t.Run("bad calls are tool errors and the server keeps serving", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"outline", map[string]any{"path": "../../etc/passwd"}, "outside root"},
			{"outline", map[string]any{"path": "nope.go"}, "not found"},
			{"outline", map[string]any{"path": "store/store.go", "level": "focus"}, "need functions to keep"},
			{"rehydrate", map[string]any{"session": "s", "reference": "0123456789abcdef"}, "(check the session id and the hash: compact_history's session, or the proxy's X-Ctxd-Session)"},
			{"compact_history", map[string]any{"request": "not json"}, "compact_history: the request body is not valid JSON at line 1, column 2, byte 1: invalid character 'o' in literal null (expecting 'u'); want a JSON object: a Chat Completions, Anthropic Messages or Responses request"},
			{"compact_history", map[string]any{"request": chatRequest(), "session": "a", "session_id": "b"}, "session_id and session name the same field"},
			{"compact_history", map[string]any{"request": chatRequest(), "window": 1000, "context_window": 2000}, "context_window and window name the same field"},
			{"rehydrate", map[string]any{"reference": "0123456789abcdef"}, "session_id is required"},
			{"find_symbol", map[string]any{"name": "a b"}, "identifier"},
			{"build_context", map[string]any{"request": "x", "open_files": []any{map[string]any{"path": "/etc/passwd"}}}, "outside root"},
			{"build_context", map[string]any{"request": "x", "open_files": []any{map[string]any{"path": "store/store.go", "line": -4}}}, "build_context: open_files[0] store/store.go: line -4: line numbers start at 1"},
		} {
			res := call(t, cs, tc.tool, tc.args)
			if !res.IsError || !strings.Contains(text(t, res), tc.want) {
				t.Errorf("%s %v: isError=%v %q, want a tool error containing %q", tc.tool, tc.args, res.IsError, text(t, res), tc.want)
			}
			if msg := text(t, res); strings.Count(msg, tc.tool+":") > 1 || strings.Count(msg, "(") > 1 {
				t.Errorf("%s %v: %q says the tool twice or adds an unrelated hint", tc.tool, tc.args, msg)
			}
		}
		// Arguments that fail the schema are tool errors too.
		res := call(t, cs, "count_tokens", map[string]any{"text": 42})
		if !res.IsError {
			t.Errorf("count_tokens with a number for text: not a tool error")
		}
		res = call(t, cs, "count_tokens", map[string]any{"text": "still serving"})
		if res.IsError {
			t.Errorf("server stopped serving after bad calls: %s", text(t, res))
		}
	})
}

// TestRootDefaultsToGitTopLevel: started in a subdirectory without
// --root, the server works on the repository's top level.
func TestRootDefaultsToGitTopLevel(t *testing.T) {
	repo := testutil.GitRepo(t, repoFiles)
	cmd := exec.Command(ctxdBin, "mcp", "--state-dir", filepath.Join(t.TempDir(), "state"))
	cmd.Dir = filepath.Join(repo, "store")
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "ctxd-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res := call(t, cs, "outline", map[string]any{"path": "main.go"})
	if res.IsError || !strings.Contains(text(t, res), "main.go (go)") {
		t.Errorf("outline main.go from store/: %s", text(t, res))
	}
}

// TestCompactHistoryRedacts: with secrets.redact_conversation in the
// workspace's configuration, compact_history (the pruner and Smart
// Context) sends no secret on: the redaction is the request flow's, as
// in the CLI, the daemon and the proxy.
func TestCompactHistoryRedacts(t *testing.T) {
	const pat = "ghp_AeKOmXRrvftva9AW7hipTgadDZFlRJmCGmUX"
	files := map[string]string{".ctxd.toml": "[secrets]\nredact_conversation = true\n"}
	for k, v := range repoFiles {
		files[k] = v
	}
	cs := connect(t, testutil.GitRepo(t, files), nil)
	req := chatRequest()
	msgs := req["messages"].([]any)
	msgs[1] = map[string]any{"role": "user", "content": "Use the token " + pat + " to push."}
	for _, smartOn := range []bool{false, true} {
		res := callOK(t, cs, "compact_history", map[string]any{"request": req, "smart": smartOn, "session": "mcp-redact", "window": 128000})
		if body := text(t, res); strings.Contains(body, pat) || !strings.Contains(body, "[REDACTED github-pat]") {
			t.Errorf("smart %v: the secret went on unredacted", smartOn)
		}
	}
}

// TestBuildContextWarningsInText: the files build_context skipped (a
// missing one, a secret one the agent named) are said in a text block
// after the prompt, not only in the structured result a client may never
// show the model; the prompt block stays the prompt alone.
func TestBuildContextWarningsInText(t *testing.T) {
	files := map[string]string{".env": "TOKEN=x\n"}
	for k, v := range repoFiles {
		files[k] = v
	}
	cs := connect(t, testutil.GitRepo(t, files), nil)
	res := callOK(t, cs, "build_context", map[string]any{"request": "why is the cart full", "budget": 2000,
		"open_files": []any{map[string]any{"path": "store/nosuch.go"}, map[string]any{"path": ".env"}}})
	if len(res.Content) != 2 {
		t.Fatalf("%d content blocks, want the prompt and the warnings: %s", len(res.Content), text(t, res))
	}
	prompt, _ := res.Content[0].(*sdk.TextContent)
	notes, _ := res.Content[1].(*sdk.TextContent)
	if prompt == nil || notes == nil || strings.Contains(prompt.Text, "ctxd warnings") {
		t.Fatalf("content: %#v", res.Content)
	}
	for _, want := range []string{"ctxd warnings:\n", "- skipped store/nosuch.go: no such file\n", ".env"} {
		if !strings.Contains(notes.Text, want) {
			t.Errorf("warnings block %q lacks %q", notes.Text, want)
		}
	}
	res = callOK(t, cs, "build_context", map[string]any{"request": "why is the cart full", "budget": 2000})
	if len(res.Content) != 1 {
		t.Errorf("no warning, yet %d content blocks: %s", len(res.Content), text(t, res))
	}
}
