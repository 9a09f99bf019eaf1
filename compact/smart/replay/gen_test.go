package replay

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/smart/internal/convo"
	"github.com/ctxd/ctxd/internal/testutil"
)

var update = flag.Bool("update", false, "regenerate the replay corpus in testdata/corpus")

// corpusDir is the checked-in corpus.
const corpusDir = "testdata/corpus"

// TestCorpusIsGenerated regenerates the corpus from its seeded generator
// and compares it with the checked-in files (-update rewrites them), so
// the files are exactly the generator's output.
func TestCorpusIsGenerated(t *testing.T) {
	testutil.NoRace(t) // one goroutine: compact/smart's TestConcurrentOptimize is the race test
	sessions := generate(t)
	if *update {
		os.RemoveAll(corpusDir)
		if err := os.MkdirAll(corpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range sessions {
		name := fmt.Sprintf("%02d-%s.json", i+1, s.Name)
		got := encodeSession(s)
		path := filepath.Join(corpusDir, name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs from the generator's output; run go test -run TestCorpusIsGenerated -update", path)
		}
	}
}

// encodeSession writes a session compactly, one item per line.
func encodeSession(s *Session) []byte {
	var b bytes.Buffer
	head := *s
	head.Turns = nil
	hb, _ := json.Marshal(head)
	hb = bytes.TrimSuffix(hb, []byte(`,"turns":null}`))
	b.Write(hb)
	b.WriteString(",\n\"turns\":[\n")
	for i, t := range s.Turns {
		if i > 0 {
			b.WriteString(",\n")
		}
		items := t.Append
		t.Append = nil
		tb, _ := json.Marshal(t)
		tb = bytes.Replace(tb, []byte(`"append":null`), nil, 1)
		tb = bytes.Replace(bytes.TrimSuffix(tb, []byte("}")), []byte("{,"), []byte("{"), 1)
		if len(tb) > 1 {
			tb = append(tb, ',')
		}
		b.Write(tb)
		b.WriteString("\"append\":[")
		for k, it := range items {
			if k > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n")
			b.Write(it)
		}
		b.WriteString("]}")
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// builder scripts one session.
type builder struct {
	t       *testing.T
	g       *gen
	s       *Session
	top     map[string]any
	pending []convo.Msg
	msgs    []convo.Msg // the whole history, neutral
	calls   int
	damage  []Damage
	nextTop json.RawMessage
}

var toolDefs = []any{
	tool("read_file", "Read a file of the repository.", "path"),
	tool("write_file", "Write a whole file.", "path", "content"),
	tool("edit_file", "Replace old_string with new_string in a file.", "path", "old_string", "new_string"),
	tool("bash", "Run a shell command in the repository.", "command"),
	tool("grep", "Search the repository for a pattern.", "pattern", "path"),
	tool("list_dir", "List a directory.", "path"),
}

func tool(name, desc string, params ...string) map[string]any {
	props := map[string]any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string", "description": "The " + strings.ReplaceAll(p, "_", " ") + "."}
	}
	return map[string]any{"name": name, "description": desc, "input_schema": map[string]any{"type": "object", "properties": props, "required": params}}
}

// toolsFor renders the tool definitions in a format's shape.
func toolsFor(f request.Format) []any {
	var out []any
	for _, d := range toolDefs {
		m := d.(map[string]any)
		switch f {
		case request.FormatChat:
			out = append(out, map[string]any{"type": "function", "function": map[string]any{"name": m["name"], "description": m["description"], "parameters": m["input_schema"]}})
		case request.FormatResponses:
			out = append(out, map[string]any{"type": "function", "name": m["name"], "description": m["description"], "parameters": m["input_schema"]})
		default:
			out = append(out, m)
		}
	}
	return out
}

func newSession(t *testing.T, name, desc string, f request.Format, model string, window int, seed uint64, system string, tags ...string) *builder {
	b := &builder{t: t, g: newGen(seed), s: &Session{Name: name, Description: desc, Tags: tags, Format: f, Model: model, ContextWindow: window, SessionID: "replay-" + name}}
	b.top = map[string]any{"model": model, "tools": toolsFor(f)}
	switch f {
	case request.FormatChat:
		b.top["temperature"] = 0
		b.pending = append(b.pending, convo.System(system))
	case request.FormatAnthropic:
		b.top["max_tokens"] = 8192
		b.top["system"] = system
	case request.FormatResponses:
		b.top["instructions"] = system
		b.top["store"] = true
	}
	b.s.Top = mustJSON(b.top)
	return b
}

func mustJSON(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

func (b *builder) user(text string) { b.pending = append(b.pending, convo.User(text)) }

// run has the assistant call one tool and the tool answer.
func (b *builder) run(name, args, output string) {
	b.calls++
	id := fmt.Sprintf("call_%s_%03d", strings.ReplaceAll(b.s.Name, "-", "")[:6], b.calls)
	b.pending = append(b.pending, convo.Assistant("", convo.Call{ID: id, Name: name, Args: args}), convo.Tool(id, name, output, false))
}

// say adds an assistant message.
func (b *builder) say(text string) { b.pending = append(b.pending, convo.Assistant(text)) }

func (b *builder) bash(cmd, output string) {
	b.run("bash", string(mustJSON(map[string]string{"command": cmd})), output)
}

func (b *builder) read(path, src string) {
	b.run("read_file", string(mustJSON(map[string]string{"path": path})), numbered(src))
}

func (b *builder) edit(path, old, new string) {
	b.run("edit_file", string(mustJSON(map[string]string{"path": path, "old_string": old, "new_string": new})), "The file "+path+" has been updated.")
}

// setSystem changes the static instructions from the next turn on.
func (b *builder) setSystem(text string) {
	switch b.s.Format {
	case request.FormatAnthropic:
		b.top["system"] = text
	case request.FormatResponses:
		b.top["instructions"] = text
	default:
		b.t.Fatal("setSystem: chat keeps its system message in the history")
	}
	b.nextTop = mustJSON(b.top)
}

// turn ends a request: everything pending is appended.
func (b *builder) turn(needs ...string) {
	items, _ := convo.Items(b.s.Format, b.pending)
	if b.s.Format != request.FormatChat && len(b.msgs) == 0 && len(b.pending) > 0 && b.pending[0].Role == "system" {
		b.t.Fatal("system message in a format that keeps it at the top")
	}
	if b.s.Continued {
		// Server-side state holds the assistant's items; the request
		// carries what happened since: tool outputs and user messages.
		var kept []convo.Msg
		for _, m := range b.pending {
			if m.Role != "assistant" {
				kept = append(kept, m)
			}
		}
		items, _ = convo.Items(b.s.Format, kept)
	}
	t := Turn{Append: items, Needs: needs, Damage: b.damage}
	if b.nextTop != nil {
		t.Top, b.nextTop = b.nextTop, nil
	}
	if b.s.Continued && len(b.s.Turns) > 0 {
		t.PreviousResponseID = fmt.Sprintf("resp_%s_%03d", strings.ReplaceAll(b.s.Name, "-", "")[:6], len(b.s.Turns))
	}
	b.msgs = append(b.msgs, b.pending...)
	b.pending, b.damage = nil, nil
	b.s.Turns = append(b.s.Turns, t)
}

// fact returns a needed fact: the first line of text (trimmed) containing
// sub, cut to at most 100 bytes at a word boundary.
func fact(t *testing.T, text, sub string) string {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if !strings.Contains(l, sub) {
			continue
		}
		l = strings.TrimSpace(l)
		if i := strings.LastIndexByte(l, '\t'); i >= 0 && i < len(l)-8 {
			l = l[i+1:] // a numbered read: the code, not the number
		}
		if len(l) > 100 {
			cut := strings.LastIndexByte(l[:100], ' ')
			if cut < 40 {
				cut = 100
			}
			l = l[:cut]
		}
		return l
	}
	t.Fatalf("no line with %q", sub)
	return ""
}

// middleLine returns a line from the middle of a file (a fact a preview
// does not show).
func middleLine(t *testing.T, src string) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	for i := len(lines) / 2; i < len(lines); i++ {
		l := lines[i]
		if n, code, ok := strings.Cut(l, "\t"); ok && strings.TrimSpace(n) != "" && strings.Trim(n, " 0123456789") == "" {
			l = code // a numbered read
		}
		if strings.HasPrefix(l, "func ") {
			return fact(t, l, "func ")
		}
	}
	t.Fatal("no func line in the second half")
	return ""
}

// check verifies the facts of every turn are in its exact request (they
// are facts the model was shown) and returns the session.
func (b *builder) done() *Session {
	if len(b.pending) > 0 {
		b.turn()
	}
	reqs := b.s.Requests()
	for i, body := range reqs {
		req, err := request.Parse(body, b.s.Format)
		if err != nil {
			b.t.Fatalf("%s turn %d: %v", b.s.Name, i+1, err)
		}
		text := requestText(req)
		for _, f := range b.s.Turns[i].Needs {
			if !strings.Contains(text, f) && !b.behindSeed(f) {
				b.t.Fatalf("%s turn %d: fact %q is not in the request", b.s.Name, i+1, f)
			}
		}
	}
	return b.s
}

// behindSeed reports a fact that is in a seed artifact (a resumed
// session's history refers to it).
func (b *builder) behindSeed(f string) bool {
	for _, a := range b.s.SeedArtifacts {
		if a.State == "ok" && strings.Contains(a.Content, f) {
			return true
		}
	}
	return false
}

// generate builds every session of the corpus.
func generate(t *testing.T) []*Session {
	return []*Session{
		goTestFixLoop(t), largeDiffReview(t), repoNavigation(t), multiFileRefactor(t), staticInstructions(t),
		resumedWithArtifacts(t), noisyBuildBinary(t), runtimePanicDebug(t), duplicateToolCalls(t),
		continuedResponses(t), longDebug16k(t), corruptedMidway(t), pythonPytest32k(t),
	}
}

const agentSystem = "You are a careful coding agent working in a Go and TypeScript monorepo. Read before you edit, run the tests after every change, and explain what you changed. Never invent file contents: read them."

func goTestFixLoop(t *testing.T) *Session {
	b := newSession(t, "go-test-fix-loop", "a failing Go package fixed over many turns: repeated test runs, a compiler error after an edit, the fix and the full suite",
		request.FormatChat, "gpt-4o", 0, 1, agentSystem, Case30Turns, CaseRepeatedOutput, CaseErrors, CaseRecovery)
	g := b.g
	pkg := "example.com/app/internal/parser"
	files := map[string]string{}
	names := []string{"internal/parser/lexer.go", "internal/parser/parser.go", "internal/parser/token.go", "internal/parser/ast.go"}
	for i, n := range names {
		files[n] = g.goSource("parser", 10+i*3)
	}
	tests := g.testNames(40)
	fail1 := map[string]string{tests[7]: "parser_test.go:57: got 3 tokens, want 4", tests[21]: "parser_test.go:112: unexpected EOF after \"}\""}
	b.user("The tests in ./internal/parser fail since the tokenizer change. Find out why and fix them.")
	b.turn()
	b.bash("find internal/parser -name '*.go'", tree(append(names, "internal/parser/parser_test.go", "internal/parser/lexer_test.go")))
	b.turn()
	out1 := g.goTest(pkg, tests, fail1)
	b.bash("go test ./internal/parser", out1)
	b.turn()
	for _, n := range names[:3] {
		b.read(n, files[n])
		b.turn()
	}
	b.bash("go test ./internal/parser", out1) // the same run again: identical output
	b.turn()
	sig := middleLine(t, files[names[1]])
	b.say("The lexer drops the last token when the input ends without a newline.")
	b.edit(names[0], "if l.pos >= len(l.src) {", "if l.pos > len(l.src) {")
	b.turn()
	buildErr := goBuildErrors(pkg, []string{"internal/parser/lexer.go:88:14: undefined: tokenKind", "internal/parser/parser.go:131:9: cannot use tok (variable of type Token) as string value in return statement"})
	b.bash("go build ./...", buildErr)
	b.turn()
	b.read(names[3], files[names[3]])
	b.turn()
	b.edit(names[0], "tokenKind", "TokenKind")
	b.turn()
	fail2 := map[string]string{tests[21]: "parser_test.go:112: unexpected EOF after \"}\""}
	out2 := g.goTest(pkg, tests, fail2)
	b.bash("go test ./internal/parser", out2)
	b.turn()
	b.run("grep", `{"pattern":"unexpected EOF","path":"internal/parser"}`, g.grep("next", names, 14))
	b.turn(fact(t, out1, "got 3 tokens"))
	b.read("internal/parser/parser_test.go", g.goSource("parser", 12))
	b.turn()
	b.bash("go test ./internal/parser", out2)
	b.turn()
	b.user("Before you go on: what is the signature of the function in parser.go you looked at earlier?")
	b.turn(sig)
	b.edit(names[1], "return nil, io.ErrUnexpectedEOF", "return p.finish()")
	b.turn()
	b.bash("go vet ./internal/parser", "")
	b.turn()
	outOK := g.goTest(pkg, tests, nil)
	b.bash("go test ./internal/parser", outOK)
	b.turn(fact(t, buildErr, "undefined: tokenKind"))
	b.bash("git diff --stat", " internal/parser/lexer.go  | 6 +++---\n internal/parser/parser.go | 4 ++--\n 2 files changed, 5 insertions(+), 5 deletions(-)\n")
	b.turn()
	b.bash("git diff", g.gitDiff(names[0], files[names[0]], 3)+g.gitDiff(names[1], files[names[1]], 2))
	b.turn()
	b.user("Good. Now run the whole suite and tell me if anything else broke.")
	b.turn()
	var all strings.Builder
	for _, p := range []string{"cmd/app", "internal/api", "internal/store", "internal/parser", "internal/render", "pkg/util"} {
		all.WriteString(g.goTest("example.com/app/"+p, g.testNames(12), nil))
	}
	b.bash("go test ./...", all.String())
	b.turn()
	for i := range 6 {
		n := fmt.Sprintf("internal/api/handler%d.go", i)
		b.read(n, g.goSource("api", 6+i))
		b.turn()
	}
	b.bash("go test ./...", all.String())
	b.turn()
	b.bash("git status --short", " M internal/parser/lexer.go\n M internal/parser/parser.go\n")
	b.turn()
	b.user("Summarize what was wrong and what you changed.")
	b.turn(fact(t, outOK, "ok  \t"+pkg))
	return b.done()
}
